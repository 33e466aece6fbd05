#!/usr/bin/env python3
"""Checks a similarity report of the corpus against what the corpus is (grading/similarity/measure.py):
    check_similarity.py LAB REPORT_DIR [SECRET_FILE]
every disguised copy is paired with the reference at or above the report's threshold, no
independent pair is; each pair's row says the same in the page and the CSV. With SECRET_FILE
(a report made with --pseudonyms): every name is the leaderboard's pseudonym of its id and no
id shows. Prints "checked: ..." or one FAIL line a problem, exit 1.
"""
import csv
import hashlib
import hmac
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "grading", "similarity"))
import measure  # noqa: E402

if len(sys.argv) not in (3, 4):
    sys.exit(__doc__)
lab, out = sys.argv[1], sys.argv[2]
files, copies, independent = measure.corpus(lab)
name = {sid: sid for sid in files}
problems = []
if len(sys.argv) == 4:
    secret = open(sys.argv[3], encoding="utf-8").read().strip()
    for sid in files:
        mac = hmac.new(secret.encode(), ("cudalabs leaderboard pseudonym\n" + sid).encode(), hashlib.sha256).hexdigest()
        name[sid] = None, mac[4:8]
with open(os.path.join(out, "similarity.csv"), newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
page = open(os.path.join(out, "similarity.html"), encoding="utf-8").read()
if len(sys.argv) == 4:
    # Pseudonyms: adjective-animal-hex4, the hex those of the ids' HMACs; no id in the CSV or the page.
    by_hex = {}
    for r in rows:
        for who in (r["first"], r["second"]):
            m = re.fullmatch(r"[a-z]+-[a-z]+-([0-9a-f]{4})", who)
            if not m:
                problems.append(f"{who!r} is not a pseudonym")
            else:
                by_hex[m.group(1)] = who
    for sid, (_, hex4) in name.items():
        name[sid] = by_hex.get(hex4, f"(no pseudonym {hex4})")
        # The names the page shows (its table's cells, each pair's heading), not the code it shows.
        names_shown = " ".join(x for cells in re.findall(r'<td class="[ab]">(.*?)</td>|<h2 id="pair\d+">(.*?)</h2>', page)
                               for x in cells)
        if re.search(r"(?<![\w-])" + re.escape(sid) + r"(?![\w-])", names_shown) or any(sid in (r["first"], r["second"]) for r in rows):
            problems.append(f"the id {sid} shows in a report made with --pseudonyms")
score = {frozenset((r["first"], r["second"])): r for r in rows}
for a, b in copies:
    r = score.get(frozenset((name[a], name[b])))
    if not r or r["at_threshold"] != "yes":
        problems.append(f"lab {lab}: {b} missed: it shares {r['shared_fraction'] if r else 'nothing'} with the reference")
for a, b in independent:
    r = score.get(frozenset((name[a], name[b])))
    if r and r["at_threshold"] == "yes":
        problems.append(f"lab {lab}: {a} and {b}, written independently, flagged at {r['shared_fraction']}")
listed = sum(1 for r in rows if r["at_threshold"] == "yes")
shown = page.count('<tr class="pair">')
if shown != listed:
    problems.append(f"the page lists {shown} pairs, the CSV {listed} at the threshold")
if re.search(r'(src|href)="(https?:)?//', page):
    problems.append("the page loads something from elsewhere: it must be self-contained")
for p in problems:
    print("FAIL:", p)
print(f"checked: {len(copies)} copies found, {len(independent)} independent pairs not flagged" if not problems
      else f"{len(problems)} problems")
sys.exit(1 if problems else 0)
