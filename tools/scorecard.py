#!/usr/bin/env python3
"""A lab's scorecard: your run's speeds beside the reference solution's, drawn as SVG (and PNG).

  scorecard.py RESULTS.json [--lab NN] [--describe DESCRIBE.json] [--reference DIR]...
               [--out FILE.svg] [--png]

RESULTS.json is what `./labNN --json RESULTS.json` writes (common/report.cpp, write_json), or a
`make bench` file of several labs (bench/results/<device>.json; then --lab picks one). The card
shows, for every variant and size of your run, its ratio to the lab's yardstick (the measured
copy bandwidth, or cuBLAS, or the lab's own yardstick) beside the reference solution's ratio at
the same size on every GPU it was measured on (DIR/<device>.d/NN.json, from bench/results/ in the
course tree, reference/ in the student edition), with the speed targets marked on the bars they
judge, the variants your run lacks named, a table of every target (yours and the reference's,
judged against the targets the lab declares now: --describe, which `./labNN --describe` prints,
else --targets or the course tree's bench/targets.json, else the ones in RESULTS.json), and one point per variant against the hardware: achieved GB/s
over the measured copy bandwidth, achieved GFLOP/s over the GPU's FP32 peak.

Below it, the roofline: every passed, timed row placed by its arithmetic intensity (the
"roofline_flops" over the "roofline_bytes" its lab counts) and its GFLOP/s, log-log, under the
measured copy bandwidth's slope and the FP32 peak, the reference's point of the same row beside
it; a point past a ceiling is hollow and said to be no speed, and a row without both counts is
listed as not placed, with the reason (double-precision rows sit under the FP32 peak too, a
looser roof than their own). --grader-figures draws only that roofline, from the
figures the grader writes beside a submission's feedback (NAME.roofline.json).

Standard library only; the PNG goes through rsvg-convert (Debian: librsvg2-bin) when it is there.
Also a module: judge_targets() re-judges a run against current targets (handouts, bench checks).
"""
import argparse
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys

COPY = "copy bandwidth"
# FP32 peak GFLOP/s (boost clock, dense, no tensor cores) of the GPUs a class is likely to meet,
# by a lower-case fragment of the name the CUDA runtime reports; the first match wins.
FP32_PEAK_GFLOPS = [
    ("h100 pcie", 51220), ("h100", 66910), ("h200", 66910), ("gh200", 66910),
    ("a100", 19490), ("a10g", 31240), ("a10", 31240), ("a40", 37420), ("a30", 10320),
    ("l40s", 91610), ("l40", 90520), ("l4", 30290), ("t4", 8141), ("v100", 15670),
    ("p100", 9526), ("rtx 4090", 82580), ("rtx 3090", 35580), ("rtx 2080 ti", 13450),
]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_REFERENCE = [os.path.join(ROOT, "bench", "results"), os.path.join(ROOT, "reference")]


def slug(name):
    """bench/run.sh's file name of a device: lower case, runs of other characters as '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def fp32_peak(device_name):
    low = (device_name or "").lower()
    for fragment, peak in FP32_PEAK_GFLOPS:
        if fragment in low:
            return peak
    return None


class BadInput(Exception):
    """A file the card cannot be drawn from: said in one sentence, exit 2."""


def read_json(path, what):
    """A JSON file's content; a missing or unreadable one is a BadInput that names it."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise BadInput(f"cannot read {what} {path}: {e.strerror or e}")
    except ValueError as e:
        raise BadInput(f"{what} {path} is not valid JSON ({e}): a run cut short? run it again")


def load_run(path, lab=None):
    """One lab's run from a --json file, or from a make bench file of several labs; with lab,
    a run of another lab is refused."""
    data = read_json(path, "the results file")
    if isinstance(data, dict) and "labs" in data:
        runs = [r for r in data["labs"] if lab is None or str(r.get("lab", "")).startswith(lab + "-")]
        if len(runs) != 1:
            raise BadInput(f"{path} holds {len(data['labs'])} labs: name one with --lab NN"
                           if lab is None else f"{path} has no run of lab {lab}")
        return runs[0]
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise BadInput(f"{path} is not a lab's --json results (no list \"results\")")
    if lab is not None and lab_number(data) != lab:
        raise BadInput(f"{path} holds the results of lab {lab_number(data)}, not of lab {lab}: "
                       f"draw it with --lab {lab_number(data)}, or give lab {lab}'s results")
    return data


def lab_number(run):
    return str(run.get("lab", "??"))[:2]


def rate(row):
    if row.get("flops") and row.get("gflops"):
        return row["gflops"]
    return row.get("gbs")


def passed_row(run, variant, size):
    for r in run.get("results", []):
        if r.get("variant") == variant and r.get("size") == size and r.get("status") in ("PASS", "REF"):
            return r
    return None


def target_ratio(run, t):
    """A target's measured ratio in a run, as common/report.cpp evaluate_targets computes it."""
    row = passed_row(run, t["variant"], t["size"])
    if not row:
        return None
    yardstick = t.get("yardstick", t.get("against"))
    if yardstick == COPY:
        copy = (run.get("device") or {}).get("copy_gbs")
        return row["gbs"] / copy if row.get("gbs") and copy else None
    other = passed_row(run, yardstick, t["size"])
    if not other:
        return None
    a, b = rate(row), rate(other)
    if a and b and bool(row.get("flops")) == bool(other.get("flops")):
        return a / b
    if row.get("time_ms") and other.get("time_ms"):
        return other["time_ms"] / row["time_ms"]
    return None


def judge_targets(run, targets):
    """[{variant, size, min_ratio, yardstick, ratio, met, failed}] of `targets` (a --describe
    list, or a run's own) judged on the rows of `run`: met is None where the run did not measure
    it; failed says why where the row is there but did not pass (its TODO pointer kept)."""
    out = []
    for t in targets:
        ratio = target_ratio(run, t)
        row = next((r for r in run.get("results", []) if (r.get("variant"), r.get("size")) == (t["variant"], t["size"])
                    and r.get("status") not in ("PASS", "REF")), None)
        out.append({"variant": t["variant"], "size": t["size"], "min_ratio": t["min_ratio"],
                    "yardstick": t.get("yardstick", t.get("against")), "ratio": ratio,
                    "met": None if ratio is None else ratio >= t["min_ratio"],
                    "failed": failure(row) if row and ratio is None else None})
    return out


