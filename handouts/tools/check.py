#!/usr/bin/env python3
"""Checks on built handouts, for tests/suites/handouts.sh. Standard library, plus nbformat for
the notebook check.

  check.py nonblank IMAGE            PNG (8-bit, non-interlaced) or PGM/PPM: exit 1 when the
                                     image is (almost) one colour
  check.py notebook NB STARTER NN    nbformat validation, then the cells: title first, the setup
                                     cell, the starter written by %%writefile (the file's current
                                     text), then `!make labNN`; exit 1 with the reason
"""
import struct
import sys
import zlib


def png_pixels(data):
    """Rows of bytes (after unfiltering) and bytes per pixel of an 8-bit non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace:
                raise ValueError("only 8-bit non-interlaced PNG is supported")
            bpp = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
            if bpp is None:
                raise ValueError("palette PNG not supported")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        rows.append(bytes(line))
        prev = line
    return rows, bpp


def pnm_pixels(data):
    parts = data.split(maxsplit=4)
    magic, width, height, maxval = parts[0], int(parts[1]), int(parts[2]), int(parts[3])
    bpp = 1 if magic == b"P5" else 3
    if magic not in (b"P5", b"P6") or maxval > 255:
        raise ValueError("only binary 8-bit PGM/PPM")
    pixels = parts[4][:width * height * bpp]
    stride = width * bpp
    return [pixels[y * stride:(y + 1) * stride] for y in range(height)], bpp


def nonblank(path):
    with open(path, "rb") as f:
        data = f.read()
    rows, bpp = png_pixels(data) if data[:4] == b"\x89PNG" else pnm_pixels(data)
    counts = {}
    total = 0
    for row in rows:
        for i in range(0, len(row), bpp):
            px = row[i:i + min(bpp, 3)]
            counts[px] = counts.get(px, 0) + 1
            total += 1
    background = max(counts.values())
    ink = (total - background) / total
    print(f"{path}: {total} pixels, {len(counts)} colours, {ink:.1%} not background")
    return ink > 0.005 and len(counts) > 1


def check_notebook(path, starter_path, nn):
    import nbformat
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    cells = nb.cells
    problems = []
    if not cells or cells[0].cell_type != "markdown" or not cells[0].source.startswith(f"# Lab {nn}"):
        problems.append(f"the first cell is not the title '# Lab {nn} ...'")
    roles = [(i, c.metadata.get("cudalabs")) for i, c in enumerate(cells) if c.cell_type == "code"]
    order = {"setup": 0, "starter": 1, "run": 2}
    first = {}
    for i, role in roles:
        first.setdefault(role, i)
    for role in order:
        if role not in first:
            problems.append(f"no '{role}' code cell")
    if not problems:
        if not first["setup"] < first["starter"] < first["run"]:
            problems.append("cells out of order: setup, then the starter, then the build-and-run cell")
        if any(r == "setup" for i, r in roles if i != first["setup"]):
            problems.append("more than one setup cell")
        starter = cells[first["starter"]].source
        with open(starter_path, encoding="utf-8") as f:
            text = f.read().rstrip("\n")
        if starter != f"%%writefile {starter_path}\n{text}":
            problems.append(f"the %%writefile cell is not the current text of {starter_path}")
        runs = [cells[i].source for i, r in roles if r == "run" and i > first["starter"]]
        if not any(f"!make lab{nn}" in s and f"./lab{nn}" in s for s in runs):
            problems.append(f"no '!make lab{nn} && ./lab{nn}' cell after the starter")
    for i, c in enumerate(cells):
        # Every code cell is Python once IPython's shell (!) and magic (%) lines are set aside.
        if c.cell_type != "code" or c.source.startswith("%%"):
            continue
        body = "\n".join(l[:len(l) - len(l.lstrip())] + "pass" if l.lstrip().startswith(("!", "%"))
                         else l for l in c.source.splitlines())
        try:
            compile(body, f"cell {i}", "exec")
        except SyntaxError as e:
            problems.append(f"code cell {i} is not valid Python: {e}")
    ids = [c.get("id") for c in cells]
    if len(set(ids)) != len(ids):
        problems.append("cell ids are not unique")
    for p in problems:
        print(f"{path}: {p}")
    if not problems:
        print(f"{path}: valid nbformat {nb.nbformat}.{nb.nbformat_minor}, {len(cells)} cells in order")
    return not problems


def main(argv):
    if len(argv) >= 2 and argv[0] == "nonblank":
        return 0 if all(nonblank(p) for p in argv[1:]) else 1
    if len(argv) == 4 and argv[0] == "notebook":
        return 0 if check_notebook(argv[1], argv[2], argv[3]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
