#!/usr/bin/env python3
"""The rubric a grade preview hands the grader for its runs (tools/grade_preview.py's
grader_rubric), for every lab's rubric: each correctness test (a test for each rung stays one)
with its keys but the sizes, no other test, and the rubric's own keys (forbidden symbols,
imports) untouched.

  check_grader_rubric.py      (run in the course tree)

Prints the rubrics for which it is not so, on one line (an empty line when there are none).
Called by the grade_preview suite.
"""
import glob, os, sys, tempfile
sys.path.insert(0, "tools")
import grade_preview as g

bad = []
for path in sorted(glob.glob("grading/rubrics/[0-9][0-9].rubric")):
    text = g.grader_rubric(path, ["1", "7x9"])
    with tempfile.NamedTemporaryFile("w", suffix=".rubric", delete=False) as f:
        f.write(text)
    ours = g.parse_rubric(f.name)
    os.remove(f.name)
    want = [(i, t) for i, t in g.parse_rubric(path) if t["kind"] == "correctness"]
    lines = text.splitlines()
    sized = [l for l in lines if g.rubric_key(l) in ("sizes", "size", "random_sizes", "trials")]
    with open(path) as f:
        same_head = f.read().split("[test", 1)[0] == text.split("[test", 1)[0]
    if ours != want or not same_head or sorted(sized) != sorted(["sizes = 1 7x9", "trials = 1"] * len(want)):
        bad.append(os.path.basename(path))
print(" ".join(bad))
