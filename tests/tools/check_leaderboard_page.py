#!/usr/bin/env python3
"""A leaderboard page, as headless Chromium rendered it, against the fixture class it was built
from (tests/grading/leaderboard/): one board per lab and GPU, stating the GPU, the date and the
tree; its ranks and figures those of the fixture (only full correctness and sanitizer marks in
the gradebook are ranked, by the audit log's interleaved ratio); the CSV the same; pseudonyms
chosen in the roster, else derived with the course secret; no pseudonym made an element.

  check_leaderboard_page.py DOM.html leaderboard.csv SECRET_FILE FIXTURE      (in the course tree)

Prints one line per problem and "checked" (exit 0) or "N problems" (exit 1).
Called by the grading_leaderboard suite.
"""
import csv, hmac, hashlib, json, math, os, re, sys, time
from html.parser import HTMLParser
dom_path, csv_path, secret_path, fixture = sys.argv[1:5]
secret = open(secret_path, encoding="utf-8").read().rstrip("\n")
problems = []
def same(what, got, want):
    if got != want:
        problems.append(f"{what}: {got!r}, expected {want!r}")

# The rubric: which tests must be at full marks (correctness, sanitizer), and their points.
kinds, points, test = {}, {}, None
for line in open("grading/rubrics/01.rubric", encoding="utf-8"):
    line = line.split("#")[0].strip()
    m = re.match(r"\[test (\w+)\]", line)
    if m:
        test = m.group(1)
    elif test and "=" in line:
        k, v = (x.strip() for x in line.split("=", 1))
        if k == "kind": kinds[test] = v
        if k == "points": points[test] = float(v)

# What the fixture says: per GPU board, who may be ranked (the gradebook) and their figure (the
# audit log's interleaved ratios, geometric mean), ranked fastest first with ties sharing a rank.
expected = {}
for run in ["h100", "h200"]:
    with open(f"{fixture}/{run}/gradebook.csv", newline="", encoding="utf-8") as f:
        book = {r["student"]: r for r in csv.DictReader(f)}
    lines = [json.loads(l) for l in open(f"{fixture}/{run}/audit.jsonl", encoding="utf-8")]
    run_line = [l for l in lines if l["event"] == "run"][-1]
    try:
        roster = json.load(open(f"{fixture}/{run}/roster.json", encoding="utf-8"))
    except FileNotFoundError:
        roster = None
    file_date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.stat(f"{fixture}/{run}/audit.jsonl").st_mtime))
    for l in lines:
        if l["event"] != "submission":
            continue
        gpu = l["gpu"]["name"] if "gpu" in l else l["device"].split(" (driver ")[0]
        # When it was graded: its line's date, else its run's, else the file's (and the page says so).
        date = l.get("graded_at") or run_line.get("graded_at")
        board = expected.setdefault(("01", gpu), {"date": "", "source": "", "tree": run_line["tree"], "rows": [], "not_ranked": 0})
        if (date or file_date) > board["date"]:
            board["date"], board["source"] = date or file_date, "recorded" if date else "file"
        row = book[l["student"]]
        full = all(float(row[t] or 0) == points[t] for t in kinds if kinds[t] in ("correctness", "sanitizer"))
        ratios = [l["leaderboard"]["slowdown"][t] for t in kinds if kinds[t] == "performance" and "leaderboard" in l and t in l["leaderboard"]["slowdown"]]
        timed = len(ratios) == sum(1 for t in kinds if kinds[t] == "performance")
        if not (full and timed and not row["note"]):
            board["not_ranked"] += 1
            continue
        figure = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        if roster:
            entry = roster["entries"][roster["students"][l["student"]][0]]
            sid, chosen = entry["id"], entry["pseudonym"]
        else:
            sid, chosen = l["student"], ""
        board["rows"].append({"figure": figure, "id": sid, "chosen": chosen})
for board in expected.values():
    board["rows"].sort(key=lambda r: r["figure"])
    for i, r in enumerate(board["rows"]):
        r["rank"] = board["rows"][i - 1]["rank"] if i and r["figure"] == board["rows"][i - 1]["figure"] else i + 1

