#!/usr/bin/env python3
"""Checks that what the documentation tells users to run directly can be run: prints each
script that is not executable, one line each (nothing when all are).

  check_commands_executable.py [--root DIR] MARKDOWN...

A command named to run directly is a line of a fenced code block, or an inline code span of two
words or more, whose first word (after NAME=value settings) is a file of the tree that starts
with "#!" (`tools/scorecard.py --help`, `grading/grade --lab 01 subs/`); one run through an
interpreter (`python3 tools/colab.py ...`, `bash tools/install-deps.sh`) needs no executable bit.
Also checked: every file that starts with "#!" in the folders of scripts (SCRIPT_FOLDERS), which
their own --help shows run directly. Executable means 755 in git's index where the file is
tracked (what a clone gets), else on disk (the student edition, an unpacked notebook).
Exits 1 with the findings, 0 without. Called by the readme suite.
"""
import argparse
import os
import re
import subprocess
import sys

SCRIPT_FOLDERS = ["tools", "tools/new-lab", "tools/release", "bench", "handouts/tools",
                  "grading", "grading/slurm", "grading/gradescope", ".ci"]


def is_script(path):
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def git_modes(root):
    """{path: mode} of the files git tracks under root ({} outside a git checkout)."""
    try:
        p = subprocess.run(["git", "-C", root, "ls-files", "-s"], capture_output=True, text=True)
    except OSError:
        return {}
    modes = {}
    for line in p.stdout.splitlines() if p.returncode == 0 else []:
        meta, _, path = line.partition("\t")
        modes[path] = meta.split()[0]
    return modes


def executable(root, path, modes):
    if path in modes:
        return modes[path] == "100755"
    return os.access(os.path.join(root, path), os.X_OK)


def commands(text):
    """The command lines of a Markdown text: its fenced code blocks' lines and its inline code
    spans of two words or more, as (line number, command)."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            yield number, line
        else:
            for span in re.findall(r"`([^`]+)`", line):
                if len(span.split()) >= 2:
                    yield number, span


def first_word(command):
    words = command.strip().removeprefix("$ ").split()
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", words[0]):
        words.pop(0)
    return words[0] if words else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="the course tree (default: here)")
    ap.add_argument("markdown", nargs="*", help="the documents to read, relative to the root")
    args = ap.parse_args()
    root, modes, problems, seen = args.root, git_modes(args.root), [], set()
    for doc in args.markdown:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        for number, command in commands(text):
            word = first_word(command)
            path = os.path.normpath(word.removeprefix("./")) if "/" in word else ""
            if not path or path in seen or not is_script(os.path.join(root, path)):
                continue
            seen.add(path)
            if not executable(root, path, modes):
                problems.append(f"{doc}:{number}: tells users to run {path}, which is not executable")
    for folder in SCRIPT_FOLDERS:
        full = os.path.join(root, folder)
        for name in sorted(os.listdir(full)) if os.path.isdir(full) else []:
            path = os.path.normpath(os.path.join(folder, name))
            if path not in seen and is_script(os.path.join(root, path)) and not executable(root, path, modes):
                seen.add(path)
                problems.append(f"{path}: a script (#!) that is not executable")
    print("\n".join(problems), end="\n" if problems else "")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
