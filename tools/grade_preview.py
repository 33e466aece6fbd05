#!/usr/bin/env python3
"""A preview of a lab's grade: the rubric's visible correctness tests at the sizes ./labNN shows, and the grader's own audit.

  make check LAB=01                        builds ./lab01, then runs this
  grade_preview.py --lab 01                runs ./lab01 once per visible correctness test
  grade_preview.py --lab 01 --json-from D  reads D/TEST_ID.json (./lab01 --json output) instead

Reads grading/rubrics/NN.rubric (format: grading/DESIGN.md, "Rubrics") for each test's kind,
points, visibility, variants and scoring, and nothing else: the rubric's hidden sizes are never
read. Its tests of the lab's rungs (RUNG, RUNGS) expand from ./labNN --describe, as the grader's. Each visible correctness test runs ./labNN --variant V[,W...] --size CHECK_SIZES --json
FILE --reps 1 --guard-buffers, CHECK_SIZES being the lab's own (./labNN --describe). Its score
is points x the fraction of rows that pass (per_row), or all or nothing (all_or_nothing).
Sanitizer and performance tests are not previewed: the grader runs them.

Then the grader itself judges the file (--file; default the one PROGRAM was built from), where
this copy has it (grading/grade; the student edition does not): with the same code and rubric
as a grading run, `grading/grade --lab NN --isolation unsafe` builds and audits it (forbidden
libraries and calls, imports, line directives) and, where the tests ran on a GPU, runs its
correctness tests at the check sizes only, one seed, so that its run-time rules count too (no
copy between host and device where a test forbids them, the file's own kernels ran, the trusted
verifier); without runs (--json-from), or where the grader cannot run them, it builds and
audits only (--compile-only), and says that its rules at run time were not checked. A file it
refuses previews 0 on every visible test, with its reason; a test it scores lower previews its
score. Where this copy has no grader (the student edition, a lab's notebook), its audit alone
judges the file (grading/audit: grading/src/audit_only.cpp, built from the grader's own build and
audit code, with the rubric's settings that tools/preview/NN.tests carries): the same build and
audit, without the grader's runs and link; a file it refuses previews 0 the same way. Where
neither is there, or it fails, one sentence says that the audit was not run, and the banner says
so; --no-audit skips it (said the same way).
Prints a table, what the previewed tests would give, and the file to hand in.

Without a GPU (the program exits 77), what needs none is still checked: the file is built and
audited (as above, compile-only), the rules checked are named, one sentence on stderr says that
the tests need a GPU, and the file to hand in is printed: exit 77, or 1 where the audit refuses
the file (a refusal that no GPU would change).

Exit codes: 0 every previewed point earned, 1 points lost, a correctness test not run or the
file refused by the grader (with or without a GPU), 2 bad command line or rubric, 77 no usable
CUDA GPU and the file not refused (no test previewed; the file to hand in is still printed).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import answers_preview

BANNER = ("PREVIEW — the grader also uses sizes and seeds it does not show, and runs the tests of "
          "memory safety and speed: this is not your grade.")
SKIPPED = " The grader's audit was skipped: what your file may call was not checked."


RUNG, RUNGS = "RUNG", "RUNGS"


def rungs_of(description):
    """The student's variants of a lab's --describe JSON in the order declared: its ladder."""
    return [v["name"] for v in description.get("variants", []) if not v.get("yardstick")]


def expand_rungs(tests, rungs):
    """The tests with the lab's rungs in place of RUNGS and RUNG, as the grader expands them
    (grading/DESIGN.md, "Rubrics"): a word with RUNGS in variants or requires is one word per
    rung; a test for each rung is one test per rung that no correctness test of its own grades,
    RUNG in its id and values replaced by the rung's name."""
    def one_per_rung(value):
        if RUNGS not in value:
            return value
        return " ".join(w2 for w in value.replace(",", " ").split()
                        for w2 in ([w.replace(RUNGS, r) for r in rungs] if RUNGS in w else [w]))
    for _, t in tests:
        for key in ("variants", "variant", "requires"):
            if key in t:
                t[key] = one_per_rung(t[key])
    graded = {v for _, t in tests if not t.get("for_each_rung") and t.get("kind", "correctness") == "correctness"
              for v in (t.get("variants") or t.get("variant", "")).replace(",", " ").split()}
    out = []
    for test_id, t in tests:
        if not t.get("for_each_rung"):
            out.append((test_id, t))
            continue
        out += [(test_id.replace(RUNG, r), {k: v.replace(RUNG, r) if isinstance(v, str) else v for k, v in t.items() if k != "for_each_rung"})
                for r in rungs if r not in graded]
    return out


