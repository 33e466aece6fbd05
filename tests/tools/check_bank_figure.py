#!/usr/bin/env python3
"""Checks the bank figure (handouts/figures/banks.svg, handouts/tools/figures.py banks()): every
word of both tiles' rows drawn shows its bank, and the bank is right: word 32*r + c of
tile[32][32] (bank c) and word 33*r + c of tile[32][33] (bank (r + c) mod 32), so the padded
tile's diagonal shift can be read off the figure. Exit 1 naming what is wrong.

  check_bank_figure.py [SVG]
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "handouts/figures/banks.svg"
    labels = [e for e in ET.parse(path).getroot().iter(NS + "text") if "bank" in (e.get("class") or "").split()]
    # Cells in drawing order: the rows of tile[32][32], then those of tile[32][33] (32 words each,
    # the padding word unlabelled), by their y then x.
    by_row = {}
    for e in labels:
        by_row.setdefault(float(e.get("y")), []).append((float(e.get("x")), int(e.text)))
    rows = [sorted(cells) for _, cells in sorted(by_row.items())]
    errors = []
    if len(rows) < 4 or len(rows) % 2:
        errors.append(f"{len(rows)} rows of bank labels (expected two tiles of the same number of rows)")
    half = len(rows) // 2
    for i, cells in enumerate(rows):
        padded, r = i >= half, i % half if half else 0
        want = [((33 if padded else 32) * r + c) % 32 for c in range(32)]
        got = [bank for _, bank in cells]
        if got != want:
            errors.append(f"{'tile[32][33]' if padded else 'tile[32][32]'} row {r}: banks {got[:6]}..., expected {want[:6]}...")
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
