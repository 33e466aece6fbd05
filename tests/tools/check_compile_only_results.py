#!/usr/bin/env python3
"""A compile-only run is no grade: in its gradebook the reference's row has no total and its note
says so, results/reference.json says so and gives no test points or status, and its audit line
has no total. Exits with an assertion's message where one is not so.

  check_compile_only_results.py OUT VERDICT      (VERDICT: the note a compile-only pass writes)

Called by the grading_shard suite.
"""
import csv, json, sys
folder, verdict = sys.argv[1], sys.argv[2]
row = [r for r in csv.DictReader(open(folder + "/gradebook.csv")) if r["student"] == "reference"][0]
assert row["total"] == "" and row["note"] == verdict, row
result = json.load(open(folder + "/results/reference.json"))
assert verdict in result["output"], result["output"]
assert all(t["max_score"] == 0 and "status" not in t for t in result["tests"]), result["tests"]
audit = [json.loads(l) for l in open(folder + "/audit.jsonl") if '"reference"' in l][-1]
assert audit["total"] is None, audit
