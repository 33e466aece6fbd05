# Which submissions share code: grading/grade similarity (sourced by tests/run_tests.sh; also runs
# on its own: `bash tests/suites/grading_similarity.sh`). No GPU needed. The corpus
# (grading/similarity/measure.py --classes: per lab 01, 04, 06, 08, 12 and 13 the reference
# solution, six disguised copies of it from tests/grading/similarity/NN/, and the own lines of
# every correct style of the grader's corpus) goes through the report at its default threshold:
# it fails if one disguised copy is missed or one pair written independently is flagged
# (tests/tools/check_similarity.py, which must itself fail on a report at a threshold that misses
# copies and at one that flags independent pairs). Bad input is refused in one sentence, exit 2;
# a graded run's folder is read through its record (the submissions folder and the lab it names);
# --pseudonyms names every student as the leaderboard does; the page loads in headless Chromium
# (Debian package chromium; skipped without it) and lists the CSV's pairs; a class of 300 is
# reported in under a minute (on 2 cores).

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# sim_bad_inputs DIR: every bad command line is one sentence, exit 2, nothing written.
sim_bad_inputs() {
    local d=$1
    mkdir -p "$d/empty" "$d/run_without_record"
    : > "$d/run_without_record/audit.jsonl"
    expect "similarity: --help" 0 'evidence for a person to judge' grading/grade similarity --help
    expect "similarity: refuses a folder that does not exist" 2 '^grade similarity: .*/none is not a folder' \
        grading/grade similarity --lab 01 --out "$d/o" "$d/none"
    if [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && [ -z "$out" ] && [ ! -e "$d/o" ]; then pass "similarity: a missing folder is one sentence, nothing written"
    else fail "similarity: a missing folder is one sentence, nothing written" "stderr: $(printf '%s' "$err" | tr '\n' ';')"; fi
    expect "similarity: refuses a lab that does not exist" 2 'lab 99 has no starter' \
        grading/grade similarity --lab 99 --out "$d/o" "$d/class/01"
    expect "similarity: refuses a lab that is no number" 2 'two digits' grading/grade similarity --lab one --out "$d/o" "$d/class/01"
    expect "similarity: refuses a threshold above 1" 2 'at most 1' grading/grade similarity --threshold 1.5 --out "$d/o" "$d/class/01"
    expect "similarity: refuses a threshold that is no number" 2 'threshold' grading/grade similarity --threshold high --out "$d/o" "$d/class/01"
    expect "similarity: refuses a folder without submissions" 2 'holds no submissions' grading/grade similarity --out "$d/o" "$d/empty"
    expect "similarity: a folder of submissions needs --out" 2 'with --out DIR' grading/grade similarity "$d/class/01"
    expect "similarity: refuses an archive that is no folder" 2 'not a folder: --archive' \
        grading/grade similarity --out "$d/o" --archive "$d/none" "$d/class/01"
    expect "similarity: refuses a graded run's folder without its record" 2 'without its record' \
        grading/grade similarity "$d/run_without_record"
    expect "similarity: --pseudonyms without a course secret" 2 'needs the course secret' \
        env -u GRADING_LEADERBOARD_SECRET grading/grade similarity --pseudonyms --out "$d/o" "$d/class/01"
    expect "similarity: refuses an unknown option" 2 'unrecognized arguments' grading/grade similarity --no-such --out "$d/o" "$d/class/01"
}

# sim_corpus DIR: every lab's corpus at the default threshold; the check fails where it should.
sim_corpus() {
    local d=$1 nn
    for nn in 01 04 06 08 12 13; do
        expect "similarity: lab $nn's corpus reported" 0 "^similarity: .* submissions of lab $nn" \
            grading/grade similarity --lab "$nn" --out "$d/report/$nn" "$d/class/$nn"
        expect "similarity: lab $nn: every disguised copy found, no independent pair flagged" 0 '^checked: ' \
            python3 tests/tools/check_similarity.py "$nn" "$d/report/$nn"
    done
    expect "similarity: the check fails on copies missed (threshold 0.95)" 0 '' \
        grading/grade similarity --lab 06 --threshold 0.95 --out "$d/report/06-high" "$d/class/06"
    expect "similarity: the check names the copies a high threshold misses" 1 'FAIL: lab 06: disguise-combined missed' \
        python3 tests/tools/check_similarity.py 06 "$d/report/06-high"
    expect "similarity: the check fails on independent pairs flagged (threshold 0.05)" 0 '' \
        grading/grade similarity --lab 01 --threshold 0.05 --out "$d/report/01-low" "$d/class/01"
    expect "similarity: the check names the independent pairs a low threshold flags" 1 'written independently, flagged' \
        python3 tests/tools/check_similarity.py 01 "$d/report/01-low"
    printf 'a course secret for the similarity test\n' > "$d/secret"
    expect "similarity: --pseudonyms" 0 '^similarity: ' \
        grading/grade similarity --lab 01 --pseudonyms --secret-file "$d/secret" --out "$d/report/01-pseudonyms" "$d/class/01"
    expect "similarity: the leaderboard's pseudonyms, no id shown, the same pairs found" 0 '^checked: ' \
        python3 tests/tools/check_similarity.py 01 "$d/report/01-pseudonyms" "$d/secret"
}

# sim_run_folder DIR: a graded run's folder is read through its record: the lab and the submissions
# it names, the report into the run's folder; an archive's copies are paired with the class.
sim_run_folder() {
    local d=$1
    mkdir -p "$d/run/.resume" "$d/archive"
    : > "$d/run/audit.jsonl"
    printf '{"command": {"lab": "04", "inputs": ["%s"]}, "finished": true}\n' "$(realpath "$d/class/04")" > "$d/run/.resume/run.json"
    expect "similarity: a graded run's folder, its lab and submissions from its record" 0 'submissions of lab 04, .*the starter labs/04-' \
        grading/grade similarity "$d/run"
    expect "similarity: the run's report is in its folder" 0 '^checked: ' python3 tests/tools/check_similarity.py 04 "$d/run/similarity"
    cp "$d/class/04/disguise-renamed.cu" "$d/archive/last_year.cu"
    expect "similarity: an archive of an earlier term" 0 '1 from archives' \
        grading/grade similarity --archive "$d/archive" --out "$d/report/04-archive" "$d/run"
    if grep -qE '^reference,class,archive: archive/last_year,archive,.*,yes.?$' "$d/report/04-archive/similarity.csv"; then
        pass "similarity: a copy in the archive is paired with the class"
    else fail "similarity: a copy in the archive is paired with the class" "no row of reference and archive/last_year at the threshold in the CSV"; fi
    mkdir -p "$d/public"
    cp "$d/class/04/disguise-combined.cu" "$d/public/forum_post.cu"
    expect "similarity: known public solutions" 0 '1 from archives and public' \
        grading/grade similarity --public "$d/public" --out "$d/report/04-public" "$d/run"
    if grep -qE '^reference,class,public: public/forum_post,public,.*,yes.?$' "$d/report/04-public/similarity.csv" &&
        ! grep -q '^public' "$d/report/04-public/similarity.csv"; then
        pass "similarity: a copy of a public solution is paired with the class"
    else fail "similarity: a copy of a public solution is paired with the class" "no row of reference and public/forum_post at the threshold"; fi
}

# sim_graded DIR: after a real grade run (compile-only: no GPU) of two students, one a disguised
# copy of the other, the run names the report's command, and the report reads that run's record.
sim_graded() {
    local d=$1
    mkdir -p "$d/graded-class"
    cp "$d/class/01/reference.cu" "$d/graded-class/alice.cu"
    cp "$d/class/01/disguise-renamed.cu" "$d/graded-class/bob.cu"
    expect "similarity: a grade run names the report's command" 0 "shared code: grading/grade similarity .*/graded " \
        grading/grade --lab 01 --compile-only --seed 5 --out "$d/graded" "$d/graded-class"
    expect "similarity: on the folder of a real grade run" 0 'submissions of lab 01' grading/grade similarity "$d/graded"
    if grep -qE '^(alice,class,bob|bob,class,alice),.*,yes.?$' "$d/graded/similarity/similarity.csv" 2> /dev/null; then
        pass "similarity: the real run's copy is paired"
    else fail "similarity: the real run's copy is paired" "$(head -n 3 "$d/graded/similarity/similarity.csv" 2>&1 | tr '\n' ';')"; fi
}

# sim_roster DIR: --pseudonyms on a run graded with a roster: a student's chosen pseudonym, else one
# derived from their roster id (not the submission's name), as the leaderboard names them.
sim_roster() {
    local d=$1 csv=$1/run/similarity/similarity.csv
    printf '{"entries": [{"id": "S-01", "pseudonym": "Warp & Weft"}, {"id": "S-02", "pseudonym": ""}],
 "students": {"reference": [0], "disguise-renamed": [1]}}\n' > "$d/run/roster.json"
    expect "similarity: --pseudonyms without a secret, where the roster leaves a student without one" 2 "has no pseudonym in the run's roster and --pseudonyms needs the course secret" \
        env -u GRADING_LEADERBOARD_SECRET grading/grade similarity --pseudonyms "$d/run"
    expect "similarity: --pseudonyms on a run graded with a roster" 0 '^similarity: ' \
        grading/grade similarity --pseudonyms --secret-file "$d/secret" "$d/run"
    if grep -q '^Warp & Weft,class,' "$csv" && ! grep -qE '(^|,)(reference|disguise-renamed|S-0[12]),' "$csv" &&
        [ "$(grep -cE '^[a-z]+-[a-z]+-[0-9a-f]{4},class,' "$csv")" -gt 0 ]; then
        pass "similarity: the roster's chosen pseudonym, the others derived from their roster id, no name or id shown"
    else fail "similarity: the roster's chosen pseudonym, the others derived" "$(head -n 3 "$csv" | tr '\n' ';')"; fi
    rm -f "$d/run/roster.json"
}