def on_bar(run, yardstick):
    """Whether a target against `yardstick` judges the ratio the bars show."""
    copy_lab = str(run.get("ratio_to", "")).startswith("measured copy")
    if yardstick == COPY:
        return copy_lab
    return not copy_lab and any(r.get("variant") == yardstick and r.get("status") == "REF"
                                for r in run.get("results", []))


def references(dirs, nn):
    """[(device name, run)] of the reference solution, one per GPU measured, by name."""
    found = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.d", f"{nn}.json"))):
            try:
                run = load_run(path)
            except BadInput:
                continue
            name = (run.get("device") or {}).get("name") or os.path.basename(os.path.dirname(path))
            found.setdefault(name, run)
    return sorted(found.items())


def todo_pointer(note):
    """"TODO(labNN) at FILE:LINE" where a row's note points at the work (common/todo_hint.cpp)."""
    m = re.search(r"TODO\(lab\d+\)(?: at [^\s;]+)?", note or "")
    return m.group(0) if m else None


def failure(row):
    """A row that did not pass, in a few words: its status, the note's start and, kept whole,
    the TODO pointer of the note."""
    note = " ".join((row.get("note") or "").split())
    pointer = todo_pointer(note)
    head = note.split("; see TODO(")[0].split("see TODO(")[0].rstrip("; ") if pointer else note
    if len(head) > 90:
        head = head[:89] + "…"
    return f"{row.get('status') or '?'}: {head or 'no ratio (the check failed)'}" + (f"; see {pointer}" if pointer else "")


def no_ratio(row):
    """Why a row has no bar."""
    status = row.get("status") or "?"
    if status in ("PASS", "REF"):
        t = f" in {row['time_ms']:.4g} ms" if row.get("time_ms") else ""
        return f"passed{t}; no ratio to the yardstick for this variant"
    if status == "FAIL":
        return failure(row)
    return f"{status}: no ratio (not timed)"


def size_key(size):
    prod = 1
    for p in str(size).lower().split("x"):
        prod *= int(p) if p.isdigit() else 1
    return prod


def model(run, refs, targets=None, declared=None):
    """What the card shows, as data (the SVG is drawn from it; the tests read both)."""
    nn = lab_number(run)
    targets_from = "what the lab declares now" if targets is not None else "this run"
    targets = targets if targets is not None else [
        {k: t[k] for k in ("variant", "size", "min_ratio", "yardstick")} for t in run.get("targets", [])]
    yours = run.get("results", [])
    groups = []
    for r in yours:
        if r.get("status") == "REF":
            continue
        key = (r.get("variant"), r.get("size"))
        if any((g["variant"], g["size"]) == key for g in groups):
            continue
        ref_ratios, ref_notes = [], []
        for name, ref in refs:
            row = next((x for x in ref.get("results", []) if (x.get("variant"), x.get("size")) == key), None)
            ratio = row.get("ratio") if row and row.get("status") in ("PASS", "REF") else None
            ref_ratios.append(ratio)
            ref_notes.append(None if ratio is not None else no_ratio(row) if row else "not measured at this size")
        marks = [t["min_ratio"] for t in targets
                 if (t["variant"], t["size"]) == key and on_bar(run, t.get("yardstick"))]
        groups.append({"variant": key[0], "size": key[1], "ratio": r.get("ratio"), "status": r.get("status"),
                       "note": None if r.get("ratio") is not None else no_ratio(r),
                       "refs": ref_ratios, "ref_notes": ref_notes, "targets": marks})
    have = {r.get("variant") for r in yours}
    expected = []
    for v in (declared or []):
        if not v.get("yardstick") and v["name"] not in expected:
            expected.append(v["name"])
    for _, ref in refs:
        for x in ref.get("results", []):
            if x.get("status") != "REF" and x.get("variant") not in expected:
                expected.append(x.get("variant"))
    for t in targets:
        if t["variant"] not in expected:
            expected.append(t["variant"])
    missing = [v for v in expected if v not in have]
    judged = judge_targets(run, targets)
    for j in judged:
        j["refs"] = [judge_targets(ref, [j])[0]["ratio"] for _, ref in refs]
    device = run.get("device") or {}
    peak = fp32_peak(device.get("name"))
    hardware = []
    variants = []
    for r in yours:
        if r.get("variant") not in variants:
            variants.append(r.get("variant"))
    for v in variants:
        rows = [r for r in yours if r.get("variant") == v and r.get("status") in ("PASS", "REF")
                and (r.get("gbs") or r.get("gflops"))]
        if not rows:
            continue
        r = max(rows, key=lambda x: size_key(x.get("size")))
        point = {"variant": v, "size": r.get("size"), "gbs": r.get("gbs"), "gflops": r.get("gflops"),
                 "bw_fraction": None, "peak_fraction": None}
        if r.get("gbs") and device.get("copy_gbs"):
            point["bw_fraction"] = r["gbs"] / device["copy_gbs"]
        if r.get("gflops") and peak:
            point["peak_fraction"] = r["gflops"] / peak
        point["beyond"] = [kind for kind, frac in (("bandwidth", point["bw_fraction"]), ("compute", point["peak_fraction"]))
                           if frac is not None and frac > CEILING_SLACK[kind]]
        hardware.append(point)
    return {"lab": nn, "title": run.get("lab", nn), "device": device.get("name") or "unknown GPU",
            "copy_gbs": device.get("copy_gbs"), "fp32_peak_gflops": peak, "mode": run.get("mode"),
            "date": str(run.get("date") or "")[:10], "ratio_to": run.get("ratio_to") or "the yardstick",
            "references": [name for name, _ in refs], "targets_from": targets_from, "groups": groups, "missing": missing,
            "targets": judged, "hardware": hardware, "roofline": roofline_model(run, refs)}


