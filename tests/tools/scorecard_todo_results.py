#!/usr/bin/env python3
"""A copy of the lab 12 student fixture (tests/fixtures/scorecard/12-student.json) whose failed rows'
notes point at their TODO, as a lab program writes them.

  scorecard_todo_results.py OUT.json      (in the course tree)

Called by the scorecard suite.
"""
import json, sys
run = json.load(open("tests/fixtures/scorecard/12-student.json"))
for r in run["results"]:
    if r["status"] == "FAIL":
        r["note"] = ("wrong value at (17, 3): 1.5 != 2.25; see TODO(lab12) at "
                     "labs/12-matmul-fast/matmul_fast.cu:140")
json.dump(run, open(sys.argv[1], "w"))
