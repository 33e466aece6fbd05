# What every test script shares (sourced by tests/run_tests.sh and tests/standalone.sh): the
# result lines and their count, timed runs of a command, where a lab's files are, and the cells
# of a grader's gradebook. The caller sets LOG (every line and each command's output also go
# there) and may set RUN_TIMEOUT (the seconds a command may run, 600 by default).

passed=${passed:-0} failed=${failed:-0} skipped=${skipped:-0}
say() { echo "$1"; echo "$1" >> "$LOG"; }
pass() { passed=$((passed + 1)); say "PASS  $1"; }
fail() { failed=$((failed + 1)); say "FAIL  $1${2:+ -- $2}"; }
skip() { skipped=$((skipped + 1)); say "SKIP  $1${2:+ -- $2}"; }

# run_capture NAME CMD...: runs CMD with a time limit; sets $rc, $out (stdout) and $err (stderr).
run_capture() {
    local name=$1; shift
    local o e
    o=$(mktemp) e=$(mktemp)
    timeout --kill-after=10 "${RUN_TIMEOUT:-600}" "$@" > "$o" 2> "$e" < /dev/null
    rc=$?
    out=$(cat "$o") err=$(cat "$e")
    rm -f "$o" "$e"
    { echo "=== $name: $* (exit $rc)"; echo "$out"; [ -n "$err" ] && echo "--- stderr:" && echo "$err"; } >> "$LOG"
}

# expect NAME WANTED_EXIT PATTERN CMD...: passes when CMD exits WANTED_EXIT and its output
# (stdout and stderr) matches the extended regex PATTERN ('' matches anything).
expect() {
    local name=$1 want=$2 pattern=$3; shift 3
    run_capture "$name" "$@"
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit $rc, expected $want: $(printf '%s\n%s' "$out" "$err" | grep -m1 -E 'FAIL|error|Error' || printf '%s' "$err" | tail -n 3 | head -c 300)"
    elif [ -n "$pattern" ] && ! printf '%s\n%s' "$out" "$err" | grep -qE -- "$pattern"; then
        fail "$name" "output does not match /$pattern/"
    else
        pass "$name"
    fi
}

# lab_dir NN: the lab's folder, labs/NN-topic (nothing when there is none).
lab_dir() { ls -d labs/"$1"-* 2>/dev/null | head -n1; }

