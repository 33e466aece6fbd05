#!/usr/bin/env python3
"""Checks the one chart of a handout's measured results (handouts/tools/results.py,
results-NN-chart.svg) against the benchmark files it was drawn from.

  check_results_chart.py CHART.svg BENCH_DIR NN

Fails, one line per problem, when a timed row of lab NN in a BENCH_DIR/<device>.json (every
variant and size with a ratio, the yardstick's own rows aside) has no bar of its GPU with its
ratio, when a bar has no such row, when a GPU measured is not in the legend, or when a text runs
past the picture's edge (tests/tools/check_scorecard.py texts_outside). Standard library.
"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_scorecard import texts_outside  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"


def main():
    svg, bench_dir, nn = sys.argv[1:4]
    root = ET.parse(svg).getroot()
    bars = {(e.get("data-device"), e.get("data-variant"), e.get("data-size")): float(e.get("data-ratio"))
            for e in root.iter(NS + "rect") if e.get("class") == "bar"}
    legend = {e.text for e in root.iter(NS + "text") if e.get("class") == "legend"}
    want, problems = {}, []
    for path in sorted(glob.glob(os.path.join(bench_dir, "*.json"))):
        if path.endswith(".grading.json"):
            continue
        data = json.load(open(path, encoding="utf-8"))
        for run in data.get("labs", []) if isinstance(data, dict) else []:
            if not str(run.get("lab", "")).startswith(nn + "-"):
                continue
            name = (run.get("device") or {}).get("name") or data.get("device")
            if name not in legend:
                problems.append(f"{name} ({os.path.basename(path)}) is not in the chart's legend")
            for r in run.get("results", []):
                if r.get("status") != "REF" and r.get("ratio") is not None:
                    want.setdefault((name, r["variant"], str(r["size"])), float(r["ratio"]))
    for key, ratio in want.items():
        if key not in bars:
            problems.append(f"no bar for {key} (ratio {ratio:g})")
        elif abs(bars[key] - ratio) > 1e-5 * max(1.0, ratio):
            problems.append(f"{key}: bar {bars[key]:g}, the results say {ratio:g}")
    for key in sorted(set(bars) - set(want)):
        problems.append(f"a bar with no row in the results: {key}")
    problems += texts_outside(root)
    for p in problems:
        print(f"{svg}: {p}")
    if not problems:
        print(f"{svg}: {len(bars)} bars, each a row of the results")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