# Each roofline ceiling: its name, its unit, and what a figure past it means (lines of the
# card's note). The copy is measured in the same run, so a kernel that mostly reads may pass it
# by a little; the FP32 peak is the card's own limit.
CEILINGS = {
    "bandwidth": ("measured copy bandwidth", "GB/s",
                  ["More than 15 per cent past the measured copy bandwidth (a kernel that mostly reads may pass a copy",
                   "by a few per cent): the figure is not a speed; check the bytes counted, the timing, or data left in the cache."]),
    "compute": ("FP32 peak", "GFLOP/s",
                ["Past the FP32 peak, which no FP32 kernel reaches: the figure is not a speed;",
                 "check the operations counted and the timing."]),
}


# How far past its ceiling a figure may go and still be drawn as a speed. The copy is measured
# in the same run and moves bytes both ways, so a kernel that mostly reads passes it by a few per
# cent (labs 02, 03 and 13's references reach 1.08 on an H100 and an H200); no FP32 kernel
# passes the peak at all.
CEILING_SLACK = {"bandwidth": 1.15, "compute": 1.0}


def against_ceiling(kind, value, frac):
    name, unit, _ = CEILINGS[kind]
    return f"{fmt(value, 1)} {unit} = {frac:.2f} × the {name}"


def ceiling_words(copy_gbs, peak, roles=("", "")):
    """The two ceilings in words ("measured copy bandwidth 2,862 GB/s; FP32 peak 66,910 GFLOP/s"),
    each followed by its role on the picture."""
    words = [f'measured copy bandwidth {fmt(copy_gbs, 0)} GB/s{roles[0]}'] if copy_gbs else []
    words.append(f'FP32 peak {fmt(peak, 0)} GFLOP/s{roles[1]}' if peak else "FP32 peak: not known for this GPU")
    return "; ".join(words)


# The card's width, and how wide a text is taken to be: DejaVu Sans advances a character by about
# 0.55 em on average and 0.64 em at most for digits and most capitals, so that 0.62 em a character
# keeps a line of mixed text inside the width it is given.
PICTURE_WIDTH = 920
CHAR_EM = 0.62


def text_width(text, size=11):
    return len(text) * size * CHAR_EM


def wrap_words(text, room):
    """text in lines of at most `room` characters, broken between words (a word longer than the
    room is cut)."""
    lines, line = [], ""
    for word in text.split(" "):
        while len(word) > room:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:room])
            word = word[room:]
        if line and len(line) + 1 + len(word) > room:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line] if line or not lines else lines


def text_lines(add, y, text, cls, attrs="", size=10, x=8, step=13, width=PICTURE_WIDTH):
    """text from (x, y) in lines that end inside the picture: the first a <text> of class cls with
    attrs, the others of class "cls-more", indented. Returns the y below the last line."""
    first_room = max(20, int((width - x - 8) / (size * CHAR_EM)))
    more_room = max(20, int((width - x - 24) / (size * CHAR_EM)))
    lines = wrap_words(text, first_room)
    if len(lines) > 1:
        lines = lines[:1] + wrap_words(" ".join(lines[1:]), more_room)
    for n, line in enumerate(lines):
        if n == 0:
            add(f'<text class="{cls}" x="{x}" y="{y}" font-size="{size}"{attrs}>{esc(line)}</text>')
        else:
            add(f'<text class="{cls}-more" x="{x + 16}" y="{y}" font-size="{size}"{attrs.split(" data-")[0] if attrs else ""}>{esc(line)}</text>')
        y += step
    return y


def keep_pointer(text):
    """text with the spaces of its TODO pointer ("TODO(lab12) at FILE:LINE") made unbreakable, so
    that wrapping keeps the pointer on one line (wrapped_text turns them back into spaces)."""
    return re.sub(r"TODO\(lab\d+\) at [^\s;]+", lambda m: m.group(0).replace(" ", "\u00a0"), text)


def wrapped_text(add, x, y, text, cls, attrs="", size=11, step=13, right=PICTURE_WIDTH - 8, indent=16):
    """text from (x, y) as one <text> of class cls with attrs, its lines broken between words to
    end before `right` (tspans after the first, indented): one element, so that its whole text is
    still read as one (a test, a screen reader), and the line's words stay inside the picture.
    Returns the number of lines."""
    first = max(12, int((right - x) / (size * CHAR_EM)))
    more = max(12, int((right - x - indent) / (size * CHAR_EM)))
    lines = wrap_words(keep_pointer(text), first)
    if len(lines) > 1:
        lines = lines[:1] + wrap_words(" ".join(lines[1:]), more)
    lines = [l.replace("\u00a0", " ") for l in lines]
    size_attr = f' font-size="{size}"' if size != 11 else ""
    body = esc(lines[0]) + "".join(f' <tspan x="{x + indent}" dy="{step}">{esc(l)}</tspan>' for l in lines[1:])
    add(f'<text{f" class={chr(34)}{cls}{chr(34)}" if cls else ""} x="{x}" y="{y}"{size_attr}{attrs}>{body}</text>')
    return len(lines)


def legend_line(add, y, subject, references, width=PICTURE_WIDTH):
    """The legend from y: the subject's colour, then each reference GPU's, on as many lines as
    keep it inside the picture. Returns the y of its last line."""
    lx = 8
    for label, colour in [(subject, YOURS)] + [(f"reference, {n}", REF_COLOURS[i % len(REF_COLOURS)])
                                               for i, n in enumerate(references)]:
        if lx > 8 and lx + 14 + text_width(label) > width - 8:
            lx, y = 8, y + 15
        add(f'<rect x="{lx}" y="{y}" width="10" height="10" fill="{colour}"/>')
        add(f'<text class="legend" x="{lx + 14}" y="{y + 9}">{esc(label)}</text>')
        lx += 24 + text_width(label)
    return y


