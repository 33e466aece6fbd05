#!/usr/bin/env python3
"""The first code cell of a lab's notebook: handouts/tools/setup_cell.py with the course files
of the lab embedded (a base64 tar.gz of the Makefile, common/, the lab's folder without the
student's file and what it includes from labs/ (labs/products/ of the product labs), the tools
of the student's loop -- tools/scorecard.py and the lab's reference runs, tools/grade_preview.py
with the lab's visible tests (tools/preview/NN.tests, as the student edition has them: no
sizes) and the grader's audit (grading/audit and its sources, as the student edition has them),
tools/profile_hints.py -- which the notebook's %%writefile cell completes with the
student's file), so that the notebook runs on a fresh Colab GPU runtime with no clone and no
upload, `make labNN`, `make check LAB=NN`, `make profileNN` and `make scorecard LAB=NN` included.

  notebook_setup.py --lab 01 [--repo-url URL]     prints the cell's code (the Lua filter
                                                  cudalabs.lua calls it for every notebook)
  notebook_setup.py --lab 01 --list               the files it embeds, one per line, named as
                                                  the notebook's course folder holds them
  notebook_setup.py --lab 01 --unpack DIR         writes those files into DIR, as the cell does
  notebook_setup.py --lab 01 --scorecard-cell     the code of the notebook's last cell, which
                                                  draws the student's scorecard inline
                                                  (handouts/tools/scorecard_cell.py)
"""
import argparse
import base64
import glob
import gzip
import io
import os
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def lab_folder(nn):
    found = sorted(glob.glob(f"labs/{nn}-*/"))
    if not found:
        sys.exit(f"notebook_setup.py: lab {nn} has no folder labs/{nn}-*/")
    return found[0].rstrip("/")


# The tools of the student's loop, as the student edition has them: make scorecard, make check
# (with the lab's tests from preview_tests below) and the hints of make profileNN.
LOOP_TOOLS = ["tools/scorecard.py", "tools/grade_preview.py", "tools/answers_preview.py", "tools/profile_hints.py"]


def release_tool():
    """tools/release/release.py, whose rules the notebook follows for what a lab carries."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "release"))
    import release
    return release


def course_files(nn):
    """The files on disk that a notebook carries for lab NN, the student's file excepted."""
    folder = lab_folder(nn)
    lab_files = sorted(glob.glob(f"{folder}/*"))
    students = [f for f in lab_files if f.endswith(".cu") and not f.endswith("/driver.cu")]
    if len(students) != 1:
        sys.exit(f"notebook_setup.py: {folder} must hold exactly one .cu besides driver.cu")
    files = ["Makefile"] + sorted(glob.glob("common/*")) + [f for f in lab_files if f != students[0]]
    files += release_tool().included_lab_files(lab_files)  # labs/products/ of the product labs
    # The reference solution's runs of this lab, which the scorecard (the notebook's last cell)
    # draws beside the student's: reference/<device>.d/NN.json in the notebook.
    files += LOOP_TOOLS + sorted(glob.glob(f"bench/results/*.d/{nn}.json"))
    # make check's audit of the student's file, as the grader audits it.
    files += release_tool().audit_files()
    return [f for f in files if os.path.isfile(f) and not f.endswith("~")]


def preview_tests(nn):
    """tools/preview/NN.tests, what make check previews with, made as for the student edition
    (tools/release/release.py: the rubric's visible tests without their sizes, never the rubric
    itself); None where lab NN has no rubric."""
    if not os.path.isfile(f"grading/rubrics/{nn}.rubric"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        release_tool().write_preview_tests(tmp)
        with open(os.path.join(tmp, "tools", "preview", f"{nn}.tests"), "rb") as f:
            return f.read()


def notebook_files(nn):
    """[(name in the notebook's course folder, file on disk, its bytes or None to read it)]."""
    entries = [(arcname(path), path, None) for path in course_files(nn)]
    tests = preview_tests(nn)
    if tests is not None:
        # Mode and time stamp from the rubric it is made from, so that the payload is reproducible.
        entries.append((f"tools/preview/{nn}.tests", f"grading/rubrics/{nn}.rubric", tests))
    return entries


def arcname(path):
    """Where a carried file goes: the reference runs as in the student edition (reference/)."""
    return "reference/" + path[len("bench/results/"):] if path.startswith("bench/results/") else path


def payload(entries):
    """A reproducible tar.gz (sorted, no owner names, gzip without a time stamp); each file keeps
    its mode (executable bits) and modification time, so that make rebuilds only what changed."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, path, data in entries:
            info = tar.gettarinfo(path, arcname=name)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = int(info.mtime)
            if data is None:
                with open(path, "rb") as f:
                    data = f.read()
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    packed = io.BytesIO()
    with gzip.GzipFile(fileobj=packed, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return base64.b64encode(packed.getvalue()).decode("ascii")


def unpack(nn, dest):
    """The notebook's course files written into dest from the payload itself, as the cell does."""
    os.makedirs(dest, exist_ok=True)
    data = base64.b64decode(payload(notebook_files(nn)))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))


def setup_cell(nn, repo_url):
    with open(os.path.join(HERE, "setup_cell.py"), encoding="utf-8") as f:
        code = f.read().rstrip("\n")
    if repo_url and any(c in repo_url for c in "\"'\\\n"):
        sys.exit(f"notebook_setup.py: REPO_URL may not contain quotes, backslashes or newlines: {repo_url!r}")
    # With a repository to fetch, the notebook carries nothing.
    for name, value in (("REPO_URL", repo_url), ("COURSE_FILES", "" if repo_url else payload(notebook_files(nn)))):
        line = f'{name} = ""'
        if code.count(line) != 1:
            sys.exit(f"notebook_setup.py: setup_cell.py must hold the line '{line}' once")
        code = code.replace(line, f'{name} = "{value}"')
    return code


def scorecard_cell(nn):
    with open(os.path.join(HERE, "scorecard_cell.py"), encoding="utf-8") as f:
        code = f.read().rstrip("\n")
    if code.count('NN = ""') != 1:
        sys.exit("notebook_setup.py: scorecard_cell.py must hold the line 'NN = \"\"' once")
    return code.replace('NN = ""', f'NN = "{nn}"')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", required=True)
    ap.add_argument("--repo-url", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--unpack", metavar="DIR")
    ap.add_argument("--scorecard-cell", action="store_true")
    args = ap.parse_args()
    if args.scorecard_cell:
        sys.stdout.write(scorecard_cell(args.lab) + "\n")
    elif args.list:
        print("\n".join(name for name, _, _ in notebook_files(args.lab)))
    elif args.unpack:
        unpack(args.lab, args.unpack)
    else:
        sys.stdout.write(setup_cell(args.lab, args.repo_url) + "\n")


if __name__ == "__main__":
    main()
