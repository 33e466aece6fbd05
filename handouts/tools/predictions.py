#!/usr/bin/env python3
"""Predicts a lab's times on a GPU nobody measured (handouts/data/gpus.json, "predicted": the T4
students get on Colab) from a measured run: each row's counts and the published figures of both
GPUs.

The model, one row at a time:
  bound(GPU)  = max(bytes / bandwidth, flops / FP32 peak)   the roofline's least time
  predicted   = time measured * bound(other GPU) / bound(measured GPU)
that is, the row comes as close to the other GPU's roofline as it came to the measured one's.
The bandwidth is the published one scaled by the share of it the measured GPU's copy reached (a
copy never reaches the data sheet's figure). Rows without counts (host timings, transfers) are
left out. A ratio between two rows moves only where one is bound by memory and the other by
arithmetic, since the two GPUs balance them differently; caches (the T4's L2 is 4 MiB) and
features a GPU lacks are outside the model, which the notes name. Every figure is a prediction
until someone measures it: `make bench` on that GPU writes the real table.

Standard library only. Used by results.py; alone: predictions.py RESULTS.json [GPUS.json]
prints the Markdown of every GPU to predict.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GPUS = os.path.join(HERE, "..", "data", "gpus.json")


def load_gpus(path=GPUS):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def counts(row):
    """(bytes, flops) the roofline places the row by: its roofline counts, else its own."""
    b = row.get("roofline_bytes", row.get("bytes"))
    f = row.get("roofline_flops", row.get("flops"))
    return (b or 0.0), (f or 0.0)


def least_time_ms(nbytes, flops, gbs, gflops):
    return max(nbytes / (gbs * 1e9), flops / (gflops * 1e9)) * 1e3


def predict_rows(run, measured_spec, target):
    """[(row, predicted ms, predicted ratio or None)] for the rows of `run` that have counts.

    Each row's time scales by s = bound(other GPU) / bound(measured GPU) at its counts (its
    efficiency kept). Its ratio scales by s(yardstick) / s(row): the yardstick's s is that of a
    REF row of the same size (the yardsticks do a row's work, so they have its counts), or, where
    the run's ratio is to the copy bandwidth, the ratio of the two copy bandwidths."""
    dev = run.get("device", {})
    copy_share = min(1.0, (dev.get("copy_gbs") or measured_spec["memory_gbs"]) / measured_spec["memory_gbs"])

    def scale(row):
        nbytes, flops = counts(row)
        here = least_time_ms(nbytes, flops, measured_spec["memory_gbs"] * copy_share, measured_spec["fp32_gflops"])
        there = least_time_ms(nbytes, flops, target["memory_gbs"] * copy_share, target["fp32_gflops"])
        return there / here

    rows = [r for r in run.get("results", []) if r.get("time_ms") and any(counts(r))]
    yard = {r.get("size"): scale(r) for r in rows if r.get("status") == "REF"}
    copy_scale = measured_spec["memory_gbs"] / target["memory_gbs"]
    out = []
    for r in rows:
        s = scale(r)
        ratio = None
        if r.get("ratio") is not None:
            ratio = r["ratio"] * yard.get(r.get("size"), copy_scale) / s
        out.append((r, r["time_ms"] * s, ratio))
    return out


def fmt(value, digits):
    return "–" if value is None else f"{value:,.{digits}f}"


def basis(runs, gpus):
    """The run to predict from: of those on a GPU whose published figures are known, the one
    with the most rows that have counts; None when there is none."""
    known = [r for r in runs if r.get("device", {}).get("name") in gpus.get("measured", {})]
    return max(known, key=lambda r: sum(1 for row in r.get("results", []) if any(counts(row))), default=None)


def section(nn, run, gpus):
    """Markdown lines: for each GPU to predict, its table for lab `nn` from `run`, or []."""
    dev_name = run.get("device", {}).get("name", "") if run else ""
    measured_spec = gpus.get("measured", {}).get(dev_name)
    if not measured_spec:
        return []
    md = []
    for target in gpus.get("predicted", []):
        rows = [] if nn in gpus.get("host_link_labs", []) else predict_rows(run, measured_spec, target)
        note = target.get("notes", {}).get(nn)
        if not rows and not note:
            continue
        md.append(f"### Predicted for the {target['name']} ({target.get('where', '')})\n")
        md.append(f"The {target['name']} (compute capability {target['compute_capability']}, {target['sms']} SMs, "
                  f"L2 {target['l2_mib']} MiB) has {target['memory_gbs']:,} GB/s and "
                  f"{target['fp32_gflops'] / 1000:,.1f} TFLOP/s FP32 on its data sheet.\n")
        if rows:
            md.append(f"**Predictions, not measurements.** Each time below is the {dev_name} row's time, scaled "
                      "by how the roofline's least time moves between the two GPUs at the row's own counts "
                      "(`handouts/tools/predictions.py`); caches and missing features are outside that model. "
                      "`make bench` on the GPU itself gives the real table.\n")
        if note:
            md.append(note + "\n")
        if rows:
            md.append("| variant | size | predicted time (ms) | predicted ratio |")
            md.append("|---|--:|--:|--:|")
            for r, t, ratio in rows:
                md.append(f"| `{r.get('variant', '?')}` | {r.get('size', '')} | {fmt(t, 3 if t < 10 else 1)} | "
                          f"{fmt(ratio, 2)} |")
            md.append("")
    return md


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: predictions.py RESULTS.json [GPUS.json]")
    with open(sys.argv[1], encoding="utf-8") as f:
        run = json.load(f)
    gpus = load_gpus(sys.argv[2] if len(sys.argv) == 3 else GPUS)
    nn = (run.get("lab") or "00")[:2]
    print("\n".join(section(nn, run, gpus)))


if __name__ == "__main__":
    main()