# The rendered DOM.
class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.boards, self.cls, self.tags = [], [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "section" and "board" in (a.get("class") or ""):
            self.boards.append({"lab": a.get("data-lab"), "gpu": a.get("data-gpu"), "rows": [], "meta": {}})
        if tag == "tr" and self.boards:
            self.row = {}
        self.cls.append((tag, (a.get("class") or "").split()))
    def handle_endtag(self, tag):
        while self.cls:
            t, c = self.cls.pop()
            if t == tag:
                break
        if tag == "tr" and self.boards and getattr(self, "row", None):
            self.boards[-1]["rows"].append(self.row)
            self.row = None
    def handle_data(self, data):
        if not self.cls or not self.boards:
            return
        t, c = self.cls[-1]
        for k in ("rank", "pseudonym", "figure"):
            if t == "td" and k in c and getattr(self, "row", None) is not None:
                self.row[k] = self.row.get(k, "") + data
        for k in ("gpu", "date", "date-source", "tree"):
            if t == "span" and k in c:
                self.boards[-1]["meta"][k] = self.boards[-1]["meta"].get(k, "") + data
page = Page()
page.feed(open(dom_path, encoding="utf-8").read())
if "img" in page.tags or "script" in page.tags:
    problems.append("a pseudonym became an element of the page (img or script)")
same("boards (lab, GPU)", sorted((b["lab"], b["gpu"]) for b in page.boards), sorted(expected))
with open(csv_path, newline="", encoding="utf-8") as f:
    csv_rows = list(csv.DictReader(f))
for b in page.boards:
    want = expected.get((b["lab"], b["gpu"]))
    if not want:
        continue
    name = b["gpu"]
    same(f"{name}: GPU stated", b["meta"].get("gpu"), b["gpu"])
    same(f"{name}: date stated", b["meta"].get("date"), want["date"])
    same(f"{name}: tree stated", b["meta"].get("tree"), want["tree"])
    # A shared rank is shown as "=2" on the page (the fixture's logs have no intervals: equal figures).
    same(f"{name}: ranks", [int(r["rank"].lstrip("=")) for r in b["rows"]], [r["rank"] for r in want["rows"]])
    same(f"{name}: figures", [r["figure"] for r in b["rows"]], ["%.3f" % r["figure"] for r in want["rows"]])
    for got, w in zip(b["rows"], want["rows"]):
        if w["chosen"]:
            same(f"{name}: the roster's pseudonym", got["pseudonym"], w["chosen"])
        else:
            mac = hmac.new(secret.encode(), ("cudalabs leaderboard pseudonym\n" + w["id"]).encode(), hashlib.sha256).hexdigest()
            if not re.fullmatch(r"[a-z]+-[a-z]+-" + mac[4:8], got["pseudonym"]) or w["id"] in got["pseudonym"]:
                problems.append(f"{name}: {got['pseudonym']!r} is not the pseudonym the secret derives for rank {w['rank']}")
    mine = [r for r in csv_rows if r["gpu"] == b["gpu"]]
    same(f"{name}: date source stated", b["meta"].get("date-source"), "(file date)" if want["source"] == "file" else None)
    same(f"{name}: CSV rows", [(r["rank"], r["pseudonym"], r["figure"], r["date"], r["tree"], r["date_source"]) for r in mine],
         [(r["rank"].lstrip("="), r["pseudonym"], r["figure"], want["date"], want["tree"], want["source"]) for r in b["rows"]])
    text = open(dom_path, encoding="utf-8").read()
    if f"{len(want['rows'])} ranked, {want['not_ranked']} not ranked" not in text:
        problems.append(f"{name}: the page does not say {len(want['rows'])} ranked, {want['not_ranked']} not ranked")
for p in problems:
    print("FAIL:", p)
print("checked" if not problems else f"{len(problems)} problems")
sys.exit(1 if problems else 0)