def fmt(x, digits=2):
    return "–" if x is None else f"{x:,.{digits}f}"


def esc(s):
    return html.escape(str(s), quote=True)


# The roofline: every row placed by its arithmetic intensity (the FP operations over the
# compulsory bytes the lab counts for it: "roofline_flops" and "roofline_bytes" of --json) and
# its achieved GFLOP/s (those operations over its time), under two ceilings: the measured copy
# bandwidth times the intensity, and the FP32 peak.

NOT_COUNTED = "these results count no roofline bytes or FP operations (a run from before they were counted)"


def roofline_place(row):
    """{"intensity", "gflops"} of a row on the roofline, or a string saying why it is not placed."""
    status = row.get("status") or "?"
    if status not in ("PASS", "REF"):
        return failure(row)
    if not row.get("time_ms") or row["time_ms"] <= 0:
        return "not timed"
    flops, nbytes = row.get("roofline_flops"), row.get("roofline_bytes")
    if "roofline_flops" not in row and "roofline_bytes" not in row:
        return NOT_COUNTED
    if not flops:
        return "no FP operations counted for it (intensity is FLOP per byte)"
    if not nbytes:
        return "no compulsory bytes counted for it"
    return {"intensity": flops / nbytes, "gflops": flops / (row["time_ms"] * 1e6)}


def roof_at(intensity, copy_gbs, peak):
    """The attainable GFLOP/s at an intensity: the lower ceiling (None when neither is known)."""
    roofs = [r for r in (copy_gbs * intensity if copy_gbs else None, peak) if r]
    return min(roofs) if roofs else None


def past_ceiling(intensity, gflops, copy_gbs, peak):
    """Which ceiling a point is past ("compute", "bandwidth"), or None: the copy's with its slack."""
    if peak and gflops > peak * CEILING_SLACK["compute"]:
        return "compute"
    if copy_gbs and gflops > copy_gbs * intensity * CEILING_SLACK["bandwidth"]:
        return "bandwidth"
    return None


def roofline_model(run, refs):
    """The roofline's points (every passed, timed row of the run with both counts, and the
    reference's row of the same variant and size on each GPU, drawn against its own GPU's
    ceilings) and the run's rows it could not place, with the reason."""
    device = run.get("device") or {}
    copy, peak = device.get("copy_gbs"), fp32_peak(device.get("name"))
    points, unplaced = [], []
    for r in run.get("results", []):
        key = (r.get("variant"), r.get("size"))
        if any((p["variant"], p["size"]) == key for p in points) or any((u["variant"], u["size"]) == key for u in unplaced):
            continue
        place = roofline_place(r)
        if isinstance(place, str):
            unplaced.append({"variant": key[0], "size": key[1], "reason": place})
            continue
        refs_here = []
        for name, ref in refs:
            row = next((x for x in ref.get("results", []) if (x.get("variant"), x.get("size")) == key), None)
            at = roofline_place(row) if row else "not measured at this size"
            if isinstance(at, dict):
                rdev = ref.get("device") or {}
                at["beyond"] = past_ceiling(at["intensity"], at["gflops"], rdev.get("copy_gbs"), fp32_peak(rdev.get("name")))
            refs_here.append({"device": name, **(at if isinstance(at, dict) else {"reason": at})})
        place["beyond"] = past_ceiling(place["intensity"], place["gflops"], copy, peak)
        roof = roof_at(place["intensity"], copy, peak)
        place["of_roof"] = place["gflops"] / roof if roof else None
        points.append({"variant": key[0], "size": key[1], **place, "refs": refs_here})
    counted = any("roofline_flops" in r or "roofline_bytes" in r for r in run.get("results", []))
    return {"device": device.get("name") or "unknown GPU", "copy_gbs": copy, "fp32_peak_gflops": peak,
            "references": [name for name, _ in refs], "points": points, "counted": counted,
            "unplaced": unplaced if counted else []}


def log_axis(values, pad=0.3):
    """(lo, hi) in log10 of a positive sample, padded and widened to whole decades' halves."""
    import math
    logs = [math.log10(v) for v in values if v and v > 0] or [0.0]
    lo, hi = min(logs) - pad, max(logs) + pad
    if hi - lo < 1:
        lo, hi = lo - (1 - (hi - lo)) / 2, hi + (1 - (hi - lo)) / 2
    return math.floor(lo * 2) / 2, math.ceil(hi * 2) / 2


