#!/usr/bin/env python3
"""The grading-rubric table of a handout's instructor edition, written from the grader's own
rubric, grading/rubrics/NN.rubric: the points a handout shows are the points the grader gives.

  rubric.py --rubrics grading/rubrics --out build/handouts/gen 01 13
      writes rubric-NN.md (a Markdown fragment the Lua filter puts where `::: rubric :::` is)
      and handin-NN.md (both editions: the file to hand in and how it is graded, from the same
      rubric, which the filter puts before the handout's "Measured results")

The format is the grader's (grading/DESIGN.md, "Rubrics"): global `key = value` lines, then
`[test ID]` sections. Keys this table does not show are ignored; a test without points or kind,
or a file without tests, stops with a message naming the file and line.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from grade_preview import expand_rungs, rungs_of  # noqa: E402

KINDS = ("correctness", "sanitizer", "performance", "questions")


def parse(path, globals_out=None):
    """[(id, {key: value}), ...] in file order, each value with its line number; the global
    `key = value` lines before the first test into globals_out."""
    tests, current = [], None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"\[test\s+([A-Za-z0-9_]+)(\s+for\s+each\s+rung)?\]", line)
            if m:
                current = {"__line__": number, **({"for_each_rung": True} if m.group(2) else {})}
                tests.append((m.group(1), current))
            elif "=" in line and current is not None:
                key, value = (s.strip() for s in line.split("=", 1))
                current[key] = value
            elif "=" in line and globals_out is not None:
                key, value = (s.strip() for s in line.split("=", 1))
                globals_out[key] = value
            elif "=" not in line:
                sys.exit(f"{path}:{number}: not 'key = value' or '[test ID]': {line}")
    if not tests:
        sys.exit(f"{path}: no [test ...] section")
    if any(t.get("for_each_rung") or "RUNGS" in t.get("variants", "") + t.get("requires", "") for _, t in tests):
        tests = expand_rungs(tests, declared_rungs(path))
    for test_id, t in tests:
        where = f"{path}:{t['__line__']}: test '{test_id}'"
        if t.get("kind", "correctness") not in KINDS:
            sys.exit(f"{where}: kind must be one of {', '.join(KINDS)}")
        try:
            t["points"] = float(t["points"])
        except (KeyError, ValueError):
            sys.exit(f"{where}: needs points = NUMBER")
    return tests


def declared_rungs(path):
    """The rungs the lab of a rubric that speaks of them (RUNG, RUNGS) declares: ./solNN --describe."""
    nn = os.path.basename(path)[:2]
    program = f"./sol{nn}"
    p = subprocess.run([program, "--describe"], capture_output=True, text=True) if os.access(program, os.X_OK) else None
    if p is None or p.returncode != 0:
        sys.exit(f"{path}: its tests of the lab's rungs (RUNG, RUNGS) expand from {program} --describe: "
                 f"build it first (make sol{nn})")
    return rungs_of(json.loads(p.stdout))


def number(x):
    return f"{x:g}"


def code_list(words):
    return ", ".join(f"`{w}`" for w in words)


def percent(fraction):
    return f"{float(fraction) * 100:g} %"


def questions_text(t, with_key):
    """A questions test's row: what is checked, and with `with_key` (the instructor's table) the key."""
    keys = [(k, v) for k, v in t.items() if re.fullmatch(r"q[1-9][0-9]?", k)]
    text = (f"each of the {len(keys)} answers of `answers.txt` is right (points shared equally)")
    within = [v.split()[-1] for _, v in keys if v.startswith("predict")]
    if within:
        text += f"; a prediction counts within {within[0]}× of the student's own measured ratio"
    if with_key:
        text += "; key: " + ", ".join(f"{k} {v}" for k, v in keys)
    return text


def full_marks_when(t, names, correctness_ids, with_key=True):
    kind = t.get("kind", "correctness")
    variants = t.get("variants", t.get("variant", "")).split()
    needs = [names.get(r, r) for r in t.get("requires", "").split()]
    if kind == "correctness":
        fixed = len(t.get("sizes", "").split())
        drawn = int(t.get("random_sizes", "0").split()[0]) if t.get("random_sizes") else 0
        trials = int(t.get("trials", "1"))
        sizes = f"{fixed} hidden sizes" + (f" and {drawn} drawn from each trial's seed" if drawn else "")
        text = (f"{code_list(variants)} {'passes' if len(variants) == 1 else 'pass'} at {sizes}, "
                f"in {trials} trial{'s' if trials != 1 else ''} with fresh seeds")
        transfers = t.get("host_transfers", "allowed")
        if transfers == "none":
            text += ", with no copy through the host"
        elif transfers == "to_device":
            text += ", with no copy back to the host"
        text += ("; all or nothing" if t.get("scoring") == "all_or_nothing"
                 else "; points in proportion to the rows that pass")
    elif kind == "questions":
        text = questions_text(t, with_key)
    elif kind == "sanitizer":
        options = f" (`{t['tool_options']}`)" if t.get("tool_options") else ""
        text = (f"compute-sanitizer `{t.get('tool', 'memcheck')}`{options} finds no error in "
                f"{code_list(variants)} at small sizes, and the outputs of that run are right")
    else:
        curve = [p.split(":") for p in t.get("curve", "").split()]
        text = f"{code_list(variants)} at {t.get('size', '?')}: its kernels' time"
        if curve:
            full = [x for x, y in curve if float(y) >= 1]
            text += f" within {full[-1] if full else curve[0][0]}× of the reference's, timed in the same run"
            rest = [f"{percent(y)} at {x}×" for x, y in curve if float(y) < 1]
            if rest:
                text += f" ({', '.join(rest)}, in between on a straight line)"
    if needs and set(t["requires"].split()) == correctness_ids and len(needs) > 1:
        text += "; counted once every correctness test has full marks"
    elif needs:
        text += f"; counted once {', '.join(needs)} {'has' if len(needs) == 1 else 'have'} full marks"
    if t.get("visibility", "visible") != "visible":
        text += f"; shown to students {t['visibility'].replace('_', ' ')}"
    return text


def fragment(nn, path):
    tests = parse(path)
    names = {test_id: t.get("name", test_id) for test_id, t in tests}
    correctness_ids = {test_id for test_id, t in tests if t.get("kind", "correctness") == "correctness"}
    total = sum(t["points"] for _, t in tests)
    lines = [f"## Grading rubric ({number(total)} points)", "",
             f"The grader's rubric, `grading/rubrics/{nn}.rubric` (see `grading/README.md`); "
             "every run is judged by the reference solution, outside the student's process.", "",
             "| test | points | full marks when |", "|---|--:|---|"]
    for test_id, t in tests:
        name = t.get("name", test_id).replace("|", "\\|")
        lines.append(f"| {name} | {number(t['points'])} | {full_marks_when(t, names, correctness_ids).replace('|', chr(92) + '|')} |")
    lines.append(f"| **total** | **{number(total)}** | |")
    return "\n".join(lines) + "\n"


def student_file(nn, labs_dir="labs"):
    """labs/NN-topic/TOPIC.cu: the one .cu besides driver.cu (as the Makefile finds it)."""
    folders = sorted(d for d in os.listdir(labs_dir) if d.startswith(nn + "-"))
    if not folders:
        sys.exit(f"rubric.py: lab {nn} has no folder {labs_dir}/{nn}-*/")
    files = sorted(f for f in os.listdir(os.path.join(labs_dir, folders[0]))
                   if f.endswith(".cu") and f != "driver.cu")
    if len(files) != 1:
        sys.exit(f"rubric.py: {labs_dir}/{folders[0]} must hold one .cu besides driver.cu")
    return f"{labs_dir}/{folders[0]}/{files[0]}"


def handin_fragment(nn, path, labs_dir="labs"):
    """What a student hands in and how it is graded: the student handout's section."""
    settings = {}
    tests = parse(path, settings)
    names = {test_id: t.get("name", test_id) for test_id, t in tests}
    correctness_ids = {test_id for test_id, t in tests if t.get("kind", "correctness") == "correctness"}
    total = sum(t["points"] for _, t in tests)
    mine = student_file(nn, labs_dir)
    name = os.path.basename(mine)
    forbidden = settings.get("forbid_symbols", "").split()
    folder = os.path.dirname(mine)
    if any(t.get("kind") == "questions" for _, t in tests):
        handin = [f"**Hand in two files**, both from your `{folder}/`:", "",
                  f"- `{name}`, the one you completed;",
                  "- `answers.txt`, your answers to the questions under \"Answers to hand in\".", "",
                  "In the notebook, the `%%writefile` cell writes the first into the lab's folder under "
                  "`cudalabs/`: download both from the file browser. Nothing else is read: the "]
    else:
        handin = [f"**Hand in one file: `{name}`**, the one you completed in `{folder}/` (in the notebook, "
                  f"the `%%writefile` cell writes it into `cudalabs/{folder}/`: download it from the file "
                  "browser). Nothing else is read: the "]
    lines = ["# What to hand in, and how it is graded", ""] + handin[:-1] + [
             handin[-1] + "grader builds your file with the course's own driver, interface and harness, so a change "
             "to any other file is lost, and every function the interface declares must be in it.", "",
             f"The grader runs it on a GPU at sizes and with seeds it does not show you, and judges every "
             f"output with the reference solution, outside your program. `./lab{nn}` shows how your file "
             f"does at the sizes you see, and `make check LAB={nn}` what the visible tests would give there: a preview, not the grade. The tests, "
             f"{number(total)} points in all:", "",
             "| test | points | full marks when |", "|---|--:|---|"]
    for test_id, t in tests:
        label = t.get("name", test_id).replace("|", "\\|")
        lines.append(f"| {label} | {number(t['points'])} | "
                     f"{full_marks_when(t, names, correctness_ids, False).replace('|', chr(92) + '|')} |")
    lines.append(f"| **total** | **{number(total)}** | |")
    lines.append("")
    rules = ["the file must build without errors with the course's `nvcc` flags"]
    if forbidden:
        rules.append("it may not call a library that does the work (" + code_list(forbidden) + ")")
    rules.append("it may not open files, start processes or threads, or read the environment "
                 "(the grader refuses a file that calls them, naming the call)")
    rules.append("its code runs only inside the lab's functions: no global object with a constructor "
                 "or destructor (make it a `static` inside the function that uses it), no `exit`, and "
                 "printing through `printf` or `std::cout` and `std::cerr`, not `stderr`")
    rules.append("every call must compute from the inputs it is given: the grader changes the input "
                 "values between repeated calls, and a result that does not follow them (kept from an "
                 "earlier call, or made ahead of time) scores 0 on its whole test, as does a right result "
                 "made by other means than the test allows (a library's kernels, a copy the test "
                 "forbids, no kernel of your file)")
    lines.append("Also: " + "; ".join(rules) + ". A test that finds a problem says which in your "
                 "feedback.")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rubrics", default="grading/rubrics")
    ap.add_argument("--out", required=True)
    ap.add_argument("labs", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for nn in args.labs:
        if not re.fullmatch(r"\d\d", nn):
            sys.exit(f"rubric.py: lab numbers are two digits, got {nn!r}")
        path = os.path.join(args.rubrics, f"{nn}.rubric")
        if not os.path.isfile(path):
            sys.exit(f"rubric.py: lab {nn} has no rubric {path}")
        with open(os.path.join(args.out, f"rubric-{nn}.md"), "w", encoding="utf-8") as f:
            f.write(fragment(nn, path))
        with open(os.path.join(args.out, f"handin-{nn}.md"), "w", encoding="utf-8") as f:
            f.write(handin_fragment(nn, path))


if __name__ == "__main__":
    main()
