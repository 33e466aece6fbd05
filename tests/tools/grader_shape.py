#!/usr/bin/env python3
"""The grader's shape, measured: tests/suites/grader_shape.sh runs it on the tree.

- Layers one way: a file of grading/src/ includes only headers of its own folder's layer or of
  layers below it (LAYERS, lowest first); the mains at the top of grading/src/ may include any.
  The grading harness (grading/harness/, linked into the lab programs) includes nothing of
  grading/src/.
- Sizes: no class or struct of grading/ over MAX_CLASS_LINES lines and no function of grading/ or
  common/ over MAX_FUNCTION_LINES (universal-ctags' line spans); grading/src/grader.cpp, the
  table of stages, at most MAX_GRADER_LINES lines. The grader's lines of code (grading/: C++, its
  headers and CUDA, as cloc counts them) are a figure shown beside CODE_LINES_TARGET, not a
  check.

Prints one line per finding and exits 1, or prints the figures and exits 0. --figures prints
them either way. Needs cloc and universal-ctags (tools/deps/grading.txt).
"""
import json
import os
import re
import subprocess
import sys

LAYERS = ["util", "process", "intake", "isolation", "gpu", "compile", "runs", "judge", "class", "stages"]
CODE_LINES_TARGET = 12500
MAX_CLASS_LINES = 400
MAX_FUNCTION_LINES = 80
MAX_GRADER_LINES = 300
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The layer of a file of grading/src ("" for the mains at its top), or None outside it."""
    parts = path.split(os.sep)
    if parts[:2] != ["grading", "src"]:
        return None
    return parts[2] if len(parts) > 3 else ""


def source_files(root, folders):
    for folder in folders:
        for base, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith((".h", ".cpp", ".cu")):
                    yield os.path.relpath(os.path.join(base, name), root)


def include_findings(root):
    """Every include against the order, as "FILE: includes X (layer A above B)"."""
    found = []
    rank = {name: k for k, name in enumerate(LAYERS)}
    for path in source_files(root, ["grading/src", "grading/harness"]):
        text = open(os.path.join(root, path), encoding="utf-8").read()
        own = layer_of(path)
        for included in INCLUDE.findall(text):
            folder = included.split("/")[0] if "/" in included else None
            if path.startswith("grading/harness"):
                if folder in rank or included.startswith("grading/src"):
                    found.append(f"{path}: includes {included}: the harness includes nothing of grading/src")
                continue
            if folder is None or own == "":
                continue  # a header of common/ or grading/protocol/, or a main at the top
            if folder not in rank:
                found.append(f"{path}: includes {included}, of no layer ({', '.join(LAYERS)})")
            elif own not in rank:
                found.append(f"{path}: lies in grading/src/{own}/, which is no layer ({', '.join(LAYERS)})")
            elif rank[folder] > rank[own]:
                found.append(f"{path}: includes {included}: layer {folder} is above {own} ({' -> '.join(LAYERS)})")
    return found


def code_lines(root):
    out = subprocess.run(["cloc", "--json", "--quiet", "--include-lang=C++,C/C++ Header,CUDA", os.path.join(root, "grading")],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["SUM"]["code"]


def ctags_spans(root, folders):
    """(kind, name, file, lines) of every class, struct and function universal-ctags finds."""
    out = subprocess.run(["ctags", "-R", "--languages=C++", "--kinds-C++=cfs", "--fields=+nKe", "--output-format=json", "-f", "-"]
                         + folders, cwd=root, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        tag = json.loads(line)
        if "line" in tag and "end" in tag:
            yield tag["kind"], tag.get("scope", "") + "::" + tag["name"] if tag.get("scope") else tag["name"], tag["path"], tag["end"] - tag["line"] + 1


def size_findings(root, figures):
    found = []
    code = code_lines(root)
    figures.append(f"grading/ C++, headers and CUDA: {code} lines of code (the target: at most {CODE_LINES_TARGET})")
    longest = {"class": (0, ""), "function": (0, "")}
    for kind, name, path, lines in ctags_spans(root, ["grading", "common"]):
        what = "function" if kind == "function" else "class"
        limit = MAX_FUNCTION_LINES if what == "function" else MAX_CLASS_LINES
        if what == "class" and not path.startswith("grading"):
            continue
        longest[what] = max(longest[what], (lines, f"{name} ({path})"))
        if lines > limit:
            found.append(f"{path}: {what} {name} is {lines} lines long, more than {limit}")
    figures.append(f"longest class of grading/: {longest['class'][0]} lines, {longest['class'][1]}")
    figures.append(f"longest function of grading/ and common/: {longest['function'][0]} lines, {longest['function'][1]}")
    grader = sum(1 for _ in open(os.path.join(root, "grading/src/grader.cpp"), encoding="utf-8"))
    figures.append(f"grading/src/grader.cpp: {grader} lines (at most {MAX_GRADER_LINES})")
    if grader > MAX_GRADER_LINES:
        found.append(f"grading/src/grader.cpp is {grader} lines long, more than {MAX_GRADER_LINES}: stages belong in grading/src/stages/")
    return found


def main(argv):
    root = argv[argv.index("--root") + 1] if "--root" in argv else "."
    show = "--figures" in argv
    figures = []
    found = include_findings(root) + size_findings(root, figures)
    for line in found:
        print(line)
    if show or not found:
        for line in figures:
            print(line)
    if not found:
        print(f"the grader's shape holds: layers {' -> '.join(LAYERS)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
