#!/usr/bin/env python3
"""Checks handouts/tools/predictions.py against runs whose answer is known, and the handouts'
generated results against the rule that every lab with counts gets its T4 table.

  check_predictions.py model             the model on made-up runs (exit 1 naming what is wrong)
  check_predictions.py handouts GEN_DIR  every results-NN.md in GEN_DIR of a lab whose committed
                                         run has counts holds a predicted table for each GPU to
                                         predict, marked as predictions; lab 06 holds its note only
"""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "handouts", "tools"))
import predictions  # noqa: E402

MEASURED = {"memory_gbs": 1000, "fp32_gflops": 10000}
TARGET = {"name": "Test GPU", "where": "nowhere", "compute_capability": "7.5", "sms": 1, "l2_mib": 1,
          "memory_gbs": 250, "fp32_gflops": 1000}
GPUS = {"measured": {"Measured GPU": MEASURED}, "predicted": [TARGET], "host_link_labs": ["06"]}


def run_of(rows, copy_gbs=1000):
    return {"lab": "99-test", "device": {"name": "Measured GPU", "copy_gbs": copy_gbs}, "results": rows}


def close(a, b):
    return a is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b))


def model_errors():
    errors = []
    # 1 GB at 1000 GB/s: 1 ms at best; measured 2 ms (half the roofline). The target's 250 GB/s:
    # 4 ms at best, so 8 ms predicted; as a share of the copy bandwidth, the same 0.5.
    mem = {"variant": "m", "size": "1", "time_ms": 2.0, "bytes": 1e9, "ratio": 0.5, "gbs": 500}
    (r, t, ratio), = predictions.predict_rows(run_of([mem]), MEASURED, TARGET)
    if not close(t, 8.0) or not close(ratio, 0.5):
        errors.append(f"a row bound by memory: predicted {t} ms, ratio {ratio} (expected 8 ms, 0.5)")
    # 100 GFLOP (and 1 MB) at 10 TFLOP/s: 10 ms at best, measured 20; the target's 1 TFLOP/s: 200 ms.
    # Its yardstick (REF, the same counts, measured 10 ms) keeps the ratio 0.5.
    ref = {"variant": "y", "size": "2", "time_ms": 10.0, "flops": 1e11, "bytes": 1e6, "ratio": 1, "status": "REF"}
    row = {"variant": "c", "size": "2", "time_ms": 20.0, "flops": 1e11, "bytes": 1e6, "ratio": 0.5}
    got = {r["variant"]: (t, ratio) for r, t, ratio in predictions.predict_rows(run_of([ref, row]), MEASURED, TARGET)}
    if not close(got["c"][0], 200.0) or not close(got["c"][1], 0.5) or not close(got["y"][1], 1.0):
        errors.append(f"a row bound by arithmetic: {got} (expected c: 200 ms, 0.5; y: 100 ms, 1)")
    # A row bound by memory here (0.1 ms of bytes, 0.08 ms of flops) and by arithmetic there (0.4
    # ms of bytes, 0.8 ms of flops): it moves by the ratio of the two least times, 8.
    turn = {"variant": "t", "size": "3", "time_ms": 1.0, "bytes": 1e8, "flops": 8e8, "ratio": 0.1, "gbs": 100}
    (r, t, ratio), = predictions.predict_rows(run_of([turn]), MEASURED, TARGET)
    if not close(t, 8.0):
        errors.append(f"a row bound by memory here and by arithmetic there: predicted {t} ms (expected 8)")
    # The copy reached 80% of the data sheet: the bound uses 80% of both bandwidths.
    (r, t, ratio), = predictions.predict_rows(run_of([mem], copy_gbs=800), MEASURED, TARGET)
    if not close(t, 8.0):
        errors.append(f"the copy's share: predicted {t} ms (expected 8: the share cancels between two GPUs)")
    # Rows without counts are left out; a GPU without published figures predicts nothing; a
    # host-link lab gets its note and no table.
    if predictions.predict_rows(run_of([{"variant": "h", "size": "1", "time_ms": 1.0}]), MEASURED, TARGET):
        errors.append("a row without counts was predicted")
    unknown = dict(run_of([mem]), device={"name": "Other GPU"})
    if predictions.section("01", unknown, GPUS):
        errors.append("a run on a GPU without published figures was predicted from")
    noted = dict(GPUS, predicted=[dict(TARGET, notes={"06": "a note of lab 06"})])
    text = "\n".join(predictions.section("06", run_of([mem]), noted))
    if "a note of lab 06" not in text or "| variant |" in text:
        errors.append(f"lab 06 (host link): expected its note and no table, got: {text[:300]}")
    text = "\n".join(predictions.section("01", run_of([mem]), GPUS))
    if "Predictions, not measurements" not in text or "| `m` | 1 | 8.000 | 0.50 |" not in text:
        errors.append(f"the table of lab 01 is not marked or not as computed: {text[:400]}")
    return errors


def handout_errors(gen_dir):
    errors = []
    gpus = predictions.load_gpus()
    names = [g["name"] for g in gpus["predicted"]]
    files = sorted(glob.glob(os.path.join(gen_dir, "results-[0-9][0-9].md")))
    if not files:
        return [f"no results-NN.md in {gen_dir}"]
    for path in files:
        nn = re.search(r"results-(\d\d)\.md$", path).group(1)
        text = open(path, encoding="utf-8").read()
        if "*Results pending.*" in text:
            continue
        for name in names:
            if f"### Predicted for the {name}" not in text:
                errors.append(f"{path}: no predicted section for the {name}")
            elif nn in gpus.get("host_link_labs", []):
                if "predicted time (ms)" in text:
                    errors.append(f"{path}: a table predicted for a lab bound by the host link")
            elif "Predictions, not measurements" not in text or "predicted time (ms)" not in text:
                errors.append(f"{path}: the {name} section has no table marked as predictions")
    return errors


def main():
    if sys.argv[1:2] == ["model"]:
        errors = model_errors()
    elif sys.argv[1:2] == ["handouts"] and len(sys.argv) == 3:
        errors = handout_errors(sys.argv[2])
    else:
        sys.exit(__doc__)
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
