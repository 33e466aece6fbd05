#!/usr/bin/env python3
"""A yardstick's row is compared with itself, so its ratio is 1.00 by definition: prints each REF
row of the given results files (make bench's bench/results/*.json) whose ratio is not.

  check_ref_ratios.py RESULTS.json...

Called by the bench suite.
"""
import json, sys
for path in sys.argv[1:]:
    if path.endswith(".grading.json"):
        continue  # make bench-grading's results: no lab rows
    for lab in json.load(open(path))["labs"]:
        for r in lab["results"]:
            if r["status"] == "REF" and r["ratio"] is not None and abs(r["ratio"] - 1) > 1e-9:
                print(f'{path}: {lab["lab"]} {r["variant"]} at {r["size"]}: ratio {r["ratio"]}')
