#!/usr/bin/env python3
"""Checks on built handouts, for tests/suites/handouts.sh. Standard library, plus nbformat for
the notebook check.

  check.py nonblank IMAGE            PNG (8-bit, non-interlaced) or PGM/PPM: exit 1 when the
                                     image is (almost) one colour
  check.py notebook NB STARTER NN    nbformat validation, then the cells: title first, the setup
                                     cell, the starter written by %%writefile (the file's current
                                     text), then `!make labNN`; exit 1 with the reason
  check.py pages PDF TEX             the printed pages (pdftotext): no page ends with a heading
                                     (those of TEX, the PDF's LaTeX source) or a table's caption,
                                     no page starts with a figure's caption; exit 1 with the page
  check.py fill PDF [MAX]            no page but the last is more than MAX (0.5 unless told) empty
                                     below its last ink, within the text's height (A4, 1.8 cm
                                     margins; rendered by pdftoppm): a half-empty page before a
                                     float or a kept-together block; exit 1 with the page
  check.py figures MD...             each handout shows at least one figure of handouts/figures/
                                     (![caption](figures/NAME.svg)), with a caption, and each
                                     figure it names exists and is an SVG document (well-formed
                                     XML, an <svg> root with a width and a height); prints each
                                     handout's figures, exit 1 with the reasons
"""
import os
import re
import subprocess
import struct
import sys
import zlib
import xml.etree.ElementTree as ET

FIGURE = re.compile(r"!\[([^\]]*)\]\((figures/[^)\s]+\.svg)\)")


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
    order = {"setup": 0, "starter": 1, "run": 2, "scorecard": 3}
    first = {}
    for i, role in roles:
        first.setdefault(role, i)
    for role in order:
        if role not in first:
            problems.append(f"no '{role}' code cell")
    if not problems:
        if not first["setup"] < first["starter"] < first["run"]:
            problems.append("cells out of order: setup, then the starter, then the build-and-run cell")
        if roles[-1][1] != "scorecard" or sum(1 for _, r in roles if r == "scorecard") != 1:
            problems.append("the scorecard cell is not the notebook's last code cell, once")
        elif f'NN = "{nn}"' not in cells[roles[-1][0]].source:
            problems.append(f"the scorecard cell does not draw lab {nn}")
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
    return reported(path, problems, f"valid nbformat {nb.nbformat}.{nb.nbformat_minor}, {len(cells)} cells in order")


def reported(path, problems, summary):
    """Prints each problem of the file at `path`, or `summary` when it has none; True when none."""
    for p in problems:
        print(f"{path}: {p}")
    if not problems:
        print(f"{path}: {summary}")
    return not problems


def latex_headings(tex_path):
    """The text of the \\section ... \\subsubsection headings of a pandoc LaTeX file."""
    with open(tex_path, encoding="utf-8") as f:
        tex = f.read()
    headings = []
    for m in re.finditer(r"\\(?:sub)*section\*?\{(.*?)\}\\label", tex, re.S):
        text = re.sub(r"\\[A-Za-z]+\s*", "", m.group(1))  # \texttt, \emph, ... (their text stays)
        text = " ".join(text.replace("{", "").replace("}", "").split())
        if text:
            headings.append(text)
    return headings


def inline_code(tex_path):
    """The words of the inline code (\\texttt) of a pandoc LaTeX file, as printed."""
    with open(tex_path, encoding="utf-8") as f:
        tex = f.read()
    words = set()
    for m in re.finditer(r"\\texttt\{((?:[^{}]|\{[^{}]*\})*)\}", tex):
        text = re.sub(r"\\(textbackslash|textasciitilde|textasciicircum)\{\}", "x", m.group(1))
        text = re.sub(r"\\([_&%$#{}])", r"\1", text).replace("{", "").replace("}", "")
        words.update(w for w in text.split() if len(w) >= 6)
    return words


def is_code(joined, w):
    """Whether the word `joined`, put together from the two lines, is the inline code word `w`
    or a piece of it. A plain lowercase word inside a longer code word is prose ('de-' + 'vice'
    is the word "device", not a piece of `__device__`)."""
    return joined == w or w in joined or (joined in w and not re.fullmatch(r"[a-z]+", joined))


def hyphenated_code(lines, code):
    """Inline code broken across two lines at a hyphen: 'cudaMemcpy-' + 'ToSymbol', or at the
    hyphen of 'labs/01-vector-' + 'add/'."""
    found = []
    for a, b in zip(lines, lines[1:]):
        if not re.search(r"[A-Za-z0-9_/.]-$", a) or not b.split():
            continue  # not a word broken at a hyphen (a table's "-" cell is not)
        head, tail = a.split()[-1], b.split()[0]
        for joined in (head + tail, head[:-1] + tail):
            if len(joined) >= 6 and any(is_code(joined, w) for w in code):
                found.append(f"{head} / {tail}")
                break
    return found


