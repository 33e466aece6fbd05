#!/usr/bin/env python3
"""The printed size of every text of every figure of a handout's PDF, from its LaTeX source.

  figure_fonts.py [--min PT] [--report] HANDOUT.tex...

A handout's LaTeX source (build/handouts/tex/EDITION/NAME.tex) includes each figure as the PDF
that handouts/filters/cudalabs.lua converted from an SVG (GEN/pdf/<handout>-<edition>-<the SVG's
path, '/' and '.' as '_'>.pdf), with \\includegraphics[width=F\\textwidth,height=\\textheight]
(pandoc keeps the aspect ratio: the figure is F of the text width wide unless that makes it
taller than the text height). A figure is printed at that width over its SVG's width in user
units (the viewBox's, else its width attribute), so a text of font-size S (inherited from the
SVG's groups, times any scale() of a transform above it) prints at S times that scale, in
PostScript points. The page is read from the source's geometry (A4, margin=1.8cm: 493.2 pt of
text width, 739.8 pt of text height).

Fails (exit 1), one line per figure, when a text of a figure prints below --min points (8 unless
told), naming the figure, its printed width, the smallest text and its printed size; a figure
whose SVG cannot be found is a failure too. --report prints every figure's smallest printed size
(also when all pass). Standard library only.
"""
import argparse
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
MM = 72 / 25.4  # PostScript points per millimetre
PAPERS = {"a4paper": (210, 297), "letterpaper": (215.9, 279.4)}


def page_of(tex):
    """(text width, text height) in points from the geometry pandoc writes:
    \\usepackage[margin=1.8cm,a4paper]{geometry} (only a margin in cm or mm is understood)."""
    m = re.search(r"\\usepackage\[([^\]]*)\]\{geometry\}", tex)
    opts = dict(o.split("=", 1) if "=" in o else (o, "") for o in (m.group(1).split(",") if m else []))
    paper = next((PAPERS[o] for o in opts if o in PAPERS), PAPERS["a4paper"])
    margin = opts.get("margin", "1.8cm")
    mm = float(re.match(r"[\d.]+", margin).group(0)) * (10 if margin.endswith("cm") else 1)
    return (paper[0] - 2 * mm) * MM, (paper[1] - 2 * mm) * MM


def length(value, default=None):
    """An SVG length in user units (px, or unitless); None where it is a percentage or absent."""
    if value is None:
        return default
    m = re.fullmatch(r"\s*([\d.]+)\s*(px)?\s*", value)
    return float(m.group(1)) if m else default


def scale_of(transform):
    """The factor by which a transform scales text (scale(), matrix(); rotate and translate: 1)."""
    factor = 1.0
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", transform or ""):
        nums = [float(x) for x in re.split(r"[\s,]+", args.strip()) if x]
        if name == "scale" and nums:
            factor *= (abs(nums[0] * (nums[1] if len(nums) > 1 else nums[0]))) ** 0.5
        elif name == "matrix" and len(nums) == 6:
            factor *= abs(nums[0] * nums[3] - nums[1] * nums[2]) ** 0.5
    return factor


def style_font_size(el):
    m = re.search(r"font-size\s*:\s*([\d.]+)(px)?", el.get("style") or "")
    return float(m.group(1)) if m else None


def texts(svg_path):
    """(width, height, [(font size in user units, the text)]) of an SVG file."""
    root = ET.parse(svg_path).getroot()
    box = (root.get("viewBox") or "").replace(",", " ").split()
    if len(box) == 4:
        width, height = float(box[2]), float(box[3])
    else:
        width, height = length(root.get("width")), length(root.get("height"))
    out = []

    def walk(el, size, scale):
        size = style_font_size(el) or length(el.get("font-size"), size)
        scale *= scale_of(el.get("transform"))
        if el.tag in (NS + "text", NS + "tspan"):
            own = (el.text or "").strip()
            if own:
                out.append((size * scale, own))
        for child in el:
            walk(child, size, scale)
            if el.tag in (NS + "text", NS + "tspan") and (child.tail or "").strip():
                out.append((size * scale, child.tail.strip()))
    walk(root, 16.0, 1.0)  # 16 px: the SVG default font size
    return width, height, out


def figures_of(tex_path):
    """[(the SVG path, printed width in points, printed height)] of each figure a LaTeX source
    includes."""
    tex = open(tex_path, encoding="utf-8").read()
    textwidth, textheight = page_of(tex)
    found = []
    for opts, pdf in re.findall(r"\\includegraphics(?:\[([^\]]*)\])?\{([^}]+)\}", tex):
        m = re.search(r"width=([\d.]*)\\(?:textwidth|linewidth)", opts or "")
        fraction = float(m.group(1) or 1) if m else None
        found.append((pdf, fraction, textwidth, textheight, "height=\\textheight" in (opts or "")))
    return found


def source_svg(pdf):
    """The SVG a converted figure was made from: its name is the SVG's path with '/' and '.' as
    '_' after '<handout>_md-<edition>-'; looked for under handouts/figures/ and the generated
    folder (the PDF's folder's parent)."""
    name = os.path.splitext(os.path.basename(pdf))[0]
    m = re.search(r"-(?:student|instructor)-(.*)$", name)
    if not m:
        return None
    want = m.group(1)
    gen = os.path.dirname(os.path.dirname(pdf))
    for cand in glob.glob("handouts/figures/*.svg") + glob.glob(os.path.join(gen, "*.svg")):
        if re.sub(r"[/.]", "_", os.path.normpath(cand) if not cand.startswith("./") else cand[2:]) == want \
                or re.sub(r"[/.]", "_", cand) == want:
            return cand
    return None


def check(tex_path, minimum, report):
    problems, lines = [], []
    for pdf, fraction, textwidth, textheight, capped in figures_of(tex_path):
        svg = source_svg(pdf)
        if not svg:
            problems.append(f"{tex_path}: {pdf}: its SVG is not found (handouts/figures/, {os.path.dirname(os.path.dirname(pdf))})")
            continue
        width, height, fonts = texts(svg)
        if not width or not height:
            problems.append(f"{svg}: no width (viewBox or width attribute in px)")
            continue
        if fraction is None:  # natural size (rsvg-convert: 1 px = 0.75 pt), at most the text width
            printed = min(width * 0.75, textwidth)
        else:
            printed = fraction * textwidth
        scale = printed / width
        if capped and height * scale > textheight:
            scale = textheight / height
        if not fonts:
            lines.append(f"{svg}: printed {width * scale:.0f} pt wide, no text")
            continue
        size, words = min(fonts, key=lambda f: f[0])
        lines.append(f"{svg}: printed {width * scale:.0f} pt wide ({scale:.3f} pt a unit): smallest text "
                     f"{size * scale:.1f} pt ({size:g} units: {words[:40]!r})")
        if size * scale < minimum - 1e-9:
            small = sum(1 for s, _ in fonts if s * scale < minimum - 1e-9)
            problems.append(f"{tex_path}: {svg}: {small} of {len(fonts)} texts print below {minimum:g} pt, the "
                            f"smallest at {size * scale:.1f} pt ({size:g} units at {printed:.0f} pt for "
                            f"{width:g} units: {words[:40]!r})")
    return problems, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tex", nargs="+")
    ap.add_argument("--min", type=float, default=8.0, help="the smallest printed size allowed, in points")
    ap.add_argument("--report", action="store_true", help="print every figure's smallest printed text")
    args = ap.parse_args()
    problems = []
    for tex in args.tex:
        p, lines = check(tex, args.min, args.report)
        problems += p
        if args.report:
            print("\n".join(f"{tex}: {l}" for l in lines))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
