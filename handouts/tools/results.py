#!/usr/bin/env python3
"""Builds the "Measured results" section of each lab's handout from the benchmark files.

Reads every bench/results/<device>.json that `make bench` wrote (bench/run.sh: {"device",
"date", "labs": [the JSON of each solution's --bench run, see common/report.cpp write_json]})
and handouts/data/book-c2070.json (the book's Tesla C2070 timings), and writes, for each lab
number given on the command line:

  OUT/results-NN.md    Markdown: one table per device, the speed targets, the lab's contrasts
                       (how much faster one variant is than another), a plot, the times
                       predicted for GPUs nobody measured (predictions.py), the book's
                       figures beside today's where the book has them, the formulas
  OUT/results-NN-<device>.svg   the plot (ratio of every variant to its yardstick)

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


def plot_svg(rows, title):
    """A horizontal bar chart of rows [(label, ratio, passed)] as SVG text."""
    bar_h, gap, left, width = 16, 6, 230, 380
    top = 34
    peak = max([r for _, r, _ in rows] + [1.0])
    scale = width / (peak * 1.08)
    height = top + len(rows) * (bar_h + gap) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 70}" '
           f'height="{height}" font-family="DejaVu Sans" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="8" y="18" font-size="12" font-weight="bold">{html.escape(title)}</text>']
    for i, (label, ratio, _) in enumerate(rows):
        y = top + i * (bar_h + gap)
        w = max(1.0, ratio * scale)
        colour = "#2f6db5" if ratio < 1.0 else "#2e8b57"
        out.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">{html.escape(label)}</text>')
        out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{colour}"/>')
        out.append(f'<text x="{left + w + 4:.1f}" y="{y + 12}">{ratio:.2f}</text>')
    axis_y = top + len(rows) * (bar_h + gap)
    one = left + scale
    out.append(f'<line x1="{one:.1f}" y1="{top - 4}" x2="{one:.1f}" y2="{axis_y}" '
               'stroke="#c0392b" stroke-dasharray="4,3"/>')
    out.append(f'<text x="{one:.1f}" y="{axis_y + 14}" text-anchor="middle" fill="#c0392b">'
               '1.0 = yardstick</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def load_optional(path):
    if not path or not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def device_section(nn, fname, data, runs, out_dir, heading, current=None, stretch=()):
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
    bars = []
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
            if r.get("ratio") is not None and r.get("status") != "REF":
                bars.append((f"{r.get('variant')} {r.get('size')}", float(r["ratio"]),
                             r.get("status") == "PASS"))
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
    if bars:
        svg = f"results-{nn}-{os.path.splitext(fname)[0]}.svg"  # fname: <device slug>.json
        with open(os.path.join(out_dir, svg), "w", encoding="utf-8") as f:
            f.write(plot_svg(bars, f"Lab {nn} on {name}: ratio to the yardstick"))
        md.append(f"![Lab {nn} on {name}: each variant's rate as a ratio to the yardstick "
                  f"measured in the same run (1.0 = as fast as the yardstick).]"
                  f"({os.path.join(out_dir, svg)}){{width=95%}}\n")
    return md


def scorecard_section(nn, bench_dir, out_dir, current):
    """The reference's scorecard (tools/scorecard.py), the card a student draws with make
    scorecard: the first GPU's run beside every GPU measured, the targets marked."""
    refs = scorecard.references([bench_dir], nn)
    if not refs:
        return []
    name, run = refs[0]
    card = scorecard.model(run, refs[1:], current)
    svg = f"results-{nn}-scorecard.svg"
    with open(os.path.join(out_dir, svg), "w", encoding="utf-8") as f:
        f.write(scorecard.draw(card, target_table=False, subject="The reference solution's run",
                               legend=f"reference, {name}"))
    return ["### Scorecard\n",
            f"The card `make scorecard LAB={nn}` draws from a run (`tools/scorecard.py`), here for the "
            f"reference solution on the {name} beside the other GPUs it was measured on; your own run's "
            f"card (`make scorecard LAB={nn}`, or the notebook's last cell) sets your GPU's bars "
            "beside all of these.\n",
            f"![Lab {nn}, the reference solution's scorecard: each variant's ratio to the yardstick "
            f"on every GPU measured, the speed targets marked, and each variant against the copy "
            f"bandwidth and the FP32 peak.]({os.path.join(out_dir, svg)}){{width=85%}}\n"]


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
            for fname, data, runs in measured:
                md += device_section(nn, fname, data, runs, args.out, "###", current.get(nn),
                                     stretch.get(nn, []))
        else:
            md.append("*Results pending.* No file in `bench/results/` holds lab "
                      f"{nn} yet. On a machine with a GPU, `make bench` runs every solution at its "
                      "benchmark sizes and writes `bench/results/<device>.json`; "
                      "`make handouts` then builds this section from it: one table per GPU, the "
                      "speed targets and a plot.\n")
        if measured:
            runs = [run for _, _, lab_runs_of_file in measured for run in lab_runs_of_file]
            md += predictions.section(nn, predictions.basis(runs, gpus), gpus)
            md += scorecard_section(nn, args.bench_dir, args.out, current.get(nn))
        md += book_section(nn, book, [(f, d) for f, d, _ in measured])
        md += ncu_section(nn, args.bench_dir)
        md.append(FORMULAS)
        with open(os.path.join(args.out, f"results-{nn}.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
