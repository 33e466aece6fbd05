#!/usr/bin/env python3
"""Whether every submission of a graded run got every point of every test of a rubric, and no
grader error: prints "ok N" (N submissions), else "lost ..." with the first of what was lost.

  stress_full_marks.py OUT RUBRIC

Called by the grading_stress suite.
"""
import csv, re, sys
out, rubric = sys.argv[1], sys.argv[2]
points, test = {}, None
for line in open(rubric):
    line = line.split("#", 1)[0].strip()
    m = re.match(r"\[test (\S+)\]", line)
    if m: test = m.group(1)
    elif test and line.startswith("points"): points[test] = float(line.split("=", 1)[1])
lost = []
rows = list(csv.DictReader(open(out + "/gradebook.csv")))
for r in rows:
    for t, p in points.items():
        if r.get(t, "") == "" or abs(float(r[t]) - p) > 1e-9:
            lost.append(f"{r['student']}:{t}={r.get(t, '')!r}")
    if r["note"]: lost.append(f"{r['student']}: {r['note'][:200]}")
print(f"ok {len(rows)}" if not lost else "lost " + "; ".join(lost[:8]))
