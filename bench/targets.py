#!/usr/bin/env python3
"""The speed targets the labs declare now, and whether the reference solution meets them.

  targets.py snapshot ./sol01 ./sol02 ...     the targets of each program's --describe, as
                                              bench/targets.json ({"NN": [targets]}), on stdout
  targets.py check [--targets bench/targets.json] [--margin 0.01] [RESULTS.json ...]
      exit 1 when a committed results file (default: bench/results/*.json and *.d/*.json) holds
      a run of the reference solution whose measured ratios miss a target the lab declares now,
      or meet it by less than the margin (1 %: a target students see must be one the reference
      meets on every GPU measured, with room for run-to-run noise). A target no file measured
      is said, not failed.

The results files record the targets of the day they were measured, MET or MISSED; this check
judges their measured rows against bench/targets.json, which the suites (tests/suites/bench.sh,
lab_data.sh) keep equal to what the built programs declare (`./solNN --describe`) for every
variant it lists. A variant it does not list (a rung added since the last snapshot) needs no
entry: its rows are judged on the targets its results file recorded, its program's own.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from scorecard import judge_targets  # noqa: E402

DEFAULT_TARGETS = os.path.join(HERE, "targets.json")


def load_targets(path=DEFAULT_TARGETS):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def targets_of(description):
    """A lab's targets as bench/targets.json holds them, from its --describe JSON."""
    return [{"variant": t["variant"], "size": t["size"], "min_ratio": t["min_ratio"],
             "yardstick": t["against"]} for t in description["targets"]]


def stale(saved, nn, declared):
    """Whether bench/targets.json (`saved`) holds, for the variants it lists for lab `nn`, other
    targets than `declared` (targets_of its --describe). A variant it does not list, such as a
    rung added since the snapshot, needs no entry: it is judged on the targets its results
    recorded when measured (judged_targets)."""
    listed = saved.get(nn, [])
    variants = {t["variant"] for t in listed}
    return [t for t in declared if t["variant"] in variants] != listed


def judged_targets(saved, nn, run):
    """The targets a run of lab `nn` is judged on: bench/targets.json's, and for a variant it does
    not list, the targets the run itself recorded (its program's --describe on the day)."""
    listed = saved.get(nn, [])
    variants = {t["variant"] for t in listed}
    return listed + [t for t in run.get("targets", []) if t["variant"] not in variants]


def snapshot(programs):
    out = {}
    for prog in programs:
        desc = json.loads(subprocess.run([prog, "--describe"], capture_output=True, text=True,
                                         check=True).stdout)
        out[desc["lab"]] = targets_of(desc)
    return out


def runs_of(path):
    """[(label, run)] of a results file: a lab's --json run, or make bench's file of several."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, dict) and "labs" in data:
        return [(f"{path} ({r.get('lab')})", r) for r in data["labs"]]
    if isinstance(data, dict) and "results" in data:
        return [(path, data)]
    return []


def check(targets, files, margin):
    problems, unmeasured = [], set()
    measured = set()
    for path in files:
        for label, run in runs_of(path):
            if not str(run.get("program", "")).startswith("sol"):
                continue  # a starter's run: not the reference
            nn = str(run.get("lab", ""))[:2]
            for t in judge_targets(run, judged_targets(targets, nn, run)):
                key = (nn, t["variant"], t["size"], t["yardstick"])
                if t["ratio"] is None:
                    unmeasured.add(key)
                    continue
                measured.add(key)
                if t["ratio"] < t["min_ratio"] * (1 + margin):
                    device = (run.get("device") or {}).get("name", "?")
                    problems.append(f"{label}: lab {nn} {t['variant']} at {t['size']} >= {t['min_ratio']:.2f} "
                                    f"x {t['yardstick']}: the reference measured {t['ratio']:.3f} on {device}"
                                    + (" (missed)" if t["ratio"] < t["min_ratio"] else
                                       f" (met by less than {margin:.0%})"))
    never = sorted(unmeasured - measured)
    return problems, never


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snapshot")
    s.add_argument("programs", nargs="+")
    c = sub.add_parser("check")
    c.add_argument("--targets", default=DEFAULT_TARGETS)
    c.add_argument("--margin", type=float, default=0.01)
    c.add_argument("files", nargs="*")
    args = ap.parse_args()
    if args.cmd == "snapshot":
        json.dump(snapshot(args.programs), sys.stdout, indent=1)
        print()
        return 0
    files = args.files or sorted(p for p in glob.glob(os.path.join(HERE, "results", "*.json")) +
                                 glob.glob(os.path.join(HERE, "results", "*.d", "*.json"))
                                 if not p.endswith(".grading.json"))
    problems, never = check(load_targets(args.targets), files, args.margin)
    for key in never:
        print(f"note: lab {key[0]} {key[1]} at {key[2]} vs {key[3]}: measured in no results file")
    for p in problems:
        print(p)
    print(f"{len(files)} results files: " + (f"{len(problems)} target(s) the reference misses" if problems
                                             else "the reference meets every target it was measured on"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
