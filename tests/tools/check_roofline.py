#!/usr/bin/env python3
"""Checks the roofline of a scorecard SVG (tools/scorecard.py) against what it was drawn from.

  check_roofline.py CARD.svg RESULTS.json          a lab's --json results
  check_roofline.py CARD.svg FIGURES.json --grader the grader's figures (NAME.roofline.json)

Recomputes every point from the counts and the time (FLOP per byte = roofline_flops /
roofline_bytes, GFLOP/s = roofline_flops / time) and its place from the plot's axes (data-log-*
and its box), independently of the scorecard's code, and fails, one line per problem, when: a
placed row has no point, or its point is elsewhere; a point is drawn for a row that cannot be
placed; a point past its ceiling (more than 1.15 x the copy bandwidth x its intensity, or the
FP32 peak given with --peak) is not hollow and flagged, or one within is; a row that cannot be
placed is not listed as not placed; a text of the roofline (its group rl-section: the legend, each
point in words, the rows not placed, the notes) or of the card's legend runs past the picture's
width, taking a character of DejaVu Sans as 0.6 em wide (its mean advance is about 0.55 em).
"""
import argparse
import json
import math
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def rows_of(path, grader, ms_key="student_ms"):
    data = json.load(open(path, encoding="utf-8"))
    if not grader:
        return data["results"], (data.get("device") or {}).get("copy_gbs")
    rows = [{"variant": t["variant"], "size": t["size"], "time_ms": t[ms_key], "status": "PASS",
             "roofline_bytes": t.get("roofline_bytes"), "roofline_flops": t.get("roofline_flops")} for t in data["tests"]]
    return rows, data.get("copy_gbs")


def position(plot, intensity, gflops):
    g = {k: float(plot.get("data-" + k)) for k in ("log-x0", "log-x1", "log-y0", "log-y1", "left", "top", "width", "height")}
    return (g["left"] + (math.log10(intensity) - g["log-x0"]) / (g["log-x1"] - g["log-x0"]) * g["width"],
            g["top"] + g["height"] - (math.log10(gflops) - g["log-y0"]) / (g["log-y1"] - g["log-y0"]) * g["height"])


CHAR_EM = 0.6


def texts_past_edge(svg):
    """One line for each text of the roofline or of the legend that ends past the picture's right
    edge (a text anchored at its start: x plus its characters at CHAR_EM of its font size)."""
    width, size = float(svg.get("width")), float(svg.get("font-size") or 11)
    section = next((e for e in svg.iter(NS + "g") if e.get("class") == "rl-section"), None)
    texts = list(section.iter(NS + "text")) if section is not None else \
        [e for e in svg.iter(NS + "text") if (e.get("class") or "").startswith(("rl-", "ceiling-note"))]
    texts += [e for e in svg.iter(NS + "text") if e.get("class") == "legend" and e not in texts]
    out = []
    for e in texts:
        if e.get("text-anchor") in ("middle", "end"):
            continue
        # its lines: its own text, then each tspan with an x of its own starts another
        lines = [[float(e.get("x", 0)), e.text or ""]]
        for t in e.iter(NS + "tspan"):
            if t.get("x") is not None:
                lines.append([float(t.get("x")), ""])
            lines[-1][1] += (t.text or "") + (t.tail or "")
        for x, words in lines:
            end = x + len(words.rstrip()) * float(e.get("font-size") or size) * CHAR_EM
            if end > width:
                out.append(f"text past the picture's edge ({end:.0f} of {width:.0f} px): {words[:80]}")
    if section is None:
        out.append("no roofline section (g class rl-section)")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("svg")
    ap.add_argument("source")
    ap.add_argument("--grader", action="store_true")
    ap.add_argument("--peak", type=float, help="the FP32 peak (GFLOP/s) the card should use")
    args = ap.parse_args()
    rows, copy = rows_of(args.source, args.grader)
    els = list(ET.parse(args.svg).getroot().iter())
    plot = next((e for e in els if e.get("class") == "rl-plot"), None)
    points = {(e.get("data-variant"), e.get("data-size")): e for e in els
              if e.tag == NS + "circle" and "rl-yours" in (e.get("class") or "").split()}
    unplaced = {(e.get("data-variant"), e.get("data-size")) for e in els if e.get("class") == "rl-unplaced"}
    problems = []
    for r in rows:
        key = (r["variant"], r["size"])
        f, b, t = r.get("roofline_flops"), r.get("roofline_bytes"), r.get("time_ms")
        placeable = r.get("status") in ("PASS", "REF") and f and b and t
        if not placeable:
            if key in points:
                problems.append(f"{key}: drawn, but it has no counts or did not pass")
            if key not in unplaced:
                problems.append(f"{key}: not listed as not placed")
            continue
        p = points.get(key)
        if p is None or plot is None:
            problems.append(f"{key}: placeable but no point")
            continue
        intensity, gflops = f / b, f / (t * 1e6)
        cx, cy = position(plot, intensity, gflops)
        if abs(float(p.get("cx")) - cx) > 0.05 or abs(float(p.get("cy")) - cy) > 0.05:
            problems.append(f"{key}: point at ({p.get('cx')}, {p.get('cy')}), its counts put it at ({cx:.2f}, {cy:.2f})")
        past = (args.peak is not None and gflops > args.peak) or bool(copy and gflops > 1.15 * copy * intensity)
        flagged = "rl-beyond" in p.get("class").split() and p.get("fill") == "none"
        if past != flagged:
            problems.append(f"{key}: {gflops:.4g} GFLOP/s at {intensity:.4g} FLOP/byte is "
                            f"{'past' if past else 'within'} its ceiling but {'not ' if not flagged else ''}drawn as past it")
    if args.grader and plot is not None:  # the reference's squares, from its own time
        squares = {(e.get("data-variant"), e.get("data-size")): e for e in els
                   if e.tag == NS + "rect" and "rl-reference" in (e.get("class") or "").split()}
        for r in rows_of(args.source, True, "reference_ms")[0]:
            f, b, t = r.get("roofline_flops"), r.get("roofline_bytes"), r.get("time_ms")
            sq = squares.get((r["variant"], r["size"]))
            if f and b and t:
                x, y = position(plot, f / b, f / (t * 1e6))
                if sq is None or abs(float(sq.get("x")) + 3.5 - x) > 0.06 or abs(float(sq.get("y")) + 3.5 - y) > 0.06:
                    problems.append(f"{(r['variant'], r['size'])}: the reference's point is not at ({x:.2f}, {y:.2f})")
    problems += texts_past_edge(ET.parse(args.svg).getroot())
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