def check_pages(pdf_path, tex_path):
    headings = latex_headings(tex_path)
    code = inline_code(tex_path)
    text = subprocess.run(["pdftotext", "-layout", pdf_path, "-"], capture_output=True, check=True,
                          text=True).stdout
    problems = []
    pages = text.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()  # pdftotext ends every page with a form feed
    for number, page in enumerate(pages, 1):
        lines = [" ".join(l.split()) for l in page.splitlines() if l.strip()]
        if number > 1:
            lines = lines[1:]  # the running head
        if lines and lines[-1].isdigit():
            lines = lines[:-1]  # the page number
        if not lines:
            continue
        for broken in hyphenated_code(lines, code):
            problems.append(f"page {number}: inline code hyphenated across lines: {broken}")
        last, first = re.sub(r"^[\d.]+\s+", "", lines[-1]), lines[0]  # without a section number
        if number == len(pages):
            continue  # the last page may end anywhere
        for h in headings:
            # a heading may be set on two lines: its start, or its end, is the page's last line
            if last == h or (len(last) >= 12 and (h.startswith(last) or h.endswith(last))):
                problems.append(f"page {number} ends with the heading '{h}'")
                break
        if re.match(r"Table \d+:", last):
            problems.append(f"page {number} ends with a table's caption: {last[:60]}")
        if re.match(r"Figure \d+:", first):
            problems.append(f"page {number} starts with a figure's caption, away from its figure: {first[:60]}")
    return reported(pdf_path, problems, f"{len(pages)} pages, no heading or caption alone at a page's end")


def page_fill(pdf_path, top_mm=18.0, bottom_mm=18.0, height_mm=297.0, dpi=30):
    """[(page, fraction of the text's height left blank below its last ink)] of a PDF: each page
    rendered in grey (pdftoppm), its rows between the top and bottom margins read; the running
    head and the page number lie outside them."""
    import glob
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", pdf_path, os.path.join(tmp, "p")], check=True)
        files = sorted(glob.glob(os.path.join(tmp, "p*.pgm")), key=lambda f: int(re.findall(r"(\d+)\.pgm$", f)[0]))
        out = []
        for number, f in enumerate(files, 1):
            with open(f, "rb") as fh:
                rows, _ = pnm_pixels(fh.read())
            px_mm = len(rows) / height_mm
            first, last = int(top_mm * px_mm) + 2, int((height_mm - bottom_mm) * px_mm) - 1
            ink = [y for y in range(first, last + 1) if min(rows[y]) < 160]
            end = ink[-1] if ink else first
            out.append((number, (last - end) / (last - first)))
    return out


def check_fill(pdf_path, most=0.5):
    problems = [f"page {n} is {blank:.0%} empty below its last line (at most {most:.0%} but on the last page)"
                for n, blank in page_fill(pdf_path)[:-1] if blank > most]
    fills = ", ".join(f"{1 - b:.0%}" for _, b in page_fill(pdf_path))
    return reported(pdf_path, problems, f"no page but the last more than {most:.0%} empty (filled: {fills})")


def svg_problem(path):
    """Why the file at path is not a usable SVG figure, or None."""
    if not os.path.isfile(path):
        return "not found"
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return f"not well-formed XML ({e})"
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        return f"its root is <{root.tag}>, not an SVG <svg>"
    if not root.get("width") or not root.get("height"):
        return "its <svg> has no width or height"
    return None


def check_figures(md_paths):
    """Each handout references at least one figure, each with a caption, each a valid SVG."""
    problems = []
    for md in md_paths:
        with open(md, encoding="utf-8") as f:
            figures = FIGURE.findall(f.read())
        if not figures:
            problems.append(f"{md}: shows no figure (![caption](figures/NAME.svg))")
        for caption, ref in figures:
            path = os.path.join(os.path.dirname(md), ref)
            why = svg_problem(path)
            if why:
                problems.append(f"{md}: {ref}: {why}")
            if not caption.strip():
                problems.append(f"{md}: {ref} has no caption")
        if figures:
            print(f"{md}: {', '.join(ref for _, ref in figures)}")
    for p in problems:
        print(p)
    return not problems


def main(argv):
    if len(argv) == 3 and argv[0] == "pages":
        return 0 if check_pages(argv[1], argv[2]) else 1
    if len(argv) in (2, 3) and argv[0] == "fill":
        return 0 if check_fill(argv[1], float(argv[2]) if len(argv) == 3 else 0.5) else 1
    if len(argv) >= 2 and argv[0] == "nonblank":
        return 0 if all(nonblank(p) for p in argv[1:]) else 1
    if len(argv) == 4 and argv[0] == "notebook":
        return 0 if check_notebook(argv[1], argv[2], argv[3]) else 1
    if len(argv) >= 2 and argv[0] == "figures":
        return 0 if check_figures(argv[1:]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