def parse_rubric(path, rungs=None):
    """[(id, {key: value})] in file order: only the keys the preview needs are kept. `rungs` (the
    lab's, rungs_of its --describe) are what RUNG and RUNGS expand to; None leaves the rubric as
    written, a test for each rung marked for_each_rung (tools/release/release.py copies it so)."""
    keep = ("name", "kind", "points", "visibility", "variants", "variant", "scoring")
    tests = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            m = re.fullmatch(r"\[test\s+([A-Za-z0-9_]+)(\s+for\s+each\s+rung)?\]", line)
            if m:
                if m.group(2) and RUNG not in m.group(1):
                    raise SystemExit(f"{path}:{number}: the id of a test for each rung must hold RUNG (correct_RUNG)")
                tests.append((m.group(1), {"for_each_rung": True} if m.group(2) else {}))
            elif "=" in line and tests:
                key, value = (s.strip() for s in line.split("=", 1))
                if key in keep:
                    tests[-1][1][key] = value
            elif line and "=" not in line:
                raise SystemExit(f"{path}:{number}: not 'key = value' or '[test ID]': {line}")
    if rungs is not None:
        tests = expand_rungs(tests, rungs)
    for test_id, t in tests:
        try:
            t["points"] = float(t.get("points", ""))
        except ValueError:
            raise SystemExit(f"{path}: test '{test_id}' needs points = NUMBER")
        t["kind"] = t.get("kind", "correctness")
        t["visibility"] = t.get("visibility", "visible")
        t["variants"] = (t.get("variants") or t.get("variant", "")).split()
    return tests


def student_file(nn, tree="labs"):
    """labs/NN-topic/TOPIC.cu: the one .cu besides driver.cu (of solutions/ with tree="solutions")."""
    folders = sorted(d for d in os.listdir("labs") if d.startswith(nn + "-"))
    if not folders:
        raise SystemExit(f"grade_preview: no lab {nn} (no folder labs/{nn}-*/)")
    folder = os.path.join(tree, folders[0])
    if not os.path.isdir(folder):
        return f"the .cu file of {folder}/ (not in this copy)"
    files = sorted(f for f in os.listdir(folder) if f.endswith(".cu") and f != "driver.cu")
    return os.path.join(folder, files[0]) if len(files) == 1 else f"the .cu file of {folder}/ besides driver.cu"


def points(x):
    return f"{round(x, 1):g}"


GRADER = "grading/grade"
AUDITOR = "grading/audit"


class GraderVerdict:
    """What the grader said of the file: its refusal (rejected), the scores of the tests it ran
    (only with runs) and their outputs by test name, or why it did not run them (no_runs); or, in
    skipped, why it said nothing."""
    def __init__(self, skipped="", rejected="", scores=None, outputs=None, runs=False, no_runs=""):
        self.skipped, self.rejected, self.runs, self.no_runs = skipped, rejected, runs, no_runs
        self.scores, self.outputs = scores or {}, outputs or {}


def rubric_key(raw):
    """The key of a rubric line ('sizes' of 'sizes = 1 2  # hidden'), or ''."""
    line = raw.split("#", 1)[0]
    return line.split("=", 1)[0].strip() if "=" in line else ""


def grader_rubric(path, sizes):
    """The rubric's text for the grader's runs of a preview: its correctness tests only (hidden
    ones too: the grader wants every variant graded), at the lab's check sizes, one trial and no
    drawn sizes; everything else (forbidden symbols, imports, each test's transfer rule) as written."""
    head, sections = [], []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            if raw.split("#", 1)[0].strip().startswith("[test"):
                sections.append([raw])
            elif sections:
                sections[-1].append(raw)
            else:
                head.append(raw)
    out = head
    for header, *lines in sections:
        kind = next((r.split("#", 1)[0].split("=", 1)[1].strip() for r in lines if rubric_key(r) == "kind"), "correctness")
        if kind != "correctness":
            continue
        out += [header, f"sizes = {' '.join(sizes)}\n", "trials = 1\n"]
        out += [r for r in lines if rubric_key(r) not in ("sizes", "size", "random_sizes", "trials")]
    return "".join(out)


