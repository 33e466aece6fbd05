#!/usr/bin/env python3
"""Builds the "Measured results" section of each lab's handout from the benchmark files.

Reads every bench/results/<device>.json that `make bench` wrote (bench/run.sh: {"device",
"date", "labs": [the JSON of each solution's --bench run, see common/report.cpp write_json]})
and handouts/data/book-c2070.json (the book's Tesla C2070 timings), and writes, for each lab
number given on the command line:

  OUT/results-NN.md    Markdown: one chart of every GPU's ratios, then one table per device,
                       the speed targets, the lab's contrasts (how much faster one variant is
                       than another), the times predicted for GPUs nobody measured
                       (predictions.py), the book's figures beside today's where the book has
                       them, the formulas. The reference's numbers once: no chart per GPU and no
                       scorecard (the student's own card, make scorecard, draws the roofline)
  OUT/results-NN-chart.svg   the chart: each variant's ratio to its yardstick, one bar per GPU,
                       the speed targets marked; its text prints at 9.5 pt at the text's width

Standard library only. Usage: results.py --bench-dir bench/results --out DIR 01 02 ...
"""
import argparse
import glob
import html
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BOOK = os.path.join(HERE, "..", "data", "book-c2070.json")
STRETCH = os.path.join(HERE, "..", "data", "stretch.json")
TARGETS = os.path.join(HERE, "..", "..", "bench", "targets.json")
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)
import scorecard  # noqa: E402  (tools/scorecard.py)
import predictions  # noqa: E402  (handouts/tools/predictions.py)
from scorecard import judge_targets  # noqa: E402


def fmt(value, digits):
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def fmt_time(ms):
    if ms is None:
        return "–"
    return fmt(ms, 1 if ms >= 100 else (2 if ms >= 10 else (3 if ms >= 1 else 4)))


def load_bench(bench_dir):
    """[(file name, device json)] for every readable results file, sorted by name."""
    files = []
    for path in sorted(glob.glob(os.path.join(bench_dir, "*.json"))):
        if path.endswith(".grading.json"):
            continue  # make bench-grading's submissions per hour, not lab timings
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"results.py: {path} is not valid JSON: {e}")
        if not isinstance(data, dict) or "labs" not in data:
            continue  # some other JSON (not written by make bench)
        files.append((os.path.basename(path), data))
    return files


def lab_runs(data, nn):
    return [run for run in data.get("labs", []) if str(run.get("lab", "")).startswith(nn + "-")]


def size_matches(size, n):
    parts = str(size).lower().split("x")
    return all(p == str(n) for p in parts)


# The chart: printed at the text's full width (493 pt on A4) its 520 units are 0.95 pt each, so
# that its smallest text (10 units) prints at 9.5 pt (tests/tools/figure_fonts.py: at least 8); and
# it is at most CHART_HEIGHT units tall (660 pt), so that with its caption it fits a page (740 pt
# of text height): the bars get thinner where a lab has many rows.
CHART_WIDTH, CHART_FONT, CHART_HEIGHT = 520, 10, 695
GPU_COLOURS = ["#2f6db5", "#c98b2b", "#6b8e23", "#8e44ad", "#16a085"]


def chart_rows(measured):
    """[(variant, size, [ratio or None per GPU])] of every timed variant and size in the order the
    first GPU measured them (the yardstick's own rows left out: 1.0 by definition)."""
    groups = []
    for i, (_, _, runs) in enumerate(measured):
        for run in runs:
            for r in run.get("results", []):
                if r.get("status") == "REF":
                    continue
                key = (r.get("variant"), str(r.get("size")))
                g = next((g for g in groups if g[:2] == key), None)
                if g is None:
                    g = (key[0], key[1], [None] * len(measured))
                    groups.append(g)
                if r.get("ratio") is not None and g[2][i] is None:
                    g[2][i] = float(r["ratio"])
    return [g for g in groups if any(x is not None for x in g[2])]


