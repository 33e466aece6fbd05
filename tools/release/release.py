#!/usr/bin/env python3
"""What cudalabs hands out: the student edition of the course and Gradescope autograders.

  release.py student --handouts DIR --out DIR/cudalabs-student [--zip FILE.zip]
      the student edition: starters, drivers, interfaces, CPU references, common/, the
      Makefile, the tests that need no solution, the student handouts (PDF, HTML, notebooks)
      and a student README; then checks it for leaks (below) and zips it with its top folder
  release.py leaks PATH...
      exit 1 when a line unique to a solution file appears anywhere in PATH (a folder or a zip;
      PDFs through pdftotext, web pages without their tags, notebooks with the course files
      they carry unpacked), or when a path that only instructors get is there
  release.py gradescope --lab NN --out FILE.zip
      Gradescope's autograder zip for one lab: setup.sh and run_autograder at its root, the
      trusted tree the grader needs (that lab only, with what it includes from the folders
      labs/ shares, such as labs/products/), the lab baked into run_autograder
  release.py zip FOLDER FILE.zip [--top NAME]
      a zip that keeps executable bits, with FOLDER's contents under NAME/ (or at the root)

Run from the repository's root (make release / make gradescope do).
"""
import argparse
import base64
import fnmatch
import glob
import html
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- what the student edition holds ---------------------------------------------------------
STUDENT_FILES = ["Makefile", ".gitignore", "common/*", "labs/*/*", "tests/run_tests.sh", "tests/lib.sh",
                 "tests/unit/*.cpp", "tests/unit/product_fixture.h", "tools/install-deps.sh", "tools/deps/core.txt",
                 "tools/deps/student.txt", "tools/scorecard.py", "tools/grade_preview.py", "tools/answers_preview.py",
                 "tools/profile_hints.py"]
# The reference solution's measured runs (rows of times and ratios, no code), which the
# scorecard (make scorecard) sets beside a student's: bench/results/<device>.d/NN.json of the
# course tree, as reference/<device>.d/NN.json in the student edition.
REFERENCE_RUNS = "bench/results/*.d/[0-9][0-9].json"
# Never in the student edition (the leak check refuses a release that has them).
INSTRUCTOR_ONLY = ["solutions/*", "grading/*", "tests/grading/*", "tests/suites/*", "tests/labs/*",
                   "bench/*", "*instructor*", "*.rubric", "handouts/*.md", "handouts/*.mk",
                   "handouts/filters/*", "handouts/tools/*"]


# The grader's audit alone (grading/audit, grading/src/audit_only.cpp), which make check runs
# where there is no grader: its make fragment, the lists every lab's audit reads, its sources
# (make -f grading/audit.mk audit-sources) and the grader's headers they include. No reference,
# rubric, harness, runs or tests: the rubric's settings it reads go into tools/preview/NN.tests.
AUDIT_FILES = ["grading/audit", "grading/audit.mk", "grading/allowed-imports.txt", "grading/shimmed-imports.txt"]
# The rubric's settings that the audit reads (grading/src/compile/lab_build.cpp).
AUDIT_SETTINGS = ("lab", "forbid_symbols", "allow_imports", "compile_timeout", "file_limit_mb")


def audit_files(root="."):
    """AUDIT_FILES, the audit's sources and the files under grading/ that they include, in turn."""
    make = subprocess.run(["make", "-s", "--no-print-directory", "-C", root, "-f", "grading/audit.mk", "audit-sources"],
                          capture_output=True, text=True)
    if make.returncode != 0 or not make.stdout.split():
        sys.exit(f"release.py: make -f grading/audit.mk audit-sources failed: {make.stderr.strip()}")
    todo, seen = make.stdout.split(), set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        with open(os.path.join(root, path), encoding="utf-8") as f:
            names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.MULTILINE)
        for name in names:
            for folder in (os.path.dirname(path), "grading/src", "grading/protocol"):
                target = os.path.normpath(os.path.join(folder, name))
                if os.path.isfile(os.path.join(root, target)):
                    todo.append(target)
                    break
    return AUDIT_FILES + sorted(p for p in seen if p.startswith("grading/"))


def audit_settings(rubric):
    """The lines of the rubric's settings (before its first test) that the audit reads, as written."""
    import grade_preview
    lines = []
    with open(rubric, encoding="utf-8") as f:
        for raw in f:
            if raw.split("#", 1)[0].strip().startswith("["):
                break
            if grade_preview.rubric_key(raw) in AUDIT_SETTINGS:
                lines.append(" ".join(raw.split("#", 1)[0].split()))
    return lines


def unit_test_needs_grader(path):
    """Unit tests of the grading tool include its sources, which students do not get."""
    with open(path, encoding="utf-8") as f:
        return re.search(r'#include\s+"grading/', f.read()) is not None