def first_line(text, limit=240):
    return " ".join(next((l for l in text.splitlines() if l.strip()), "").split())[:limit]


def grader_verdict(args, sizes, with_runs, tmp, no_runs="the tests did not run on a GPU here", progress=None):
    """The grader's verdict on args.file: `grading/grade --lab NN --isolation unsafe` with the
    rubric, built and audited only (--compile-only; `no_runs` says why), or with runs of its
    correctness tests at the check sizes (grader_rubric). Where those runs fail (no GPU the
    grader can use, no kernel trace...), it builds and audits only, and says why. What it is
    doing is said on `progress` (stderr unless given)."""
    progress = progress or sys.stderr
    if not os.path.isfile(args.file):
        return GraderVerdict(skipped=f"there is no file {args.file}")
    if not os.path.isfile(args.grader):
        if os.path.isfile(args.auditor):
            return audit_verdict(args, progress)
        return GraderVerdict(skipped=f"this copy of the course has neither the grader ({args.grader}) nor its audit ({args.auditor})")
    out = os.path.join(tmp, "grader-runs" if with_runs else "grader-build")
    cmd = [args.grader, "--lab", args.lab, "--isolation", "unsafe", "--seed", "1", "--out", out]
    if with_runs:
        rubric = os.path.join(tmp, "preview.rubric")
        with open(rubric, "w", encoding="utf-8") as f:
            f.write(grader_rubric(args.rubric, sizes))
        cmd += ["--rubric", rubric]
    else:
        cmd += ["--rubric", args.rubric, "--compile-only"]
    print(f"grade_preview: the grader {'builds, audits and runs' if with_runs else 'builds and audits'} "
          f"{args.file} (the first time it builds the course's trusted programs: minutes)...", file=progress, flush=True)
    p = subprocess.run(cmd + [args.file], capture_output=True, text=True)
    said = first_line((p.stderr.strip().splitlines() or [""])[-1])
    failed = f"exit {p.returncode}" + (f": {said.rstrip('.')}" if said else "")
    if with_runs and p.returncode != 0:
        return grader_verdict(args, sizes, False, tmp, f"the grader could not run them ({failed})")
    if p.returncode != 0:
        return GraderVerdict(skipped=f"the grader failed ({failed})")
    lines = []
    if os.path.isfile(os.path.join(out, "audit.jsonl")):
        with open(os.path.join(out, "audit.jsonl"), encoding="utf-8") as f:
            lines = [j for j in map(json.loads, filter(str.strip, f)) if j.get("event") == "submission"]
    if len(lines) != 1:
        return GraderVerdict(skipped=f"the grader wrote {len(lines)} results for one file in {out}/audit.jsonl")
    line = lines[0]
    if line.get("grader_error"):  # the environment's failure, never the file's: nothing to cap with
        failed = first_line(line["grader_error"])
        if with_runs:
            return grader_verdict(args, sizes, False, tmp, f"the grader could not run them ({failed})")
        return GraderVerdict(skipped=f"the grader failed ({failed})")
    outputs = {}
    for name in os.listdir(os.path.join(out, "results")) if os.path.isdir(os.path.join(out, "results")) else []:
        with open(os.path.join(out, "results", name), encoding="utf-8") as f:
            outputs.update({t.get("name"): t.get("output", "") for t in json.load(f).get("tests", [])})
    return GraderVerdict(rejected=line.get("rejected", ""), scores=line.get("scores", {}), outputs=outputs,
                         runs=with_runs, no_runs="" if with_runs else no_runs)


def audit_verdict(args, progress=None):
    """The verdict of the grader's audit alone (grading/audit, where this copy has no grader): the
    file built and audited as a grading run builds and audits it, with the rubric's settings."""
    print(f"grade_preview: the grader's audit builds and audits {args.file} (the first time it builds "
          "the audit itself: a minute)...", file=progress or sys.stderr, flush=True)
    p = subprocess.run([args.auditor, "--lab", args.lab, "--rubric", args.rubric, args.file], capture_output=True, text=True)
    said = first_line((p.stderr.strip().splitlines() or [""])[-1])
    try:
        verdict = json.loads(p.stdout) if p.returncode == 0 else None
    except ValueError:
        verdict = None
    if not isinstance(verdict, dict) or "passed" not in verdict:
        return GraderVerdict(skipped=f"the grader's audit failed (exit {p.returncode}" + (f": {said.rstrip('.')})" if said else ")"))
    rejected = "" if verdict["passed"] else (verdict.get("rejected") or "refused, without a reason")
    return GraderVerdict(rejected=rejected, no_runs="this copy of the course has the grader's audit, not its runs")


