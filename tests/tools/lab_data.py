#!/usr/bin/env python3
"""What the rest of the tree says about each lab, checked against the lab's own declaration.

    python3 tests/tools/lab_data.py DESCRIBE.json...     (each the output of ./solNN --describe)

A lab's rungs are the variants its driver declares, yardsticks left out. For each lab:
  grading/rubrics/NN.rubric   read as the grader reads it, its tests of the rungs (RUNG, RUNGS)
                              expanded from the declaration: a correctness test grades every
                              rung, every sanitizer test runs every rung, and no test names a
                              variant the lab does not have;
  bench/targets.json          the targets of each variant it lists are the ones the lab declares
                              (bench/targets.py snapshot); a variant it does not list (a rung
                              added since) is judged on the targets its own results recorded;
  tools/profile_hints.py      where the lab's profile.sh profiles every rung (profiled_variants,
                              common/ncu.sh), the hints profile RUNGS (the declared rungs) and
                              speak of rungs the lab declares, or list the rungs, in order.
Each problem is one line that names the file to update; exit 1 when there is one.
"""
import glob
import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from targets import load_targets, stale, targets_of  # noqa: E402
from profile_hints import HINTS, RUNGS  # noqa: E402
# The preview's reader of a rubric: kind (correctness by default) and variants, as the grader reads them.
from grade_preview import parse_rubric, rungs_of  # noqa: E402


def rubric_problems(nn, rungs, declared):
    path = f"grading/rubrics/{nn}.rubric"
    if not os.path.isfile(os.path.join(ROOT, path)):
        return [f"{path}: missing (make new-lab writes one; every lab has a rubric)"]
    tests = dict(parse_rubric(os.path.join(ROOT, path), rungs))
    problems = []
    graded = {v for t in tests.values() if t["kind"] == "correctness" for v in t["variants"]}
    for rung in rungs:
        if rung not in graded:
            problems.append(f"{path}: no correctness test grades lab {nn}'s rung '{rung}': "
                            f"add a [test correct_{rung}]")
    for test_id, t in tests.items():
        unknown = [v for v in t["variants"] if v not in declared]
        if unknown:
            problems.append(f"{path}: test '{test_id}' names {' '.join(unknown)}, which lab {nn} does not declare")
        if t["kind"] == "sanitizer":
            missing = [r for r in rungs if r not in t["variants"]]
            if missing:
                problems.append(f"{path}: sanitizer test '{test_id}' does not run {' '.join(missing)}: "
                                "add it to its variants (and its correctness test to requires)")
    return problems


def targets_problems(nn, description, saved):
    if not stale(saved, nn, targets_of(description)):
        return []
    return [f"bench/targets.json: lab {nn}'s targets are not what ./sol{nn} --describe declares: "
            "python3 bench/targets.py snapshot ./sol[0-9][0-9] > bench/targets.json"]


def profile_problems(nn, rungs):
    scripts = glob.glob(os.path.join(ROOT, "labs", f"{nn}-*", "profile.sh"))
    if not scripts:
        return []
    with open(scripts[0], encoding="utf-8") as f:
        # profiled_variants, called itself or through table_recipe (common/ncu.sh): every rung
        text = f.read()
        if "profiled_variants" not in text and "table_recipe" not in text:
            return []  # profiles the variants its hints choose, not the whole ladder
    spec = HINTS.get(nn, {})
    if spec.get("variants") == RUNGS:
        unknown = [h["variant"] for h in spec["hints"] if h["variant"] not in rungs]
        if not unknown:
            return []
        return [f"tools/profile_hints.py: HINTS[\"{nn}\"] has hints of {' '.join(dict.fromkeys(unknown))}, which "
                f"lab {nn} does not declare as rungs ({' '.join(rungs)}): drop them or rename them"]
    hinted = spec.get("variants", [])
    if hinted == rungs:
        return []
    return [f"tools/profile_hints.py: HINTS[\"{nn}\"] profiles {' '.join(hinted) or 'nothing'}, but lab {nn}'s "
            f"rungs are {' '.join(rungs)} (its profile.sh runs every rung): make its variants RUNGS"]


def main(paths):
    saved = load_targets()
    problems = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            description = json.load(f)
        nn = description["lab"]
        declared = [v["name"] for v in description["variants"]]
        rungs = rungs_of(description)
        problems += rubric_problems(nn, rungs, declared)
        problems += targets_problems(nn, description, saved)
        problems += profile_problems(nn, rungs)
    for p in problems:
        print(p)
    print(f"{len(paths)} labs: " + (f"{len(problems)} disagreement(s) with the labs' --describe" if problems
                                    else "the rubrics, bench/targets.json and the profile hints agree with --describe"))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