def chart_svg(measured, names, targets):
    """One horizontal bar chart of every GPU's ratios (one bar per GPU in each variant's group, the
    speed targets as red lines across the groups they judge), as SVG text. Every bar carries its
    GPU, variant, size and ratio in data-* attributes."""
    rows = chart_rows(measured)
    font, width = CHART_FONT, CHART_WIDTH
    nd = len(names)
    legend_h = 16 + 15 * (1 if targets else 0) + 15 * int(sum(24 + scorecard.text_width(n, font) for n in names) / width)
    room_h = CHART_HEIGHT - legend_h - 12 - 18  # the groups' height: less the legend, the axis line
    per_group = room_h / max(1, len(rows))
    gap = 7 if per_group >= nd * 11 + 7 else 5  # between the groups: less where room is short
    bar_h = max(3, min(10, int((per_group - gap) / nd) - 1))
    group_h = nd * (bar_h + 1) + gap
    values = bar_h >= 9  # a ratio beside its bar where the bars are thick enough for its text
    left = 12 + max(scorecard.text_width(f"{v} {s}", font) for v, s, _ in rows)
    room = width - left - 40  # the value after the longest bar
    peak = max([x for _, _, rs in rows for x in rs if x is not None] + [t["min_ratio"] for t in targets] + [1.0])
    scale = room / peak
    out, y = [], 16
    lx = 8
    for i, name in enumerate(names):  # the legend: one colour per GPU, on as many lines as needed
        w = 14 + scorecard.text_width(name, font)
        if lx > 8 and lx + w > width - 8:
            lx, y = 8, y + 15
        out.append(f'<rect x="{lx}" y="{y - 9}" width="10" height="10" fill="{GPU_COLOURS[i % len(GPU_COLOURS)]}"/>')
        out.append(f'<text class="legend" x="{lx + 14}" y="{y}">{html.escape(name)}</text>')
        lx += w + 12
    if targets:
        y += 15
        out.append(f'<line x1="10" y1="{y - 10}" x2="10" y2="{y + 1}" stroke="#c0392b" stroke-width="2"/>')
        out.append(f'<text class="legend" x="18" y="{y}" fill="#c0392b">a speed target (its table above)</text>')
    top = y + 12
    y = top
    for variant, size, ratios in rows:
        out.append(f'<text class="label" x="{left - 6}" y="{y + (nd * (bar_h + 1)) / 2 + 3.5:.1f}" text-anchor="end" '
                   f'data-variant="{html.escape(variant)}" data-size="{html.escape(size)}">{html.escape(f"{variant} {size}")}</text>')
        for i, ratio in enumerate(ratios):
            by = y + i * (bar_h + 1)
            if ratio is None:
                out.append(f'<text class="nobar" x="{left + 4}" y="{by + bar_h - 1}" fill="#777" '
                           f'data-device="{html.escape(names[i])}">–</text>')
                continue
            w = max(1.0, ratio * scale)
            out.append(f'<rect class="bar" x="{left}" y="{by}" width="{w:.1f}" height="{bar_h}" '
                       f'fill="{GPU_COLOURS[i % len(GPU_COLOURS)]}" data-device="{html.escape(names[i])}" '
                       f'data-variant="{html.escape(variant)}" data-size="{html.escape(size)}" data-ratio="{ratio:.6g}"/>')
            if values:
                out.append(f'<text x="{left + w + 3:.1f}" y="{by + bar_h - 1}">{ratio:.2f}</text>')
        for t in targets:
            if (t["variant"], str(t["size"])) == (variant, size):
                x = left + t["min_ratio"] * scale
                out.append(f'<line class="target" x1="{x:.1f}" y1="{y - 2}" x2="{x:.1f}" y2="{y + nd * (bar_h + 1) + 1}" '
                           f'stroke="#c0392b" stroke-width="2" data-variant="{html.escape(variant)}" '
                           f'data-size="{html.escape(size)}" data-min-ratio="{t["min_ratio"]:.6g}"/>')
        y += group_h
    one = left + scale
    out.append(f'<line x1="{one:.1f}" y1="{top - 4}" x2="{one:.1f}" y2="{y}" stroke="#444" stroke-dasharray="4,3"/>')
    out.append(f'<text x="{min(one, width - 60):.1f}" y="{y + 12}" text-anchor="middle" fill="#444">1.0 = the yardstick</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 18}" '
            f'font-family="DejaVu Sans" font-size="{font}">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(out) + "\n</svg>\n")


def chart_section(nn, measured, out_dir, current):
    """The one chart of the measured results: every GPU's ratios side by side, the targets the lab
    declares now marked on the bars they judge; then where the student's own card is."""
    names = []
    for fname, data, runs in measured:
        dev = runs[0].get("device", {})
        names.append(dev.get("name") or data.get("device", "unknown GPU"))
    first = measured[0][2][0]
    declared = current if current is not None else first.get("targets", [])
    marks = [t for t in declared if scorecard.on_bar(first, t.get("yardstick", t.get("against")))]
    if not chart_rows(measured):
        return []
    svg = f"results-{nn}-chart.svg"
    with open(os.path.join(out_dir, svg), "w", encoding="utf-8") as f:
        f.write(chart_svg(measured, names, marks))
    ratio_to = first.get("ratio_to") or "the measured copy bandwidth"
    return [f"![Lab {nn}, the reference solution on {' and '.join(names)}: each variant's rate as a ratio "
            f"to its yardstick measured in the same run ({ratio_to}; 1.0 = as fast as the yardstick), "
            f"one bar per GPU; red lines: the speed targets.]({os.path.join(out_dir, svg)}){{width=100%}}\n",
            "The chart shows the ratios of the tables below, every GPU's side by side. Your own run's "
            f"scorecard (`make scorecard LAB={nn}`, or the notebook's last cell) draws your GPU's bars "
            "beside these, with each variant against the copy bandwidth and the FP32 peak and its "
            "place on the roofline.\n"]


def load_optional(path):
    if not path or not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def device_section(nn, fname, data, runs, heading, current=None, stretch=()):
    md = []
    dev = runs[0].get("device", {})
    name = dev.get("name") or data.get("device", "unknown GPU")
    date = (runs[0].get("date") or data.get("date") or "")[:10]  # the lab's own run
    md.append(f"{heading} {name}\n")
    md.append(f"Measured by `make bench` on {date} (file `{fname}`): compute "
              f"capability {dev.get('compute_capability', '?')}, {dev.get('sms', '?')} SMs, "
              f"{fmt(dev.get('memory_gib'), 0)} GiB, L2 {dev.get('l2_mib', '?')} MiB, measured "
              f"device-to-device copy {fmt(dev.get('copy_gbs'), 0)} GB/s; CUDA runtime "
              f"{dev.get('cuda_runtime', '?')}, driver {dev.get('cuda_driver', '?')}.\n")
    for run in runs:
        ratio_to = run.get("ratio_to") or "the measured copy bandwidth"
        rows = run.get("results", [])
        has_gbs = any(r.get("gbs") is not None for r in rows)
        has_gfl = any(r.get("gflops") is not None for r in rows)
        head = ["variant", "size", "time (ms)"]
        align = ["---", "--:", "--:"]
        if has_gbs:
            head.append("GB/s"); align.append("--:")
        if has_gfl:
            head.append("GFLOP/s"); align.append("--:")
        head += [f"ratio to {ratio_to}", "check"]
        align += ["--:", "---"]
        md.append(f"Program `{run.get('program', '?')}`, mode {run.get('mode', '?')}:\n")
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + "|".join(align) + "|")
        for r in rows:
            cells = [f"`{r.get('variant', '?')}`", str(r.get("size", "")), fmt_time(r.get("time_ms"))]
            if has_gbs:
                cells.append(fmt(r.get("gbs"), 1))
            if has_gfl:
                cells.append(fmt(r.get("gflops"), 1))
            cells += [fmt(r.get("ratio"), 2), r.get("status", "")]
            md.append("| " + " | ".join(cells) + " |")
        md.append("")
        # The targets the lab declares now (bench/targets.json), judged on this run's rows: the
        # file records those of its day, which may have moved since.
        targets = judge_targets(run, current) if current is not None else run.get("targets", [])
        if targets:
            md.append("| speed target | needed | measured | |")
            md.append("|---|--:|--:|---|")
            for t in targets:
                met = {True: "met", False: "**missed**", None: "not run"}[t.get("met")]
                md.append(f"| `{t.get('variant')}` at {t.get('size')} vs {t.get('yardstick')} | "
                          f"{fmt(t.get('min_ratio'), 2)} | {fmt(t.get('ratio'), 2)} | {met} |")
            md.append("")
        goals = judge_targets(run, list(stretch))
        if goals:
            md.append("| stretch goal (beyond the targets) | aim | measured | |")
            md.append("|---|--:|--:|---|")
            for g, s in zip(goals, stretch):
                reached = {True: "reached", False: "not yet", None: "not run"}[g["met"]]
                md.append(f"| {s.get('goal', 'stretch')}: `{g['variant']}` at {g['size']} vs {g['yardstick']} | "
                          f"{fmt(g['min_ratio'], 2)} | {fmt(g['ratio'], 3)} | {reached} |")
            md.append("")
        contrasts = run.get("contrasts", [])
        if contrasts:
            md.append("| compared | size | gain |")
            md.append("|---|--:|--:|")
            for c in contrasts:
                md.append(f"| {c.get('label')}: `{c.get('variant')}` over `{c.get('over')}` | "
                          f"{c.get('size')} | {fmt(c.get('gain'), 2)}× |")
            md.append("")
    return md