def files_of(pattern):
    return sorted(p for p in glob.glob(pattern) if os.path.isfile(p) and not p.endswith("~"))


def student_files():
    return [path for pattern in STUDENT_FILES for path in files_of(pattern)
            if not (path.startswith("tests/unit/") and unit_test_needs_grader(path))] + audit_files()


def copy_into(files, dest):
    for path in files:
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(path, target)


def question_form(form):
    """A question's form in tools/preview/NN.tests (answers_preview.question_forms): its kind, and a
    choice's options; no answer."""
    kind, options = form
    return f"choice of {options}" if kind == "choice" else kind


def write_preview_tests(dest):
    """tools/preview/NN.tests for `make check` (tools/grade_preview.py): each rubric's tests in the
    rubric's own format, with only what the preview reads. Visible tests keep their name,
    variants and scoring; the others only their kind, points and visibility, and a questions
    test its questions' forms (`q1 = choice of ABCD`, `q2 = number`), never the key. No sizes. Before
    them, the rubric's settings that the grader's audit reads (AUDIT_SETTINGS: forbidden
    symbols, allowed imports, limits)."""
    sys.path.insert(0, os.path.join(HERE, ".."))
    import answers_preview
    import grade_preview
    os.makedirs(os.path.join(dest, "tools", "preview"), exist_ok=True)
    for rubric in files_of("grading/rubrics/[0-9][0-9].rubric"):
        nn = os.path.basename(rubric)[:2]
        lines = [f"# The tests of lab {nn} that make check previews (from the course's rubric; no sizes),",
                 "# and the settings that the grader's audit reads."] + audit_settings(rubric)
        # As written: a test for each rung stays one (the preview expands it from ./labNN --describe).
        for number, (test_id, t) in enumerate(grade_preview.parse_rubric(rubric), 1):
            visible = t["visibility"] == "visible"
            header = test_id if visible else f"later_{number}" + ("_" + grade_preview.RUNG if t.get("for_each_rung") else "")
            header += " for each rung" if t.get("for_each_rung") else ""
            lines += ["", f"[test {header}]", f"kind = {t['kind']}",
                      f"points = {t['points']:g}", f"visibility = {t['visibility']}"]
            if visible:
                lines += [f"name = {t.get('name', test_id)}", f"variants = {' '.join(t['variants'])}",
                          f"scoring = {t.get('scoring', 'per_row')}"]
            if t["kind"] == "questions":  # what a well-formed answer is: never the key
                lines += [f"{q} = {question_form(form)}" for q, form in answers_preview.question_forms(rubric)]
        with open(os.path.join(dest, "tools", "preview", f"{nn}.tests"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def build_student(args):
    dest = args.out
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    copy_into(student_files(), dest)
    for path in files_of(REFERENCE_RUNS):
        target = os.path.join(dest, "reference", os.path.relpath(path, "bench/results"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(path, target)
    write_preview_tests(dest)
    shutil.copy2(os.path.join(HERE, "student-README.md"), os.path.join(dest, "README.md"))
    # The README's Open in Colab table, from the course's base address (tools/colab.py).
    sys.path.insert(0, os.path.join(HERE, ".."))
    import colab
    colab.readme(os.path.join(dest, "README.md"), args.colab_base or "", False,
                 unset=["Open a lab's notebook, `handouts/NN-topic.ipynb`, in Colab with File → Upload notebook."])
    handouts = sorted(f for f in os.listdir(args.handouts) if f.endswith((".pdf", ".html", ".ipynb")))
    labs = sorted(d for d in os.listdir("labs") if re.match(r"\d\d-", d))
    missing = [f"{name}.{ext}" for name in labs for ext in ("pdf", "html", "ipynb")
               if f"{name}.{ext}" not in handouts]
    if missing:
        sys.exit(f"release.py: the student handouts lack {', '.join(missing)} (make handouts)")
    os.makedirs(os.path.join(dest, "handouts"))
    for f in handouts:
        shutil.copy2(os.path.join(args.handouts, f), os.path.join(dest, "handouts", f))
    found = leaks([dest])
    for line in found:
        print(f"release.py: {line}", file=sys.stderr)
    if found:
        sys.exit(f"release.py: the student edition in {dest} gives answers away (above): not zipped")
    if args.zip:
        make_zip(dest, args.zip, os.path.basename(dest.rstrip("/")))
        print(f"Student edition: {dest}/ and {args.zip}")


# ---- the leak check -------------------------------------------------------------------------
def normalize(line):
    return " ".join(line.split())


def significant(line):
    """Blank lines, lines of braces and punctuation, and lines of a single word (such as the end
    `stream);` of a wrapped call, which a handout's PDF may also break off a given line) say
    nothing about a solution."""
    return len(re.findall(r"[A-Za-z0-9_]+", line)) >= 2


def lines_of_files(paths):
    out = set()
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            out.update(normalize(l) for l in f)
    return out


def solution_lines(root="."):
    """The lines of solutions/ that no starter, driver, interface or harness file has."""
    solutions = [p for p in glob.glob(os.path.join(root, "solutions/**/*"), recursive=True) if os.path.isfile(p)]
    shared = [p for p in glob.glob(os.path.join(root, "labs/**/*"), recursive=True) +
              glob.glob(os.path.join(root, "common/**/*"), recursive=True) if os.path.isfile(p)]
    given = lines_of_files(shared)
    unique = {}
    for path in solutions:
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                n = normalize(line)
                if n and significant(n) and n not in given:
                    unique.setdefault(n, f"{os.path.relpath(path, root)}:{number}")
    return unique


def text_of_notebook(data):
    """The notebook's cells, and the files of any embedded course archive (COURSE_FILES)."""
    nb = json.loads(data)
    texts = []
    for cell in nb.get("cells", []):
        source = "".join(cell.get("source", []))
        texts.append(source)
        for blob in re.findall(r'COURSE_FILES = "([A-Za-z0-9+/=]+)"', source):
            with tarfile.open(fileobj=io.BytesIO(base64.b64decode(blob))) as tar:
                for member in tar.getmembers():
                    if member.isfile():
                        texts.append(f"\n[embedded {member.name}]\n")
                        texts.append(tar.extractfile(member).read().decode("utf-8", "replace"))
    return "\n".join(texts)


def text_of_html(data):
    text = re.sub(r"<[^>]*>", "", data.decode("utf-8", "replace"))
    return html.unescape(text)


def text_of_pdf(path):
    result = subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"pdftotext cannot read {path}: {result.stderr.decode().strip()}")
    return result.stdout.decode("utf-8", "replace")


def texts_of(path, data):
    """(name, text) of one file, looking into what it carries."""
    if path.endswith(".ipynb"):
        yield path, text_of_notebook(data)
    elif path.endswith(".html"):
        yield path, text_of_html(data)
    elif path.endswith(".pdf"):
        if os.path.isfile(path):
            yield path, text_of_pdf(path)
        else:  # inside a zip
            with tempfile.NamedTemporaryFile(suffix=".pdf") as tmp:
                tmp.write(data)
                tmp.flush()
                yield path, text_of_pdf(tmp.name)
    elif path.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for name in z.namelist():
                if not name.endswith("/"):
                    yield from texts_of(f"{path}/{name}", z.read(name))
    else:
        yield path, data.decode("utf-8", "replace")


def release_files(path):
    """(path, path inside the release, bytes) of every file of a folder, a zip or one file."""
    if os.path.isdir(path):
        for folder, _, names in os.walk(path):
            for name in sorted(names):
                full = os.path.join(folder, name)
                with open(full, "rb") as f:
                    yield full, os.path.relpath(full, path), f.read()
    elif not path.endswith(".zip"):
        with open(path, "rb") as f:
            yield path, os.path.basename(path), f.read()
    else:
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if not name.endswith("/"):
                    yield f"{path}/{name}", name.split("/", 1)[-1], z.read(name)


def leaks(paths, root="."):
    unique = solution_lines(root)
    if not unique:
        return [f"no solution lines found under {root}/solutions: nothing to check against"]
    found = []
    audit = set(audit_files(root))  # of grading/, only the audit may be handed out
    for path in paths:
        for full, rel, data in release_files(path):
            for pattern in INSTRUCTOR_ONLY:
                if fnmatch.fnmatch(rel, pattern) and rel not in audit:
                    found.append(f"{full}: instructors only ({pattern})")
            for name, text in texts_of(full, data):
                for number, line in enumerate(text.splitlines(), 1):
                    origin = unique.get(normalize(line))
                    if origin:
                        found.append(f"{name}:{number}: a line of {origin}: {normalize(line)[:100]}")
    return found


def check_leaks(args):
    found = leaks(args.paths)
    for line in found:
        print(line)
    print(f"{'no' if not found else len(found)} leak{'s' if len(found) != 1 else ''} in {', '.join(args.paths)}")
    return 1 if found else 0


# ---- zips -----------------------------------------------------------------------------------
def make_zip(folder, zip_path, top=None):
    """Sorted entries, a fixed time stamp and each file's mode (executable bits), so unzip
    restores them and the same tree gives the same zip."""
    os.makedirs(os.path.dirname(os.path.abspath(zip_path)), exist_ok=True)
    tmp = zip_path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for dirpath, dirnames, names in os.walk(folder):
            dirnames.sort()
            for name in sorted(names):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, folder)
                info = zipfile.ZipInfo(f"{top}/{rel}" if top else rel, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (stat.S_IFREG | stat.S_IMODE(os.stat(full).st_mode)) << 16
                info.create_system = 3  # Unix: unzip reads the mode from external_attr
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(full, "rb") as f:
                    z.writestr(info, f.read())
    os.replace(tmp, zip_path)


def zip_command(args):
    make_zip(args.folder, args.zip, args.top)


# ---- Gradescope -----------------------------------------------------------------------------
GRADESCOPE_FILES = ["Makefile", "common/*", "grading/*", "grading/src/*", "grading/src/*/*", "grading/harness/*",
                    "grading/protocol/*", "tools/install-deps.sh", "tools/deps/*.txt",
                    "tools/scorecard.py"]  # draws the roofline picture of a graded submission's feedback


def shared_lab_files(lab):
    """The files outside labs/LAB/ that the lab's own files and its solution include, and those
    that they include in turn: the folders labs/ shares between labs (labs/products/ of the
    product labs, included as "../products/matrix_product.h")."""
    return included_lab_files(files_of(f"labs/{lab}/*") + files_of(f"solutions/{lab}/*"))


def included_lab_files(own):
    """The files under labs/ besides `own` that the files `own` include, and those that they
    include in turn (the notebooks carry them too: handouts/tools/notebook_setup.py)."""
    seen, todo, shared = set(own), list(own), []
    while todo:
        path = todo.pop()
        with open(path, encoding="utf-8", errors="replace") as f:
            includes = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.MULTILINE)
        for name in includes:
            target = os.path.normpath(os.path.join(os.path.dirname(path), name))
            if target in seen or not target.startswith("labs" + os.sep) or not os.path.isfile(target):
                continue
            seen.add(target)
            todo.append(target)
            shared.append(target)
    return sorted(shared)


def build_gradescope(args):
    nn = args.lab
    labs = [d for d in sorted(os.listdir("labs")) if d.startswith(f"{nn}-")]
    if not re.fullmatch(r"\d\d", nn) or not labs:
        sys.exit(f"release.py: no lab {nn!r} (make gradescope LAB=NN, one of: "
                 f"{' '.join(sorted(d[:2] for d in os.listdir('labs') if re.match(r'[0-9][0-9]-', d)))})")
    rubric = f"grading/rubrics/{nn}.rubric"
    if not os.path.isfile(rubric):
        sys.exit(f"release.py: lab {nn} has no rubric {rubric}")
    lab = labs[0]
    files = [p for pattern in GRADESCOPE_FILES for p in files_of(pattern)
             if p != "grading/run_autograder"]  # at the root, with the lab baked in
    files += files_of(f"labs/{lab}/*") + files_of(f"solutions/{lab}/*") + shared_lab_files(lab) + [rubric]
    stage = args.out + ".stage"
    if os.path.exists(stage):
        shutil.rmtree(stage)
    os.makedirs(stage)
    copy_into(files, stage)
    # Gradescope's layout: setup.sh and run_autograder at the zip's root, the lab baked in.
    shutil.copy2("grading/gradescope/setup.sh", os.path.join(stage, "setup.sh"))
    with open("grading/run_autograder", encoding="utf-8") as f:
        script = f.read()
    baked = 'LAB=${LAB:-}'
    if script.count(baked) != 1:
        sys.exit(f"release.py: grading/run_autograder must hold the line '{baked}' once")
    with open(os.path.join(stage, "run_autograder"), "w", encoding="utf-8") as f:
        f.write(script.replace(baked, f"LAB=${{LAB:-{nn}}}"))
    for script_name in ("setup.sh", "run_autograder"):
        os.chmod(os.path.join(stage, script_name), 0o755)
    make_zip(stage, args.out)
    shutil.rmtree(stage)
    print(f"Gradescope autograder of lab {nn}: {args.out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("student")
    s.add_argument("--handouts", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--zip")
    s.add_argument("--colab-base", help="Open in Colab links' base address (handouts/colab.conf)")
    s.set_defaults(func=build_student)
    s = sub.add_parser("leaks")
    s.add_argument("paths", nargs="+")
    s.set_defaults(func=check_leaks)
    s = sub.add_parser("gradescope")
    s.add_argument("--lab", required=True)
    s.add_argument("--out", required=True)
    s.set_defaults(func=build_gradescope)
    s = sub.add_parser("zip")
    s.add_argument("folder")
    s.add_argument("zip")
    s.add_argument("--top")
    s.set_defaults(func=zip_command)
    args = ap.parse_args()
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
