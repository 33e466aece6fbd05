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
    lb_dates=$(python3 tests/tools/leaderboard_dates.py "$lb_dir/out")
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
            expect "leaderboard: the rendered page's boards, ranks and figures are the fixture's" 0 '^checked' \
                python3 tests/tools/check_leaderboard_page.py "$lb_dir/dom.html" "$lb_dir/out/leaderboard.csv" "$lb_dir/secret" "$lb_fixture"
        fi
    fi
fi