def book_section(nn, book, bench):
    rows = [r for r in book.get("rows", []) if nn in r.get("labs", [])]
    if not rows:
        return []
    n = book["size"]
    flops = 2.0 * n ** 3
    md = [f"### Then and now: the book's {book['device']}\n",
          f"{book['source']} Size {n}×{n}; GFLOP/s = 2·N³ / (t · 10⁹), so "
          f"2·{n}³ = {flops / 1e9:.2f}·10⁹ operations; ratios are to CUBLAS on the same GPU.\n"]
    by_table = {}
    for r in rows:
        by_table.setdefault(r["table"], []).append(r)
    devices = [data for _, data in bench]
    for table, trs in by_table.items():
        book_ref = next((r["time_ms"] for r in trs if r.get("yardstick")), None)
        # One table per GPU, so that several measured GPUs never make a table wider than a page.
        for data in devices or [None]:
            name = data.get("device", "?") if data else None
            md.append(f"{trs[0]['operation']}: the book's table {table} ({book['device']}, left)"
                      + (f"; right: {name} (variant, ms, GFLOP/s, ratio), the same size." if data else ".") + "\n")
            head = ["method", "ms", "GFLOP/s", "ratio"] + (["variant", "ms", "GFLOP/s", "ratio"] if data else [])
            # Separator widths set the column proportions in the PDF (the table is wider than
            # 72): room for "GFLOP/s" and "50,273.5" at 10 pt.
            md.append("| " + " | ".join(head) + " |")
            md.append("|" + "-" * 18 + "|------:|--------:|------:|"
                      + ("------------|-------:|---------:|------:|" if data else ""))
            for r in trs:
                cells = [r["method"], fmt_time(r["time_ms"]), fmt(flops / (r["time_ms"] * 1e6), 1),
                         fmt(book_ref / r["time_ms"], 3) if book_ref else "–"]
                if data:
                    found = None
                    for run in lab_runs(data, r["match"]["lab"]):
                        for row in run.get("results", []):
                            if row.get("variant") in r["match"]["variants"] and \
                                    size_matches(row.get("size"), n) and row.get("time_ms"):
                                found = found or row
                    if found:
                        ratio = found.get("ratio")
                        if found.get("status") == "REF" or ratio is None and r.get("yardstick"):
                            ratio = 1.0
                        cells += [f"`{found['variant']}`", fmt_time(found["time_ms"]),
                                  fmt(flops / (found["time_ms"] * 1e6), 1), fmt(ratio, 3)]
                    else:
                        cells += [" / ".join(f"`{v}`" for v in r["match"]["variants"][:1]) +
                                  " (not measured)", "–", "–", "–"]
                md.append("| " + " | ".join(cells) + " |")
            md.append("")
    return md