# sim_page DIR: the page in headless Chromium: it loads, with nothing from elsewhere, and lists the pairs.
sim_page() {
    local d=$1 rows want
    if ! command -v chromium > /dev/null; then
        skip "similarity: the page in headless Chromium" "chromium is not installed (Debian package chromium, tools/deps/handouts.txt)"
        return
    fi
    run_capture "similarity.html in chromium" chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --user-data-dir="$d/chromium" --dump-dom "file://$(realpath "$d/report/06/similarity.html")"
    if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
        fail "similarity: the page loads in headless Chromium" "exit $rc, no DOM"
        return
    elif printf '%s' "$err" | grep -E 'CONSOLE|Uncaught|Failed to load|net::ERR_' | grep -v 'dbus' | grep -q .; then
        fail "similarity: the page loads in headless Chromium" "$(printf '%s' "$err" | grep -E 'CONSOLE|Uncaught|Failed|ERR_' | head -n 2)"
        return
    fi
    pass "similarity: the page loads in headless Chromium"
    rows=$(printf '%s' "$out" | grep -o '<tr class="pair">' | wc -l)
    want=$(grep -cE ',yes.?$' "$d/report/06/similarity.csv")
    if [ "$rows" = "$want" ] && printf '%s' "$out" | grep -q '<span class="shared">' && printf '%s' "$out" | grep -q 'not a verdict'; then
        pass "similarity: the rendered page lists the CSV's $want pairs, shared lines marked, and says it is no verdict"
    else fail "similarity: the rendered page lists the CSV's pairs, shared lines marked" "$rows rows, the CSV $want"; fi
}