def draw_roofline(rm, top=0, title="Roofline", subject="yours"):
    """The roofline as SVG elements from y = top, and the height they take. The plot carries its
    axes in data-* attributes (data-log-x0/x1, data-log-y0/y1 and the plot's box), every point
    its intensity and GFLOP/s, so that a test can recompute any position."""
    import math
    left, width, height = 90, 520, 300
    out = ['<g class="rl-section">']  # the roofline's elements, every text inside the picture
    add = out.append
    y = top + 16
    # Nothing to place: no plot, no empty panel; one line says so (and, where the rows were
    # counted, each row's reason follows).
    if not rm["counted"]:  # one line, not one per row
        y += 13 * wrapped_text(add, 8, y, f'{title}: nothing placed: {NOT_COUNTED}.', "rl-not-counted", ' fill="#555"')
        return "\n".join(out + ["</g>"]), y - 5 - top
    if not rm["points"]:
        y += 13 * wrapped_text(add, 8, y, f'{title}: no row placed (why, row by row, below).', "rl-empty",
                               ' fill="#c0392b"') + 3
    else:
        add(f'<text x="8" y="{y}" font-weight="bold">{esc(title)}: GFLOP/s against FLOP per byte (log-log), '
            f'{esc(rm["device"])}</text>')
        y += 14
        roofs = ceiling_words(rm["copy_gbs"], rm["fp32_peak_gflops"], (" (the slope)", " (the flat roof)"))
        y = text_lines(add, y, f"Ceilings: {roofs}. Hollow red: past a ceiling, not a speed.", "rl-ceilings",
                       ' fill="#555"', size=11, step=12)
        plot_top = y + 6
        xs = [p["intensity"] for p in rm["points"]] + [r["intensity"] for p in rm["points"] for r in p["refs"] if "intensity" in r]
        ys = [p["gflops"] for p in rm["points"]] + [r["gflops"] for p in rm["points"] for r in p["refs"] if "gflops" in r]
        copy, peak = rm["copy_gbs"], rm["fp32_peak_gflops"]
        if copy and peak:
            xs.append(peak / copy)
        if peak:
            ys.append(peak)
        lx0, lx1 = log_axis(xs)
        ly0, ly1 = log_axis(ys)
        px = lambda v: left + (math.log10(v) - lx0) / (lx1 - lx0) * width
        py = lambda v: plot_top + height - (math.log10(v) - ly0) / (ly1 - ly0) * height
        add(f'<g class="rl-plot" data-log-x0="{lx0:g}" data-log-x1="{lx1:g}" data-log-y0="{ly0:g}" data-log-y1="{ly1:g}" '
            f'data-left="{left}" data-top="{plot_top}" data-width="{width}" data-height="{height}">')
        add(f'<clipPath id="rl-clip{top}"><rect x="{left}" y="{plot_top}" width="{width}" height="{height}"/></clipPath>')
        add(f'<rect x="{left}" y="{plot_top}" width="{width}" height="{height}" fill="none" stroke="#888"/>')
        for d in range(math.ceil(lx0), math.floor(lx1) + 1):
            add(f'<line x1="{px(10 ** d):.1f}" y1="{plot_top}" x2="{px(10 ** d):.1f}" y2="{plot_top + height}" stroke="#eee"/>')
            add(f'<text x="{px(10 ** d):.1f}" y="{plot_top + height + 12}" text-anchor="middle" font-size="9">{10 ** d:g}</text>')
        for d in range(math.ceil(ly0), math.floor(ly1) + 1):
            add(f'<line x1="{left}" y1="{py(10 ** d):.1f}" x2="{left + width}" y2="{py(10 ** d):.1f}" stroke="#eee"/>')
            add(f'<text x="{left - 4}" y="{py(10 ** d) + 3:.1f}" text-anchor="end" font-size="9">{10 ** d:g}</text>')
        add(f'<text x="{left + width / 2}" y="{plot_top + height + 26}" text-anchor="middle">arithmetic intensity (FLOP per byte)</text>')
        add(f'<text x="14" y="{plot_top + height / 2}" transform="rotate(-90 14 {plot_top + height / 2})" '
            f'text-anchor="middle">GFLOP/s</text>')
        # The ceiling: the copy bandwidth's slope up to the ridge, then the FP32 peak.
        samples = [10 ** (lx0 + (lx1 - lx0) * i / 200) for i in range(201)]
        line = [(x, roof_at(x, copy, peak)) for x in samples]
        if any(v for _, v in line):
            pts = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in line if v)
            add(f'<polyline class="rl-ceiling" points="{pts}" fill="none" stroke="#444" stroke-width="2" '
                f'clip-path="url(#rl-clip{top})" data-copy-gbs="{copy or 0:g}" data-peak-gflops="{peak or 0:g}"/>')
        for i, p in enumerate(rm["points"], 1):
            for j, r in enumerate(p["refs"]):
                if "intensity" not in r:
                    continue
                colour = REF_COLOURS[rm["references"].index(r["device"]) % len(REF_COLOURS)]
                fill = "none" if r["beyond"] else colour
                add(f'<rect class="rl-point rl-reference{" rl-beyond" if r["beyond"] else ""}" '
                    f'x="{px(r["intensity"]) - 3.5:.1f}" y="{py(r["gflops"]) - 3.5:.1f}" width="7" height="7" '
                    f'fill="{fill}" stroke="{"#c0392b" if r["beyond"] else colour}" data-variant="{esc(p["variant"])}" '
                    f'data-size="{esc(p["size"])}" data-device="{esc(r["device"])}" data-intensity="{r["intensity"]:.6g}" '
                    f'data-gflops="{r["gflops"]:.6g}"/>')
            cls = "rl-point rl-yours" + (" rl-beyond" if p["beyond"] else "")
            cx, cy = px(p["intensity"]), py(p["gflops"])
            add(f'<circle class="{cls}" cx="{cx:.2f}" cy="{cy:.2f}" r="5" fill="{"none" if p["beyond"] else YOURS}" '
                f'stroke="{"#c0392b" if p["beyond"] else YOURS}" stroke-width="2" data-variant="{esc(p["variant"])}" '
                f'data-size="{esc(p["size"])}" data-intensity="{p["intensity"]:.6g}" data-gflops="{p["gflops"]:.6g}" '
                f'data-beyond="{esc(p["beyond"] or "")}"/>')
            add(f'<text x="{cx + 7:.1f}" y="{cy - 5:.1f}" font-size="9">{i}</text>')
        add('</g>')
        y = plot_top + height + 34
    # The legend, then each point in words, yours and the reference's.
    # Each line broken to stay inside the picture (text_lines).
    if rm["points"]:
        y = legend_line(add, y, subject, rm["references"]) + 24
    for i, p in enumerate(rm["points"], 1):
        colour = "#c0392b" if p["beyond"] else "#000"
        y = text_lines(add, y, roofline_words(i, p, rm), "rl-row",
                       f' fill="{colour}" data-variant="{esc(p["variant"])}" data-size="{esc(p["size"])}"')
    for u in rm["unplaced"]:
        y = text_lines(add, y, f'Not placed: {u["variant"]} {u["size"]}: {u["reason"]}', "rl-unplaced",
                       f' fill="#555" data-variant="{esc(u["variant"])}" data-size="{esc(u["size"])}"')
    for kind in [k for k in CEILINGS if any(p["beyond"] == k for p in rm["points"])]:
        for line in CEILINGS[kind][2]:
            y = text_lines(add, y, line, "ceiling-note", ' fill="#c0392b"')
    return "\n".join(out + ["</g>"]), y - top