def ncu_section(nn, bench_dir):
    """bench/results/ncu-labNN.md (Nsight Compute counters recorded by the lab's author), with
    its headings moved below the handout's own."""
    path = os.path.join(bench_dir, f"ncu-lab{nn}.md")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = ["### Nsight Compute counters\n", f"Recorded in `{os.path.basename(path)}`:\n",
           "::::::::: small"]
    for line in lines:
        out.append("##" + line if re.match(r"#{1,4} ", line) else line)
    out += ["", ":::::::::", ""]
    return out


FORMULAS = ("Formulas: GB/s = bytes that must move through device memory / (t · 10⁹); "
            "GFLOP/s = 2·M·N·K / (t · 10⁹) for a product (2·N³ for square matrices); the ratio "
            "is a variant's rate divided by the yardstick's rate measured in the same run "
            "(cuBLAS for products, otherwise the measured device-to-device copy bandwidth, bytes "
            "read + written). t is the median of the timed repetitions, with the L2 cache "
            "flushed between repetitions when the data would fit in it.\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-dir", default="bench/results")
    ap.add_argument("--book", default=BOOK)
    ap.add_argument("--targets", default=TARGETS,
                    help="the targets the labs declare now ({\"NN\": [...]}; bench/targets.json)")
    ap.add_argument("--stretch", default=STRETCH, help="stretch goals ({\"NN\": [...]})")
    ap.add_argument("--gpus", default=predictions.GPUS,
                    help="published figures of GPUs, and those to predict (handouts/data/gpus.json)")
    ap.add_argument("--out", required=True)
    ap.add_argument("labs", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(args.book, encoding="utf-8") as f:
        book = json.load(f)
    bench = load_bench(args.bench_dir)
    current, stretch = load_optional(args.targets), load_optional(args.stretch)
    gpus = predictions.load_gpus(args.gpus)
    for nn in args.labs:
        if not re.fullmatch(r"\d\d", nn):
            sys.exit(f"results.py: lab numbers are two digits, got {nn!r}")
        md = []
        measured = [(fname, data, lab_runs(data, nn)) for fname, data in bench]
        measured = [m for m in measured if m[2]]
        if measured:
            md += chart_section(nn, measured, args.out, current.get(nn))
            for fname, data, runs in measured:
                md += device_section(nn, fname, data, runs, "###", current.get(nn),
                                     stretch.get(nn, []))
        else:
            md.append("*Results pending.* No file in `bench/results/` holds lab "
                      f"{nn} yet. On a machine with a GPU, `make bench` runs every solution at its "
                      "benchmark sizes and writes `bench/results/<device>.json`; "
                      "`make handouts` then builds this section from it: one chart of every GPU, "
                      "one table per GPU and the speed targets.\n")
        if measured:
            runs = [run for _, _, lab_runs_of_file in measured for run in lab_runs_of_file]
            md += predictions.section(nn, predictions.basis(runs, gpus), gpus)
        md += book_section(nn, book, [(f, d) for f, d, _ in measured])
        md += ncu_section(nn, args.bench_dir)
        md.append(FORMULAS)
        with open(os.path.join(args.out, f"results-{nn}.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
