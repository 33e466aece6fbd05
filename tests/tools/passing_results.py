#!/usr/bin/env python3
"""Results of a lab's tests with every row passing, as ./labNN --json writes them, to preview a
grade from (tools/grade_preview.py --json-from) without a GPU.

  passing_results.py TESTS OUT [--size SIZE] [--describe] [--lab NN]

TESTS is a rubric (grading/rubrics/NN.rubric) or make check's tests (tools/preview/NN.tests).
Writes OUT/TEST.json for each of its tests: a passing row for each variant the test names, at
SIZE (64 by default). With --describe also OUT/describe.json, a lab's description that names the
correctness tests' variants and SIZE as its one check size (with --lab, the lab too).
Reads tools/grade_preview.py from the current folder: run it in the course tree, or in a copy of
it (the student edition, a notebook's files). Called by the grade_preview, release and notebooks
suites.
"""
import argparse, json, os, sys
sys.path.insert(0, "tools")
import grade_preview as g

args = argparse.ArgumentParser()
args.add_argument("tests")
args.add_argument("out")
args.add_argument("--size", default="64")
args.add_argument("--describe", action="store_true")
args.add_argument("--lab")
a = args.parse_args()
tests = g.parse_rubric(a.tests)
os.makedirs(a.out, exist_ok=True)
if a.describe:
    variants = sorted({v for _, t in tests if t["kind"] == "correctness" for v in t["variants"]})
    description = {"lab": a.lab} if a.lab else {}
    description.update({"variants": [{"name": v} for v in variants], "check_sizes": [a.size]})
    json.dump(description, open(os.path.join(a.out, "describe.json"), "w"))
for test_id, t in tests:
    rows = [{"variant": v, "size": a.size, "status": "PASS", "note": ""} for v in t["variants"]]
    json.dump({"results": rows}, open(os.path.join(a.out, test_id + ".json"), "w"))
