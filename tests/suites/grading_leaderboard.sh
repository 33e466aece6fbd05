# The leaderboard (sourced by tests/run_tests.sh; also runs on its own:
# `bash tests/suites/grading_leaderboard.sh`). No GPU needed: a fixture class of lab 01 graded on
# two GPU models (tests/grading/leaderboard/: each run folder's audit.jsonl, gradebook.csv and, for
# one, roster.json) goes through `grading/grade leaderboard`; the page is rendered in headless
# Chromium (Debian package chromium, tools/deps/handouts.txt) and its DOM read back: one board per
# lab and GPU, stating the GPU, the date and the tree; its ranks and figures those of the fixture
# (only full correctness and sanitizer marks in the gradebook are ranked, by the audit log's
# interleaved ratio); the CSV the same; pseudonyms chosen in the roster, else derived with the
# course secret; a pseudonym that holds HTML shown as text. Without a secret it is refused.
# The date a board states is the newest "graded_at" of its submissions' audit lines (the H200 run
# records them), never the audit log's last change, which is moved here on a copy as a copy or a
# restore would; a run written before the grader recorded dates (the H100 one) is dated by that
# file, and the page and the CSV say "file date". (The fixture's folders are what `grading/grade
# --roster` writes.)

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

lb_dir=$BUILD/test-logs/grading-leaderboard
lb_fixture=tests/grading/leaderboard
rm -rf "$lb_dir"
mkdir -p "$lb_dir"
if [ ! -x grading/grade ] || [ ! -d "$lb_fixture" ]; then
    skip "leaderboard" "needs the grader and its fixture class (not in the student edition)"
elif ! command -v python3 > /dev/null; then
    fail "leaderboard" "the page is checked with python3 (Debian package python3)"
else
    # The H200 run recorded when it graded: a later change of its audit log (a copy, a restore)
    # moves nothing. The H100 run recorded no date: its audit log's last change is all there is.
    cp -r "$lb_fixture" "$lb_dir/fixture"
    lb_fixture=$lb_dir/fixture
    touch -d '2026-03-04 09:30:00 UTC' "$lb_fixture/h100/audit.jsonl"
    touch -d '2026-06-01 12:00:00 UTC' "$lb_fixture/h200/audit.jsonl"
    printf 'a course secret for the leaderboard test\n' > "$lb_dir/secret"
    expect "leaderboard: refused without a course secret" 2 'no course secret is given: pass --secret-file' \
        env -u GRADING_LEADERBOARD_SECRET grading/grade leaderboard "$lb_dir/none" "$lb_fixture/h100" "$lb_fixture/h200"
    printf 'short\n' > "$lb_dir/short"
    expect "leaderboard: refuses a secret shorter than 16 characters" 2 'fewer than 16 characters' \
        grading/grade leaderboard --secret-file "$lb_dir/short" "$lb_dir/none" "$lb_fixture/h100"
    expect "leaderboard: refuses a folder that is no graded run" 2 'has no audit.jsonl' \
        grading/grade leaderboard --secret-file "$lb_dir/secret" "$lb_dir/none" "$lb_dir"
    expect "leaderboard: built from the fixture class" 0 'lab 01 on NVIDIA H100 80GB HBM3: 3 ranked, 4 not ranked' \
        grading/grade leaderboard --secret-file "$lb_dir/secret" --title "Lab 01 <leaderboard>" "$lb_dir/out" "$lb_fixture/h100" "$lb_fixture/h200"
    expect "leaderboard: the secret from GRADING_LEADERBOARD_SECRET gives the same board" 0 'leaderboard: ' \
        env GRADING_LEADERBOARD_SECRET="a course secret for the leaderboard test" grading/grade leaderboard "$lb_dir/env" "$lb_fixture/h100" "$lb_fixture/h200"
    if cmp -s "$lb_dir/out/leaderboard.csv" "$lb_dir/env/leaderboard.csv"; then pass "leaderboard: the same pseudonyms from the file and the environment"
    else fail "leaderboard: the same pseudonyms from the file and the environment" "the CSVs differ"; fi
    # The dates, without a browser: the page's and the CSV's for each board.
    lb_dates=$(python3 - "$lb_dir/out" << 'PY'
import csv, re, sys
html = open(sys.argv[1] + "/leaderboard.html", encoding="utf-8").read()
for gpu, rest in re.findall(r'<section class="board" data-lab="01" data-gpu="([^"]*)">(.*?)</section>', html, re.S):
    m = re.search(r'Graded: <span class="date">([^<]*)</span>( <span class="date-source">\(file date\)</span>)?\. ', rest)
    print(gpu, "page", m.group(1) if m else "none", "file" if m and m.group(2) else "recorded")
for r in csv.DictReader(open(sys.argv[1] + "/leaderboard.csv", newline="", encoding="utf-8")):
    print(r["gpu"], "csv", r["date"], r["date_source"])
PY
)
    lb_want="NVIDIA H100 80GB HBM3 page 2026-03-04T09:30:00Z file
NVIDIA H200 page 2026-03-05T15:07:45Z recorded"
    if [ "$(printf '%s\n' "$lb_dates" | grep ' page ')" = "$lb_want" ] &&
        [ "$(printf '%s\n' "$lb_dates" | grep ' csv ' | sort -u)" = "$(printf '%s\n' "$lb_want" | sed 's/ page / csv /')" ]; then
        pass "leaderboard: a run's recorded date, not its audit log's last change; an older run's file date, said so"
    else fail "leaderboard: a run's recorded date, not its audit log's last change; an older run's file date, said so" "$(printf '%s' "$lb_dates" | sort -u | tr '\n' ';')"; fi

    if ! command -v chromium > /dev/null; then
        skip "leaderboard: the page in headless Chromium" "chromium is not installed (Debian package chromium, tools/deps/handouts.txt)"
    elif [ -s "$lb_dir/out/leaderboard.html" ]; then
        run_capture "leaderboard.html in chromium" chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
            --user-data-dir="$lb_dir/chromium" --dump-dom "file://$(realpath "$lb_dir/out/leaderboard.html")"
        if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
            fail "leaderboard: the page loads in headless Chromium" "exit $rc, no DOM"
        elif printf '%s' "$err" | grep -E 'CONSOLE|Uncaught|Failed to load|net::ERR_' | grep -v 'dbus' | grep -q .; then
            fail "leaderboard: the page loads in headless Chromium" "$(printf '%s' "$err" | grep -E 'CONSOLE|Uncaught|Failed|ERR_' | head -n 2)"
        else
            pass "leaderboard: the page loads in headless Chromium"
            printf '%s' "$out" > "$lb_dir/dom.html"
            cat > "$lb_dir/check.py" << 'PY'
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
PY
            expect "leaderboard: the rendered page's boards, ranks and figures are the fixture's" 0 '^checked' \
                python3 "$lb_dir/check.py" "$lb_dir/dom.html" "$lb_dir/out/leaderboard.csv" "$lb_dir/secret" "$lb_fixture"
        fi
    fi
fi