def roofline_words(i, p, rm):
    """One point in words: its number on the plot, where it lies, and the reference's."""
    where = f'{p["intensity"]:.3g} FLOP/byte, {fmt(p["gflops"], 1)} GFLOP/s'
    if p["beyond"]:
        where += f' (past the {CEILINGS[p["beyond"]][0]}: not a speed)'
    elif p["of_roof"] is not None:
        where += f' ({p["of_roof"]:.2f} of the roof)'
    refs = []
    for r in p["refs"]:
        refs.append(f'{r["device"]}: ' + (f'{fmt(r["gflops"], 1)} GFLOP/s' + (" (past a ceiling)" if r["beyond"] else "")
                                           if "gflops" in r else r["reason"]))
    return f'{i}. {p["variant"]} {p["size"]}: {where}' + (f'; reference {"; ".join(refs)}' if refs else "")


YOURS = "#2f6db5"
REF_COLOURS = ["#9a9a9a", "#c98b2b", "#6b8e23", "#8e44ad", "#16a085"]


def draw(m, target_table=True, subject="Your run", legend="yours"):
    """The card as SVG text: every bar and line carries data-* attributes with its values.
    target_table=False leaves out the list of targets (a handout has its own table of them)."""
    bar_h, sub_h = 14, 9
    # The labels' column as wide as its longest label, the bars taking what is left of the
    # picture's width (and a value or a note after them): long names stay inside the picture.
    labels = [f'{g["variant"]} {g["size"]}' for g in m["groups"]] + \
             [f'{p["variant"]} {p["size"]}' for p in m["hardware"]]
    left = max([190] + [int(14 + text_width(l)) for l in labels])
    width = max(200, min(430, PICTURE_WIDTH - 300 - left))
    nref = len(m["references"])
    ratios = [g["ratio"] for g in m["groups"] if g["ratio"] is not None]
    ratios += [x for g in m["groups"] for x in g["refs"] if x is not None]
    ratios += [t for g in m["groups"] for t in g["targets"]]
    peak = max(ratios + [1.0])
    scale = width / (peak * 1.12)
    out = []
    y = 18
    add = out.append
    add(f'<text x="8" y="{y}" font-size="13" font-weight="bold">{esc("Lab " + str(m["title"]) + ": scorecard")}</text>')
    y += 17
    y += 15 * wrapped_text(add, 8, y, f'{subject}: {m["device"]}' + (", " + m["date"] if m["date"] else "")
                           + (", mode " + m["mode"] if m["mode"] else ""), "device",
                           f' data-device="{esc(m["device"])}"', step=15)
    refs_text = ", ".join(m["references"]) if m["references"] else "none shipped"
    y += 15 * wrapped_text(add, 8, y, f"Reference solution measured on: {refs_text}", "", step=15)
    y += 15 * wrapped_text(add, 8, y, f'Ratio to {m["ratio_to"]} (1.0 = as fast as the yardstick); red marks: '
                           "speed targets.", "", ' fill="#555"', step=15) - 3
    y = legend_line(add, y, legend, m["references"]) + 22
    top = y
    for g in m["groups"]:
        label = f'{g["variant"]} {g["size"]}'
        add(f'<text class="label" x="{left - 6}" y="{y + 11}" text-anchor="end" '
            f'data-variant="{esc(g["variant"])}" data-size="{esc(g["size"])}">{esc(label)}</text>')
        extra = 0  # the lines a note takes below its first, which push the group down
        if g["ratio"] is None:
            fill = "#555" if g["status"] in ("PASS", "REF") else "#c0392b"
            extra = 12 * (wrapped_text(add, left + 4, y + 11, g["note"], "nobar",
                                       f' fill="{fill}" data-variant="{esc(g["variant"])}" data-size="{esc(g["size"])}"'
                                       f' data-status="{esc(g["status"])}"', step=12) - 1)
        else:
            w = max(1.0, g["ratio"] * scale)
            add(f'<rect class="bar yours" x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{YOURS}" '
                f'data-variant="{esc(g["variant"])}" data-size="{esc(g["size"])}" data-ratio="{g["ratio"]:.6g}"/>')
            add(f'<text x="{left + w + 4:.1f}" y="{y + 11}">{g["ratio"]:.2f}</text>')
        ry = y + extra + bar_h + 2
        for i, (name, r, note) in enumerate(zip(m["references"], g["refs"], g["ref_notes"])):
            colour = REF_COLOURS[i % len(REF_COLOURS)]
            if r is None:
                said = f"{name}: {note}"
                room = int((PICTURE_WIDTH - 8 - left - 4) / (9 * CHAR_EM))
                said = said if len(said) <= room else said[:room - 1] + "…"  # one line: the bars' pitch
                add(f'<text class="noref" x="{left + 4}" y="{ry + 8}" font-size="9" fill="#777" '
                    f'data-device="{esc(name)}">{esc(said)}</text>')
            else:
                w = max(1.0, r * scale)
                add(f'<rect class="bar ref" x="{left}" y="{ry}" width="{w:.1f}" height="{sub_h}" fill="{colour}" '
                    f'data-variant="{esc(g["variant"])}" data-size="{esc(g["size"])}" data-device="{esc(name)}" '
                    f'data-ratio="{r:.6g}"/>')
                add(f'<text x="{left + w + 4:.1f}" y="{ry + 8}" font-size="9">{r:.2f}</text>')
            ry += sub_h + 2
        for t in g["targets"]:
            x = left + t * scale
            add(f'<line class="target" x1="{x:.1f}" y1="{y - 2}" x2="{x:.1f}" y2="{ry}" stroke="#c0392b" '
                f'stroke-width="2" data-variant="{esc(g["variant"])}" data-size="{esc(g["size"])}" '
                f'data-min-ratio="{t:.6g}"/>')
            add(f'<text x="{x + 3:.1f}" y="{y - 3}" font-size="9" fill="#c0392b">≥ {t:.2f}</text>')
        y = ry + 10
    if not m["groups"]:
        add(f'<text x="8" y="{y + 10}" fill="#c0392b">Your results have no timed variant.</text>')
        y += 20
    one = left + scale
    add(f'<line x1="{one:.1f}" y1="{top - 4}" x2="{one:.1f}" y2="{y}" stroke="#444" stroke-dasharray="4,3"/>')
    add(f'<text x="{one:.1f}" y="{y + 12}" text-anchor="middle" fill="#444">1.0</text>')
    y += 26
    for v in m["missing"]:
        y += 15 * wrapped_text(add, 8, y, f"Missing: {v} is not in your results (not run, or the run stopped before it).",
                               "missing", f' fill="#c0392b" data-variant="{esc(v)}"', step=15)
    if m["targets"] and target_table:
        y += 6
        add(f'<text x="8" y="{y}" font-weight="bold">Speed targets (from {esc(m["targets_from"])})</text>')
        y += 15
        for t in m["targets"]:
            verdict = "failed" if t.get("failed") else {True: "met", False: "missed", None: "not measured"}[t["met"]]
            refs = "; ".join(f"{n}: {fmt(r)}" for n, r in zip(m["references"], t["refs"]))
            y += 14 * wrapped_text(add, 8, y, f'{t["variant"]} at {t["size"]} ≥ {t["min_ratio"]:.2f} × {t["yardstick"]}: '
                                   f'yours {fmt(t["ratio"])} ({t.get("failed") or verdict}); reference {refs or "–"}',
                                   "target-row", f' data-variant="{esc(t["variant"])}" data-size="{esc(t["size"])}" '
                                   f'data-min-ratio="{t["min_ratio"]:.6g}" data-met="{esc(verdict)}"', step=14)
    if m["hardware"]:
        y += 10
        add(f'<text x="8" y="{y}" font-weight="bold">Against the hardware (roofline ceilings; the largest '
            f'size measured of each variant)</text>')
        y += 14
        add(f'<text x="8" y="{y}" fill="#555">1.0 = {esc(ceiling_words(m["copy_gbs"], m["fp32_peak_gflops"]))}</text>')
        y += 10
        for p in m["hardware"]:
            for kind, frac, value, unit in (("bandwidth", p["bw_fraction"], p["gbs"], "GB/s"),
                                             ("compute", p["peak_fraction"], p["gflops"], "GFLOP/s")):
                if value is None:
                    continue
                add(f'<text x="{left - 6}" y="{y + 11}" text-anchor="end">{esc(p["variant"])} {esc(p["size"])}</text>')
                if frac is not None and kind in p.get("beyond", []):
                    # Past its ceiling a figure is a mistake in the timing or the count, not a
                    # speed: an empty bar up to the ceiling, and the text says so.
                    add(f'<rect class="roofline {kind} beyond-ceiling" x="{left}" y="{y}" width="{width / 1.2:.1f}" '
                        f'height="14" fill="none" stroke="#c0392b" stroke-dasharray="3,2" '
                        f'data-variant="{esc(p["variant"])}" data-size="{esc(p["size"])}" data-value="{value:.6g}" '
                        f'data-fraction="{frac:.6g}"/>')
                    add(f'<text class="beyond-ceiling" x="{left + 4}" y="{y + 10}" font-size="9" fill="#c0392b" '
                        f'data-variant="{esc(p["variant"])}" data-kind="{kind}">{esc(against_ceiling(kind, value, frac))}: past the ceiling (note below)</text>')
                elif frac is not None:
                    w = max(1.0, frac * width / 1.2)
                    add(f'<rect class="roofline {kind}" x="{left}" y="{y + 2}" width="{w:.1f}" height="10" '
                        f'fill="{"#2e8b57" if kind == "bandwidth" else "#8e44ad"}" data-variant="{esc(p["variant"])}" '
                        f'data-size="{esc(p["size"])}" data-value="{value:.6g}" data-fraction="{frac:.6g}"/>')
                    add(f'<text x="{left + w + 4:.1f}" y="{y + 11}" font-size="10">{esc(against_ceiling(kind, value, frac))}</text>')
                else:
                    add(f'<text x="{left + 4}" y="{y + 11}" font-size="10">{fmt(value, 1)} {unit}</text>')
                y += 15
        y += 4
        x1 = left + width / 1.2
        add(f'<line x1="{x1:.1f}" y1="{y - 15 * sum(1 for p in m["hardware"] for v in (p["gbs"], p["gflops"]) if v is not None) - 4:.1f}" '
            f'x2="{x1:.1f}" y2="{y}" stroke="#444" stroke-dasharray="4,3"/>')
        for kind in [k for k in CEILINGS if any(k in p["beyond"] for p in m["hardware"])]:
            for line in CEILINGS[kind][2]:
                y += 13
                add(f'<text class="ceiling-note" x="8" y="{y}" font-size="10" fill="#c0392b">{esc(line)}</text>')
    section, taken = draw_roofline(m["roofline"], y + 10, subject=legend)
    out.append(section)
    y += 10 + taken
    return svg_document(out, y, left + width + 300, m["lab"])