# sim_timing DIR: a class of 300 in under a minute.
sim_timing() {
    local d=$1 started
    python3 tests/tools/similarity_class.py "$d/class300" 300 > /dev/null
    started=$SECONDS
    expect "similarity: a class of 300" 0 '^similarity: 300 submissions' grading/grade similarity --lab 13 --out "$d/report/300" "$d/class300"
    if [ $((SECONDS - started)) -lt 60 ]; then pass "similarity: a class of 300 in $((SECONDS - started)) s (under a minute)"
    else fail "similarity: a class of 300 in under a minute" "$((SECONDS - started)) s on $(nproc) CPUs"; fi
}

sim_dir=$BUILD/test-logs/grading-similarity
rm -rf "$sim_dir"
mkdir -p "$sim_dir"
if [ ! -x grading/grade ] || [ ! -d grading/similarity ] || [ ! -d tests/grading/similarity ]; then
    skip "similarity" "needs the grader and its corpus (not in the student edition)"
elif ! command -v python3 > /dev/null || ! python3 -c 'import pygments' 2> /dev/null; then
    fail "similarity" "the report needs python3 and Pygments (Debian packages python3 and python3-pygments, tools/deps/grading.txt)"
else
    python3 grading/similarity/measure.py --classes "$sim_dir/class"
    sim_bad_inputs "$sim_dir"
    sim_corpus "$sim_dir"
    sim_run_folder "$sim_dir"
    sim_graded "$sim_dir"
    sim_roster "$sim_dir"
    sim_page "$sim_dir"
    sim_timing "$sim_dir"
fi
