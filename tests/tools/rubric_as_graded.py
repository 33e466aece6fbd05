#!/usr/bin/env python3
"""A rubric as the grader reads it (tools/grade_preview.py's parse_rubric; its tests of the lab's
rungs expanded from ./solNN --describe): its total points, then each test's name a line.

  rubric_as_graded.py RUBRIC      (in the course tree)

Called by the handouts suite.
"""
import json, os, subprocess, sys
sys.path.insert(0, "tools")
from grade_preview import parse_rubric, rungs_of
path = sys.argv[1]
rungs = None
if "RUNG" in open(path, encoding="utf-8").read():
    described = subprocess.run(["./sol" + os.path.basename(path)[:2], "--describe"], capture_output=True, text=True, check=True)
    rungs = rungs_of(json.loads(described.stdout))
tests = parse_rubric(path, rungs)
print(f"{sum(t['points'] for _, t in tests):g}")
print("\n".join(t.get("name", test_id) for test_id, t in tests))
