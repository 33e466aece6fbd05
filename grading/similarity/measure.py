#!/usr/bin/env python3
"""Measures the similarity report's found rate and false-positive rate, threshold by threshold.

The corpus, per lab (01, 04, 06, 08, 12, 13):
  - copies: the reference solution against each disguised copy of it in
    tests/grading/similarity/NN/ (renamed, reformatted, reordered, dead code, comments,
    combined; tests/tools/similarity_disguise.py writes them): each pair must be found;
  - independent: the correct styles of the grader's corpus (tests/grading/NN/*correct*.patch).
    A style is a patch of the reference solution, so only its own lines (the patch's added
    lines) were written apart from it: each style's own lines against another style's, against
    the reference lines it replaced, and against the whole reference. None may be flagged.
Scores are those of the report: shared winnowed fingerprints over the fewer of the two, the
lab's starter subtracted.
    measure.py [--write grading/similarity/RATES.md] [--classes DIR]
--classes writes each lab's corpus as a folder of submissions, DIR/NN/ID.cu (for the suite).
"""
import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from fingerprint import Document, kgrams, tokens  # noqa: E402
import report  # noqa: E402

LABS = ["01", "04", "06", "08", "12", "13"]
THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 20)]


def patch_sides(path):
    """The lines a unified diff adds and the lines it removes, as two texts."""
    added, removed = [], []
    for line in open(path, encoding="utf-8"):
        if line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
        elif line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
    return "".join(added), "".join(removed)


def corpus(nn):
    """({id: source}, copies [(a, b)], independent [(a, b)]) of lab nn."""
    sol = glob.glob(os.path.join(ROOT, f"solutions/{nn}-*/*.cu"))[0]
    files = {"reference": open(sol, encoding="utf-8").read()}
    copies, independent = [], []
    for path in sorted(glob.glob(os.path.join(ROOT, f"tests/grading/similarity/{nn}/*.cu"))):
        name = "disguise-" + os.path.basename(path)[:-3]
        files[name] = open(path, encoding="utf-8").read()
        copies.append(("reference", name))
    styles = []
    for path in sorted(glob.glob(os.path.join(ROOT, f"tests/grading/{nn}/*correct*.patch"))):
        style = os.path.basename(path)[:-6]
        files["style-" + style], files["replaced-" + style] = patch_sides(path)
        independent += [("style-" + style, "replaced-" + style), ("style-" + style, "reference")]
        independent += [("style-" + other, "style-" + style) for other in styles]
        styles.append(style)
    return files, copies, independent


def scores(nn):
    """{frozenset(pair): score} for the copies and the independent pairs of lab nn."""
    files, copies, independent = corpus(nn)
    starter = {h for h, _, _ in kgrams(tokens(report.read_text(report.starter_of(nn))))}
    docs = {name: Document(name, src) for name, src in files.items()}
    for d in docs.values():
        d.subtract(starter)

    def score(a, b):
        fa, fb = docs[a].fingerprints, docs[b].fingerprints
        return len(fa & fb) / max(1, min(len(fa), len(fb)))
    return [(nn, a, b, score(a, b)) for a, b in copies], [(nn, a, b, score(a, b)) for a, b in independent]


def rates_table(copies, independent):
    rows = ["| threshold | copies found | independent pairs flagged |", "|---|---|---|"]
    for t in THRESHOLDS:
        found = sum(1 for *_, s in copies if s >= t)
        flagged = sum(1 for *_, s in independent if s >= t)
        rows.append(f"| {t:.2f} | {found}/{len(copies)} ({found / len(copies):.0%}) | "
                    f"{flagged}/{len(independent)} ({flagged / len(independent):.0%}) |")
    return "\n".join(rows)


def write_classes(out):
    for nn in LABS:
        files, _, _ = corpus(nn)
        os.makedirs(os.path.join(out, nn), exist_ok=True)
        for name, src in files.items():
            with open(os.path.join(out, nn, name + ".cu"), "w", encoding="utf-8") as f:
                f.write(src)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--write", metavar="FILE", help="write the rates as Markdown into FILE")
    p.add_argument("--classes", metavar="DIR", help="write each lab's corpus as a folder of submissions")
    args = p.parse_args()
    if args.classes:
        write_classes(args.classes)
        return
    copies, independent = [], []
    for nn in LABS:
        c, i = scores(nn)
        copies += c
        independent += i
    lowest_copy = min(copies, key=lambda x: x[3])
    highest_independent = max(independent, key=lambda x: x[3])
    text = (f"{rates_table(copies, independent)}\n\nLowest copy: lab {lowest_copy[0]} {lowest_copy[2]}, "
            f"{lowest_copy[3]:.3f}. Highest independent pair: lab {highest_independent[0]} {highest_independent[1]} and "
            f"{highest_independent[2]}, {highest_independent[3]:.3f}. The default threshold, "
            f"{report.DEFAULT_THRESHOLD:.2f} (grading/similarity/report.py).\n")
    print(text)
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(RATES_HEAD + text)


RATES_HEAD = """# How well the similarity report finds copies

Measured by `python3 grading/similarity/measure.py --write grading/similarity/RATES.md` (its
docstring says what the corpus holds): how many of the disguised copies of a reference solution
are found at each threshold, and how many pairs written independently (the correct styles of
the grader's corpus against each other and against the reference) are flagged wrongly. The
suite `tests/suites/grading_similarity.sh` fails if the default threshold misses one copy or
flags one independent pair.

The default threshold lies between the lowest-scoring copy and the highest-scoring independent
pair (below the table). The margins are narrow on both sides: the independent pairs that score
highest are a style's lines against the reference lines it edits in place (lab 12's split k
keeps the tiled loop and changes its bounds), or two styles that share a few verbatim lines in
fragments of 10 to 25 lines. A whole submission has hundreds of fingerprints, and a pair near the
threshold is one to read, not to act on.

"""

if __name__ == "__main__":
    main()