def svg_document(elements, height, width, lab):
    """The SVG file of a list of elements: white background, the card's font."""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 14:.0f}" '
            f'font-family="DejaVu Sans" font-size="11" data-lab="{esc(lab)}">\n'
            f'<rect width="100%" height="100%" fill="white"/>')
    return head + "\n" + "\n".join(elements) + "\n</svg>\n"


def grader_runs(path):
    """The grader's figures of one submission (grading/DESIGN.md, Feedback: NAME.roofline.json)
    as a run of the student's and one of the reference's, each a row per timed performance test."""
    figs = read_json(path, "the grader's figures")
    if not isinstance(figs, dict) or not isinstance(figs.get("tests"), list):
        raise BadInput(f"{path} is not the grader's roofline figures (no list \"tests\")")
    device = {"name": figs.get("device"), "copy_gbs": figs.get("copy_gbs")}

    def side(ms_key):
        return {"lab": figs.get("lab", "??"), "device": device, "results": [
            {"variant": t.get("variant"), "size": t.get("size"), "time_ms": t.get(ms_key), "status": "PASS",
             "roofline_bytes": t.get("roofline_bytes"), "roofline_flops": t.get("roofline_flops")}
            for t in figs["tests"]]}
    return side("student_ms"), side("reference_ms"), figs


