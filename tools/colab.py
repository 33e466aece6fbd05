#!/usr/bin/env python3
"""Open in Colab links, built from the course's configured base address (handouts/colab.conf).

  colab.py check BASE                 exit 0 when BASE has Colab's GitHub form (below), else
                                      say why and exit 1
  colab.py url BASE NN-topic          the link of one lab's notebook
  colab.py readme FILE [--base BASE] [--check]
                                      rewrite (or, with --check, compare) FILE's block between
                                      <!-- colab-links:begin --> and <!-- colab-links:end -->:
                                      a table with one link per lab (labs/NN-topic/), or, with
                                      no base, how to set one. BASE defaults to COLAB_BASE of
                                      handouts/colab.conf.

A base is https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/FOLDER: the folder of
the student notebooks in the course's own GitHub repository (the student edition keeps them in
handouts/); a lab's link is BASE/NN-topic.ipynb. Standard library only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONF = os.path.join(ROOT, "handouts", "colab.conf")
FORM = re.compile(r"https://colab\.research\.google\.com/github/[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+"
                  r"/blob/[A-Za-z0-9._/-]+")
BEGIN, END = "<!-- colab-links:begin -->", "<!-- colab-links:end -->"


def problem(base):
    """Why base is not a usable Colab base address, or None."""
    if not FORM.fullmatch(base):
        return ("not of the form https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/FOLDER "
                f"(letters, digits, '.', '_', '-' and '/' only): {base!r}")
    if base.endswith((".ipynb", "/")):
        return f"the folder of the notebooks, without a notebook's name or a final '/': {base!r}"
    if "//" in base[len("https://"):]:
        return f"an empty part ('//'): {base!r}"
    return None


def url(base, name):
    return f"{base}/{name}.ipynb"


def configured(conf=CONF):
    """COLAB_BASE of handouts/colab.conf (a make fragment: `COLAB_BASE ?= value`)."""
    if not os.path.isfile(conf):
        return ""
    with open(conf, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*COLAB_BASE\s*\??=\s*(.*?)\s*$", line)
            if m:
                return m.group(1)
    return ""


def labs(root=ROOT):
    return sorted(d for d in os.listdir(os.path.join(root, "labs")) if re.fullmatch(r"\d\d-[a-z0-9-]+", d))


def block(base, root=ROOT, unset=None):
    if not base and unset:
        return [BEGIN] + unset + [END]
    if not base:
        return [BEGIN,
                "*No course repository is configured yet*: set `COLAB_BASE` in `handouts/colab.conf`",
                "(as above), then `python3 tools/colab.py readme README.md` fills this",
                "table with one Open in Colab link per lab.",
                END]
    out = [BEGIN, "| lab | notebook |", "|---|---|"]
    for name in labs(root):
        out.append(f"| {name[:2]} | [{name}.ipynb, Open in Colab]({url(base, name)}) |")
    out.append(END)
    return out


def readme(path, base, check, unset=None):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        sys.exit(f"colab.py: {path} must hold {BEGIN} and {END} once each")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    new = head + "\n".join(block(base, unset=unset)) + tail
    if check:
        if new != text:
            print(f"colab.py: {path}'s Open in Colab block is not the one of COLAB_BASE={base or '(empty)'}: "
                  f"run python3 tools/colab.py readme {path}")
            return 1
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("base")
    u = sub.add_parser("url")
    u.add_argument("base")
    u.add_argument("name")
    r = sub.add_parser("readme")
    r.add_argument("file")
    r.add_argument("--base")
    r.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.cmd == "check":
        p = problem(args.base)
        if p:
            print(f"COLAB_BASE {p}")
        return 1 if p else 0
    if args.cmd == "url":
        p = problem(args.base)
        if p:
            sys.exit(f"colab.py: COLAB_BASE {p}")
        print(url(args.base, args.name))
        return 0
    base = configured() if args.base is None else args.base
    if base and problem(base):
        sys.exit(f"colab.py: COLAB_BASE {problem(base)}")
    return readme(args.file, base, args.check)


if __name__ == "__main__":
    sys.exit(main())
