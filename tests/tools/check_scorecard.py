#!/usr/bin/env python3
"""Checks a scorecard SVG (tools/scorecard.py) against the JSON it was drawn from.

  check_scorecard.py CARD.svg RESULTS.json [--lab NN] [--reference DIR] [--missing V,...]
                     [--targets-json bench/targets.json]

Reads the SVG as XML (every bar and label carries data-* attributes) and fails, one line per
problem, when: the student's GPU is not named; a timed row of RESULTS has no bar with its
variant, size and ratio, or a bar has no such row; a row without a ratio (FAIL) is not said; a
reference bar's ratio is not the reference run's at that variant and size; a target line marks
no declared target; a variant of --missing is not stated as missing, or a variant is stated
missing that RESULTS has; a failed row's TODO pointer (its note's "TODO(labNN) at FILE:LINE")
is not kept where it is said; a roofline figure past its ceiling (above 1.15 of the copy, above 1 of the FP32 peak) is drawn as
a plain bar, or one within it is flagged as past it; a text of the card runs past the picture's
edge (its right edge for a text anchored at its start, its left for one anchored at its end,
taking a character of DejaVu Sans as 0.6 em wide: its mean advance is about 0.55 em).
"""
import argparse
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def load_run(path, lab):
    data = json.load(open(path, encoding="utf-8"))
    if "labs" in data:
        return next(r for r in data["labs"] if r["lab"].startswith(lab + "-"))
    return data


def close(a, b):
    return abs(float(a) - float(b)) <= 1e-5 * max(1.0, abs(float(b)))


CHAR_EM = 0.6


def texts_outside(root):
    """One line for each text of the card that runs past the picture's left or right edge."""
    width = float(root.get("width"))
    out = []

    def walk(el, size):
        size = float(el.get("font-size") or size)
        if el.tag == NS + "text" and el.get("transform") is None:
            # its lines: its own text, then each tspan with an x of its own starts another
            lines = [[float(el.get("x", 0)), el.text or ""]]
            for t in el.iter(NS + "tspan"):
                if t.get("x") is not None:
                    lines.append([float(t.get("x")), ""])
                lines[-1][1] += (t.text or "") + (t.tail or "")
            for x, words in lines:
                span = len(words.rstrip()) * size * CHAR_EM
                start = {"middle": x - span / 2, "end": x - span}.get(el.get("text-anchor"), x)
                if start + span > width + 0.5 or start < -0.5:
                    out.append(f"text past the picture's edge ({start:.0f} to {start + span:.0f} of {width:.0f} px): {words[:80]}")
            return
        for child in el:
            walk(child, size)
    walk(root, 16.0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("svg")
    ap.add_argument("results")
    ap.add_argument("--lab")
    ap.add_argument("--reference", default="bench/results")
    ap.add_argument("--missing", default="")
    ap.add_argument("--targets-json")
    args = ap.parse_args()
    run = load_run(args.results, args.lab)
    nn = run["lab"][:2]
    root = ET.parse(args.svg).getroot()
    els = list(root.iter())
    problems = []

    def find(tag, cls):
        return [e for e in els if e.tag == NS + tag and cls in (e.get("class") or "").split()]

    dev = run["device"]["name"]
    if not any(e.get("data-device") == dev and dev in (e.text or "") for e in find("text", "device")):
        problems.append(f"the student's GPU {dev!r} is not named")
    rows, seen = [], set()
    for r in run["results"]:
        if r["status"] != "REF" and (r["variant"], r["size"]) not in seen:
            seen.add((r["variant"], r["size"]))
            rows.append(r)
    bars = {(b.get("data-variant"), b.get("data-size")): b.get("data-ratio") for b in find("rect", "yours")}
    labels = {(t.get("data-variant"), t.get("data-size")): t.text for t in find("text", "label")}
    nobars = {(t.get("data-variant"), t.get("data-size")) for t in find("text", "nobar")}
    for r in rows:
        key = (r["variant"], r["size"])
        if labels.get(key) != f"{r['variant']} {r['size']}":
            problems.append(f"no label {r['variant']} {r['size']} (found {labels.get(key)!r})")
        if r["ratio"] is None:
            if key not in nobars:
                problems.append(f"{key}: a row without a ratio ({r['status']}) is not said")
        elif key not in bars:
            problems.append(f"{key}: no bar for ratio {r['ratio']}")
        elif not close(bars[key], r["ratio"]):
            problems.append(f"{key}: bar {bars[key]} but the JSON says {r['ratio']}")
    said = {(t.get("data-variant"), t.get("data-size")): "".join(t.itertext()) for t in find("text", "nobar")}
    for r in rows:
        pointer = re.search(r"TODO\(lab\d+\)(?: at [^\s;]+)?", r.get("note") or "")
        key = (r["variant"], r["size"])
        if pointer and key in said and pointer.group(0) not in said[key]:
            problems.append(f"{key}: the failed row's {pointer.group(0)} is not kept (said: {said[key]!r})")
    for b in find("rect", "roofline"):
        # The copy bandwidth may be passed by up to 15 per cent (a kernel that mostly reads), the
        # FP32 peak not at all.
        kind = "bandwidth" if "bandwidth" in b.get("class").split() else "compute"
        past = float(b.get("data-fraction")) > (1.15 if kind == "bandwidth" else 1.0)
        if past != ("beyond-ceiling" in b.get("class").split()):
            problems.append(f"roofline {b.get('data-variant')} {b.get('data-size')} at {b.get('data-fraction')} "
                            f"of its ceiling is {'not ' if past else ''}flagged as past it")
    extra = set(bars) - {(r["variant"], r["size"]) for r in rows}
    if extra:
        problems.append(f"bars with no row in the JSON: {sorted(extra)}")
    # reference bars
    refs = {}
    for path in glob.glob(os.path.join(args.reference, "*.d", f"{nn}.json")):
        ref = json.load(open(path, encoding="utf-8"))
        refs.setdefault(ref["device"]["name"], ref)
    for b in find("rect", "ref"):
        ref = refs.get(b.get("data-device"))
        row = ref and next((x for x in ref["results"] if (x["variant"], x["size"]) ==
                            (b.get("data-variant"), b.get("data-size"))), None)
        if not row or not close(b.get("data-ratio"), row["ratio"]):
            problems.append(f"reference bar {b.attrib} is not in {b.get('data-device')}'s results")
    n_ref_bars = len(find("rect", "ref"))
    want = sum(1 for r in rows for name, ref in refs.items()
               if any((x["variant"], x["size"]) == (r["variant"], r["size"]) and x["ratio"] is not None
                      for x in ref["results"]))
    if n_ref_bars != want:
        problems.append(f"{n_ref_bars} reference bars, the reference files give {want}")
    # targets
    if args.targets_json:
        declared = json.load(open(args.targets_json, encoding="utf-8")).get(nn, [])
        for line in find("line", "target"):
            if not any(t["variant"] == line.get("data-variant") and t["size"] == line.get("data-size")
                       and close(line.get("data-min-ratio"), t["min_ratio"]) for t in declared):
                problems.append(f"target mark {line.attrib} is not a target lab {nn} declares")
    # missing variants
    stated = {t.get("data-variant") for t in find("text", "missing")}
    for v in filter(None, args.missing.split(",")):
        if v not in stated:
            problems.append(f"the missing variant {v} is not stated")
    have = {r["variant"] for r in run["results"]}
    if stated & have:
        problems.append(f"stated missing but in the results: {sorted(stated & have)}")
    problems += texts_outside(root)
    for p in problems:
        print(f"{args.svg}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