# student_file NN: the file the student edits, labs/NN-topic/TOPIC.cu (every .cu but the driver).
student_file() {
    local dir
    dir=$(lab_dir "$1")
    [ -n "$dir" ] && ls "$dir"/*.cu 2>/dev/null | grep -v '/driver\.cu$' | head -n1
}

# patch_base PATCH: the file a unified diff (diff -u) patches, as its "---" line names it.
patch_base() { head -n1 "$1" | sed -n 's/^--- \([^[:space:]]*\).*/\1/p'; }

# patched_copy PATCH BASE DEST: writes DEST, a copy of BASE with PATCH applied by GNU patch. No
# fuzz: a hunk whose context changed fails instead of landing somewhere else. When it does not
# apply, it prints patch's first three lines (on one line), removes DEST and returns 1.
patched_copy() {
    local patch=$1 base=$2 dest=$3 log
    cp "$base" "$dest" || return 1
    if ! log=$(patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$dest" < "$patch" 2>&1); then
        echo "$log" | head -n 3 | tr '\n' ' '
        rm -f "$dest"
        return 1
    fi
}

# lacks_tools NAME DEPS MISSING: true when MISSING (the tools a suite lacks, " a b") is not empty,
# after failing NAME in CI (where tools/install-deps.sh has installed every list) or skipping it
# elsewhere, with what is missing and the command that installs it (DEPS: the list of
# tools/deps/ that holds them; empty: every list).
lacks_tools() {
    local name=$1 install="bash tools/install-deps.sh${2:+ $2}" missing=$3
    [ -n "$missing" ] || return 1
    if [ -n "${CI:-}" ]; then fail "$name" "missing tools:$missing ($install)"
    else skip "$name" "missing tools:$missing (sudo $install)"; fi
}

# grading_class_ready NAME TOOL...: true where a class of lab 01 can be made and graded: the
# grader and lab 01's reference solution (not in the student edition: NAME is skipped) and the
# TOOLs, GNU patch among them (a missing one fails NAME, naming it).
grading_class_ready() {
    local name=$1 tool missing=""; shift
    if [ ! -f solutions/01-vector-add/vector_add.cu ] || [ ! -x grading/grade ]; then
        skip "$name" "needs the grader and lab 01's reference solution (not in the student edition)"
        return 1
    fi
    for tool in "$@"; do command -v "$tool" > /dev/null || missing="$missing $tool"; done
    [ -z "$missing" ] || { fail "$name" "the class is made and checked with tools this machine lacks:$missing (Debian packages of those names)"; return 1; }
}

# audit_dates_masked AUDIT: the audit log with each line's "graded_at" (when that run began, or
# when that submission's results were written: every run's own) as "-". Fails where a line has
# no such date, so that a comparison of masked logs cannot hide a missing one.
audit_dates_masked() {
    local masked
    masked=$(sed -E 's/"graded_at":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"/"graded_at":"-"/' "$1") || return 1
    printf '%s\n' "$masked"
    ! printf '%s\n' "$masked" | grep -v '^$' | grep -qv '"graded_at":"-"'
}

# same_audit_but_dates A B: two audit logs alike but for their dates (audit_dates_masked), every
# line of both dated.
same_audit_but_dates() {
    local a b
    a=$(audit_dates_masked "$1") && b=$(audit_dates_masked "$2") && [ "$a" = "$b" ]
}

# audit_date AUDIT EVENT [STUDENT]: the "graded_at" of the last run line (EVENT run) or of
# STUDENT's last line (EVENT submission).
audit_date() { python3 tests/tools/audit_date.py "$@"; }

# leaderboard_states_date NAME RUN_DIR DATE: the leaderboard of a graded run, its audit log's file
# time moved far back (as a copy or a restore may move it), must state DATE, the run's recorded one.
leaderboard_states_date() {
    local name=$1 run=$2 date=$3 board=$2-leaderboard
    touch -d '2001-01-01 00:00:00 UTC' "$run/audit.jsonl"
    expect "$name: a leaderboard of it" 0 'leaderboard: ' \
        env GRADING_LEADERBOARD_SECRET="a course secret for the grading tests" grading/grade leaderboard "$board" "$run"
    if [ -n "$date" ] && grep -qF "Graded: <span class=\"date\">$date</span>. " "$board/leaderboard.html"; then
        pass "$name: its leaderboard states its newest submission's date, not its file's"
    else fail "$name: its leaderboard states its newest submission's date, not its file's" \
        "expected '$date'; $(grep -o 'Graded: <span class="date">[^<]*</span>[^.]*' "$board/leaderboard.html" 2> /dev/null | head -n 1)"; fi
}

# gradebook_cells CSV COLUMN...: per student (the first column), the named columns of a gradebook
# (RFC 4180: quoted cells may hold commas, quotes and line breaks), one line each, cells joined by |
# (a line break in a cell as \n, an absent column empty).
gradebook_cells() {
    local csv=$1; shift
    awk -v want="$*" '
        function parse(rec,   i, ch, cell, quoted, n) {
            split("", f); n = 0; cell = ""; quoted = 0
            for (i = 1; i <= length(rec); i++) {
                ch = substr(rec, i, 1)
                if (quoted) {
                    if (ch != "\"") cell = cell ch
                    else if (substr(rec, i + 1, 1) == "\"") { cell = cell "\""; i++ }
                    else quoted = 0
                } else if (ch == "\"") quoted = 1
                else if (ch == ",") { f[++n] = cell; cell = "" }
                else cell = cell ch
            }
            f[++n] = cell
            return n
        }
        BEGIN { nw = split(want, w, " ") }
        {
            rec = pending == "" ? $0 : pending "\n" $0
            tmp = rec
            if (gsub(/"/, "", tmp) % 2) { pending = rec; next }  # a quoted line break: read on
            pending = ""
            n = parse(rec)
            if (!head) { for (i = 1; i <= n; i++) col[f[i]] = i; head = 1; next }
            out = f[1]
            for (i = 1; i <= nw; i++) { cell = (w[i] in col) ? f[col[w[i]]] : ""; gsub(/\n/, "\\n", cell); out = out "|" cell }
            print out
        }' "$csv"
}
