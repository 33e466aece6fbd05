#!/usr/bin/env python3
"""Writes a class of N submissions of one lab for the similarity report's timing test:
    similarity_class.py OUT N [LAB]      (default lab 13, the class in OUT/NN.cu)
Student i is one of the lab's reference solution and its disguised copies
(tests/grading/similarity/LAB/), its identifiers renamed in a way of its own: every file differs,
and most pairs share most of their code, the most work the report can be given.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import similarity_disguise as disguise  # noqa: E402

if len(sys.argv) not in (3, 4):
    sys.exit(__doc__)
out, n = sys.argv[1], int(sys.argv[2])
lab = sys.argv[3] if len(sys.argv) == 4 else "13"
sources = [open(f, encoding="utf-8").read() for f in sorted(glob.glob(os.path.join(disguise.ROOT, f"solutions/{lab}-*/*.cu")) +
                                                              glob.glob(os.path.join(disguise.ROOT, f"tests/grading/similarity/{lab}/*.cu")))]
os.makedirs(out, exist_ok=True)
for i in range(n):
    with open(os.path.join(out, f"student{i:03d}.cu"), "w", encoding="utf-8") as f:
        f.write(disguise.renamed(sources[i % len(sources)], lab, prefix=f"s{i}v"))
print(f"wrote {n} submissions of lab {lab} into {out}")