def grader_summary(verdict):
    """The sentence that says what the grader's verdict did to the preview."""
    if verdict.skipped:
        return f"The grader's audit was not run: {verdict.skipped}."
    if verdict.rejected:
        return ("The grader refuses your file, so each of its tests gives 0: "
                + " ".join(verdict.rejected.split())[:1200])
    if verdict.runs:
        return ("The grader's audit passed (forbidden libraries and calls, imports, line directives), and its "
                "own runs at these sizes count above (copies between host and device, your kernels ran).")
    return ("The grader's audit passed (forbidden libraries and calls, imports, line directives); its rules "
            "at run time (no copies between host and device where a test forbids them, your own kernels "
            f"ran) were not checked: {verdict.no_runs}.")


def forbidden_symbols(rubric):
    """The rubric's forbid_symbols (the libraries and calls a file may not use), as written."""
    with open(rubric, encoding="utf-8") as f:
        for raw in f:
            if rubric_key(raw) == "forbid_symbols":
                return raw.split("#", 1)[0].split("=", 1)[1].split()
    return []


def preview_without_gpu(args, sizes, tmp, hand_in, why):
    """Without a GPU: what needs none is still checked (the file's build with the lab's driver
    and the grader's audit, compile-only); the tests are not run, which one sentence says.
    Exit 1 when the audit refuses the file (that holds on any GPU), else 77. stderr has one
    sentence, the one about the GPU; what is being built is said on stdout."""
    verdict = (GraderVerdict(skipped="--no-audit") if args.no_audit
               else grader_verdict(args, sizes, False, tmp, "there is no GPU here", progress=sys.stdout))
    rules = ", ".join(forbidden_symbols(args.rubric)) or "none named by the rubric"
    shown = os.path.relpath(args.file) if not os.path.relpath(args.file).startswith("..") else args.file
    print(f"Checked without a GPU, lab {args.lab}: {shown}")
    if verdict.skipped:
        print(f"Not checked: the build and the grader's audit: {verdict.skipped}.")
    elif verdict.rejected:
        print("The build and the grader's audit refuse your file, so each of its tests gives 0: "
              + " ".join(verdict.rejected.split())[:1200])
    else:
        print("Passed: the build with the lab's driver and the grader's audit (forbidden libraries "
              f"and calls: {rules}; imports against the allow-list; line directives).")
    print_answers(args)
    print(hand_in)
    print(f"grade_preview: the tests need a GPU, and there is no usable CUDA GPU here "
          f"({why.rstrip('.')}), so they were not run.", file=sys.stderr)
    return 1 if verdict.rejected else 77


def print_answers(args):
    """The answers file's preview (tools/answers_preview.py), where the rubric asks questions:
    which are answered and well-formed, never whether they are right."""
    path = args.answers or os.path.join(os.path.dirname(args.file), answers_preview.ANSWERS_FILE)
    shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
    lines, _ = answers_preview.preview_lines(args.rubric, shown)
    if lines:
        print("\n".join(lines))


class NoGpu(Exception):
    """The program found no usable CUDA GPU (exit 77): nothing can be previewed."""