def draw_grader_roofline(args):
    """The roofline of the grader's figures: each timed performance test's point, yours and the
    reference solution's in the same run on the same GPU."""
    student, reference, figs = grader_runs(args.grader_figures)
    rm = roofline_model(student, [("same run", reference)])
    section, taken = draw_roofline(rm, 0, title="Roofline of the timed performance tests")
    out = args.out or "roofline.svg"
    with open(out, "w", encoding="utf-8") as f:
        f.write(svg_document([section], taken, 920, str(figs.get("lab", ""))))
    print(f"Roofline of {len(rm['points'])} performance test(s) on {rm['device']}: {out}")
    return 0


def to_png(svg_path, png_path):
    tool = shutil.which("rsvg-convert")
    if not tool:
        return "no PNG: rsvg-convert is not installed (Debian: librsvg2-bin)"
    rc = subprocess.run([tool, "-b", "white", "-o", png_path, svg_path], capture_output=True, text=True)
    return None if rc.returncode == 0 else f"no PNG: rsvg-convert failed: {rc.stderr.strip()[:200]}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=(
        "The card ends with a roofline: each row's FLOP per byte (its roofline_flops over its roofline_bytes) "
        "against its GFLOP/s, log-log, under the measured copy bandwidth and the FP32 peak, the reference's beside "
        "it; a point past a ceiling is hollow and flagged, a row without both counts listed as not placed."))
    ap.add_argument("results", nargs="?", help="a lab's --json results (or a make bench file with --lab)")
    ap.add_argument("--lab", help="the lab (two digits) when RESULTS holds several")
    ap.add_argument("--describe", help="the lab's --describe JSON: the targets and variants it declares now")
    ap.add_argument("--targets", help="the targets every lab declares now, {\"NN\": [...]} "
                    "(default: bench/targets.json of this tree, where there is one)")
    ap.add_argument("--reference", action="append", help="folder of <device>.d/NN.json reference runs "
                    "(default: bench/results, else reference/ of this tree)")
    ap.add_argument("--out", help="the SVG to write (default: scorecard-NN.svg)")
    ap.add_argument("--png", action="store_true", help="also a PNG beside it (rsvg-convert)")
    ap.add_argument("--json-model", help="also write what the card shows as JSON")
    ap.add_argument("--grader-figures", metavar="FIGURES.json",
                    help="draw only the roofline of the grader's figures of one submission (the grader's "
                    "NAME.roofline.json), instead of a card of RESULTS")
    args = ap.parse_args(argv)
    if (args.results is None) == (args.grader_figures is None):
        ap.error("give either RESULTS.json or --grader-figures FIGURES.json")
    if args.lab is not None and not re.fullmatch(r"\d\d", args.lab):
        ap.error(f"--lab takes two digits, got {args.lab!r}")
    try:
        return draw_grader_roofline(args) if args.grader_figures else draw_card(args)
    except BadInput as e:
        print(f"scorecard.py: {e}", file=sys.stderr)
        return 2


def draw_card(args):
    """The card of the run args.results names, written where args say; then what it shows, in
    words."""
    run = load_run(args.results, args.lab)
    nn = lab_number(run)
    targets = declared = None
    if args.describe:
        desc = read_json(args.describe, "the lab's description")
        targets = [{"variant": t["variant"], "size": t["size"], "min_ratio": t["min_ratio"],
                    "yardstick": t.get("against", t.get("yardstick"))} for t in desc.get("targets", [])]
        declared = desc.get("variants")
    else:
        path = args.targets or os.path.join(ROOT, "bench", "targets.json")
        if os.path.isfile(path):
            targets = read_json(path, "the targets file").get(nn)
    dirs = args.reference or [d for d in DEFAULT_REFERENCE if os.path.isdir(d)][:1]
    refs = references(dirs, nn)
    m = model(run, refs, targets, declared)
    out = args.out or f"scorecard-{nn}.svg"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write(draw(m))
    print(f"Scorecard of lab {m['title']} on {m['device']}: {out}")
    if args.png:
        problem = to_png(out, os.path.splitext(out)[0] + ".png")
        print(problem or f"PNG: {os.path.splitext(out)[0]}.png")
    if args.json_model:
        with open(args.json_model, "w", encoding="utf-8") as f:
            json.dump(m, f, indent=1)
    if not refs:
        print("No reference results found (looked in: " + (", ".join(dirs) or "nothing") + ")")
    for v in m["missing"]:
        print(f"Missing: {v} is not in your results")
    for p in m["hardware"]:
        for kind in p["beyond"]:
            value, frac = (p["gbs"], p["bw_fraction"]) if kind == "bandwidth" else (p["gflops"], p["peak_fraction"])
            print(f"{p['variant']} at {p['size']}: {against_ceiling(kind, value, frac)}. " + " ".join(CEILINGS[kind][2]))
    rm = m["roofline"]
    print(f"Roofline: {len(rm['points'])} row(s) placed, {len(rm['unplaced'])} not placed (the card says why)" if rm["counted"]
          else f"Roofline: nothing placed: {NOT_COUNTED}")
    for p in rm["points"]:
        if p["beyond"]:
            print(f"roofline: {p['variant']} at {p['size']}: {fmt(p['gflops'], 1)} GFLOP/s at {p['intensity']:.3g} "
                  f"FLOP/byte is past the {CEILINGS[p['beyond']][0]}: not a speed")
    for t in m["targets"]:
        verdict = t.get("failed") or {True: "met", False: "MISSED", None: "not measured (run with --bench)"}[t["met"]]
        print(f"target: {t['variant']} at {t['size']} >= {t['min_ratio']:.2f} x {t['yardstick']}: "
              f"{fmt(t['ratio'])} {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
