#!/usr/bin/env python3
"""A copy of the lab 12 student fixture (tests/fixtures/scorecard/12-student.json) with every name
long: the GPU's, each variant's (and so the labels, the bars' notes and the targets' rows), a
failed row's note and its TODO pointer, a yardstick's description; and a reference run of another
GPU with a long name, some of its rows failed. Every line of its card must stay inside the
picture (tests/tools/check_scorecard.py).

  scorecard_long_names.py OUT.json REFDIR TARGETS.json      (in the course tree)

Writes OUT.json (the student's run, which lacks the variant fast_with_a_rather_long_descriptive_name
that a target names), REFDIR/long-gpu.d/12.json (the reference's) and TARGETS.json (lab 12's
targets, {"12": [...]}, on the long names). Called by the scorecard suite.
"""
import json
import os
import sys

LONG = "_with_a_rather_long_descriptive_name"
run = json.load(open("tests/fixtures/scorecard/12-student.json"))
run["device"]["name"] = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition (a long device name)"
run["ratio_to"] = ("cublasSgemm (FP32, default math mode, no tensor cores, no TF32) at the same size; "
                   "double rows: cublasDgemm of the same shape at the same size")
ref = json.loads(json.dumps(run))
ref["device"]["name"] = "NVIDIA H100 80GB HBM3 in a machine whose name is also rather long"
for r in run["results"]:
    if r["status"] != "REF":
        r["variant"] += LONG
    if r["status"] == "FAIL":
        r["note"] = ("wrong value at (17, 3): 1.5 != 2.25 and at 4,095 other places, the first of them in "
                     "the last row of the first tile; see TODO(lab12) at labs/12-matmul-fast/matmul_fast.cu:140")
for r in ref["results"]:
    if r["status"] != "REF":
        r["variant"] += LONG
        if r["size"] == "1024":
            r.update(status="FAIL", ratio=None, note="wrong value at (0, 0): the reference failed here, a "
                     "note of a length that a reference bar's line cannot hold in one line of its pitch")
run["targets"] = [{"variant": "fast" + LONG, "size": "4096", "min_ratio": 0.95, "yardstick": "cublas"},
                  {"variant": "vectorized" + LONG, "size": "4096", "min_ratio": 0.6, "yardstick": "cublas"}]
ref["targets"] = run["targets"]
json.dump(run, open(sys.argv[1], "w"))
json.dump({"12": run["targets"]}, open(sys.argv[3], "w"))
os.makedirs(os.path.join(sys.argv[2], "long-gpu.d"), exist_ok=True)
json.dump(ref, open(os.path.join(sys.argv[2], "long-gpu.d", "12.json"), "w"))
