#!/usr/bin/env python3
"""Whether a submission's results.json (the grader's results/STUDENT.json) has a test of a name:
exits 0 when it has, else with the names it has.

  results_have_test.py RESULTS.json NAME

Called by the new_lab suite.
"""
import json, sys
names = [t["name"] for t in json.load(open(sys.argv[1]))["tests"]]
sys.exit(0 if sys.argv[2] in names else f"no test '{sys.argv[2]}' among: " + "; ".join(names))