def run_test(args, test_id, variants, sizes, tmp):
    """(results or None, why not): the rows of one run, from the program or --json-from."""
    if args.json_from:
        path = os.path.join(args.json_from, test_id + ".json")
        if not os.path.isfile(path):
            return None, f"no results: {path} is missing"
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("results", []), ""
    path = os.path.join(tmp, test_id + ".json")
    cmd = [args.program, "--variant", ",".join(variants), "--size", ",".join(sizes),
           "--json", path, "--reps", "1", "--guard-buffers"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, f"{args.program} did not finish in {args.timeout} s"
    if p.returncode == 77:
        raise NoGpu(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit 77")
    if p.returncode == 2:
        return None, "refused: " + (p.stderr.strip().splitlines() or ["exit 2"])[-1]
    if p.returncode not in (0, 1) or not os.path.isfile(path):
        end = f"exit {p.returncode}" if p.returncode >= 0 else f"signal {-p.returncode}"
        return [], f"{args.program} ended ({end}) before writing its results"
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("results", []), ""


class Row:
    """One visible test's line of the preview: its score (None: not previewed, `missing` says
    why), the detail in brackets, and whether points were lost."""
    def __init__(self, test_id, test, score, missing="", detail="", lost=False):
        self.id, self.name, self.kind, self.points = test_id, test.get("name", test_id), test["kind"], test["points"]
        self.score, self.missing, self.detail, self.lost = score, missing, detail, lost

    def judge(self, verdict):
        """The grader's verdict on the file, applied: a refusal is 0 on every test; a correctness
        test its runs scored lower takes that score, with the grader's reason."""
        if verdict.rejected:
            self.score, self.missing, self.lost = 0.0, "", True
            self.detail = "the grader refuses your file: below"
        elif verdict.runs and self.kind == "correctness" and self.score is not None \
                and verdict.scores.get(self.id, self.score) < self.score - 1e-9:
            self.score, self.lost = float(verdict.scores[self.id]), True
            why = first_line(verdict.outputs.get(self.name, "")) or "no reason given"
            self.detail += f"; the grader's own run at these sizes gives {points(self.score)}: {why}"


def score_rows(test_id, t, results, why, sizes):
    """A correctness test's Row from the rows of its run (None: not run, `why` says why)."""
    if results is None:
        return Row(test_id, t, None, "not previewed", why, lost=True)
    status = {(r.get("variant"), r.get("size")): r for r in results}
    wanted = [(v, s) for v in t["variants"] for s in sizes]
    failed = [(v, s) for v, s in wanted if status.get((v, s), {}).get("status") != "PASS"]
    n_pass = len(wanted) - len(failed)
    if t.get("scoring") == "all_or_nothing":
        score = t["points"] if not failed else 0.0
    else:
        score = t["points"] * n_pass / len(wanted) if wanted else 0.0
    detail = f"{n_pass} of {len(wanted)} rows pass"
    if t.get("scoring") == "all_or_nothing":
        detail += ", all or nothing"
    if why:
        detail += "; " + why
    elif failed:
        v, s = failed[0]
        first = status.get((v, s)) or {}
        note = first.get("note") or first.get("status") or "no result"
        detail += f"; first failure: {v} at {s}: {' '.join(note.split())[:240]}"
    return Row(test_id, t, score, "", detail, lost=score < t["points"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="\n".join(__doc__.splitlines()[2:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", required=True, help="the lab, two digits (01)")
    ap.add_argument("--rubric", help="default: grading/rubrics/NN.rubric, else tools/preview/NN.tests (student edition)")
    ap.add_argument("--program", help="the lab's program (default: ./labNN)")
    ap.add_argument("--describe", help="the lab's --describe JSON in a file (default: run PROGRAM --describe)")
    ap.add_argument("--json-from", metavar="DIR",
                    help="read each test's results from DIR/TEST_ID.json instead of running PROGRAM "
                         "(and the lab's description from DIR/describe.json when there is one)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds one run may take (default 600)")
    ap.add_argument("--file", help="the file the grader judges (default: the one PROGRAM was built from, "
                                    "labs/NN-topic/TOPIC.cu, or solutions/'s for ./solNN)")
    ap.add_argument("--grader", default=GRADER, help=f"the grader (default {GRADER}, which the student edition lacks)")
    ap.add_argument("--auditor", default=AUDITOR,
                    help=f"the grader's audit alone, used where there is no grader (default {AUDITOR})")
    ap.add_argument("--answers", help="the answers file previewed (default: answers.txt beside --file)")
    ap.add_argument("--no-audit", action="store_true", help="do not have the grader judge the file (the preview says so)")
    args = ap.parse_args()
    nn = args.lab
    if not re.fullmatch(r"\d\d", nn):
        ap.error(f"--lab takes two digits, got {nn!r}")
    args.file = args.file and os.path.abspath(args.file)  # as given, before the move to the course's root
    args.answers = args.answers and os.path.abspath(args.answers)
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    # The course's rubric, or in the student edition the copy of its tests without sizes that
    # tools/release/release.py writes.
    if not args.rubric:
        args.rubric = f"grading/rubrics/{nn}.rubric"
        if not os.path.isfile(args.rubric) and os.path.isfile(f"tools/preview/{nn}.tests"):
            args.rubric = f"tools/preview/{nn}.tests"
    args.program = args.program or f"./lab{nn}"
    hand_in = f"Hand in: {student_file(nn)}"
    args.file = args.file or student_file(nn, "solutions" if os.path.basename(args.program).startswith("sol") else "labs")
    if not os.path.isfile(args.rubric):
        print(f"grade_preview: no rubric {args.rubric} in this copy: nothing to preview.", file=sys.stderr)
        print(hand_in)
        return 2
    # As written: whether any test is visible does not depend on the lab's rungs.
    tests = parse_rubric(args.rubric)
    if not any(t["visibility"] == "visible" for _, t in tests):
        print(f"The rubric of lab {nn} ({args.rubric}) has no visible test: nothing to preview.")
        print_answers(args)
        print(hand_in)
        return 0

    # The lab's own check sizes: the sizes ./labNN runs by default, never the rubric's.
    describe = args.describe
    if not describe and args.json_from and os.path.isfile(os.path.join(args.json_from, "describe.json")):
        describe = os.path.join(args.json_from, "describe.json")
    if describe:
        with open(describe, encoding="utf-8") as f:
            lab = json.load(f)
    else:
        if not os.path.isfile(args.program):
            print(f"grade_preview: no program {args.program}: build it first (make lab{nn}).", file=sys.stderr)
            print(hand_in)
            return 2
        p = subprocess.run([args.program, "--describe"], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"grade_preview: {args.program} --describe failed (exit {p.returncode}): {p.stderr.strip()}", file=sys.stderr)
            return 2
        lab = json.loads(p.stdout)
    sizes = lab["check_sizes"]
    # The tests of the lab's rungs, now that its declaration is known.
    tests = parse_rubric(args.rubric, rungs_of(lab))
    visible = [(i, t) for i, t in tests if t["visibility"] == "visible"]
    later = [t for _, t in tests if t["visibility"] != "visible"]

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for test_id, t in visible:
            if t["kind"] != "correctness":
                rows.append(Row(test_id, t, None, "not previewed (the grader runs it)"))
                continue
            try:
                results, why = run_test(args, test_id, t["variants"], sizes, tmp)
            except NoGpu as e:
                return preview_without_gpu(args, sizes, tmp, hand_in, str(e))
            rows.append(score_rows(test_id, t, results, why, sizes))
        verdict = (GraderVerdict(skipped="--no-audit") if args.no_audit
                   else grader_verdict(args, sizes, not args.json_from, tmp))
    for row in rows:
        row.judge(verdict)

    print(f"Grade preview of lab {nn}: the visible tests of {args.rubric} at the sizes "
          f"{args.program} shows ({', '.join(sizes)})")
    print()
    width = max(len("test"), *(len(r.name) for r in rows))
    print(f"{'test':<{width}}  points  preview")
    print(f"{'-' * width}  ------  -------")
    for r in rows:
        shown = points(r.score) if r.score is not None else r.missing
        print(f"{r.name:<{width}}  {points(r.points):>6}  {shown}" + (f"  ({r.detail})" if r.detail else ""))
    print()
    counted = [r for r in rows if r.score is not None]
    if counted:
        print(f"Previewed: {points(sum(r.score for r in counted))} of {points(sum(r.points for r in counted))} points.")
    elif any(t["kind"] == "correctness" for _, t in visible):
        print("Previewed: nothing: no visible correctness test could be run.")
    else:
        print("Previewed: nothing (no visible correctness test).")
    not_previewed = sum(r.points for r in rows if r.score is None)
    if not_previewed:
        print(f"Not previewed: {points(not_previewed)} points of visible tests.")
    if later:
        print(f"Not shown here: {points(sum(t['points'] for t in later))} points in {len(later)} "
              f"test{'s' if len(later) != 1 else ''} whose results you see after grading.")
    print(grader_summary(verdict))
    print(BANNER + (SKIPPED if verdict.skipped else ""))
    print_answers(args)
    print(hand_in)
    lost = verdict.rejected or any(r.lost for r in rows)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
