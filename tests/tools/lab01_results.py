#!/usr/bin/env python3
"""One test's results of lab 01, as ./lab01 --json writes them, at the lab's check sizes.

  lab01_results.py FILE VARIANT [FAILING_SIZE...]

Writes FILE: a row of VARIANT at each check size, failed (with a note) at each FAILING_SIZE and
passed elsewhere; a FAILING_SIZE of "missing" leaves the last row out, as a run that never
reached it. Called by the grade_preview suite.
"""
import json, sys
path, variant, failing = sys.argv[1], sys.argv[2], sys.argv[3:]
sizes = ["1", "7", "997", "1000", "65537", "1000003", "16777219"]
rows = [{"variant": variant, "size": s, "time_ms": 0.1, "status": "FAIL" if s in failing else "PASS",
         "note": "element 3 is 0, expected 2" if s in failing else ""} for s in sizes if s != "missing"]
if "missing" in failing:
    rows = rows[:-1]   # a row the run never reached counts as failed
json.dump({"lab": "01", "mode": "check", "results": rows, "verdict": "PASS"}, open(path, "w"), indent=1)
