# The grading tool's suite (sourced by tests/run_tests.sh; also runs on its own:
# `bash tests/suites/grading.sh`, with CUDALABS_GPU=0/1 to force the GPU part off or on).
#   always:      the grader's command line, and a compile-only pass over every lab's corpus
#                (tests/grading/NN/): the cases expected to be rejected (integrity, compile
#                errors) are, with their reason; every other case builds and passes the audit;
#   with a GPU:  every lab with a rubric is graded: the reference solution, the untouched
#                starter and each corpus case must score what expected.txt says.
# The corpus: tests/grading/NN/CASE.patch is a unified diff (diff -u) of the reference solution
# (or of the starter: the path on its "---" line says which), applied to a fresh copy when the
# suite runs; CASE.files/ holds files submitted beside it. A patch that no longer applies fails
# the suite, naming the case. expected.txt says what each case must score (syntax below). To
# write or refresh a case: edit a copy of the base file, then
#   diff -u --label solutions/NN-topic/TOPIC.cu --label CASE/TOPIC.cu solutions/NN-topic/TOPIC.cu copy.cu > tests/grading/NN/CASE.patch
# GRADING_LOG_DIR keeps the grader's results (default $BUILD/test-logs/grading).
# GRADING_TRIALS=N: trials per correctness test on the GPU (default 1).
# GRADING_ONLY="01 08": only these labs. GRADING_ISOLATIONS="bwrap uid": with a GPU, grade
# the corpus once per isolation level (grading/grade --isolation LEVEL) instead of once with the
# grader's own choice, and report "corpus: X of Y cases scored as expected (LEVEL)" for each.
# GRADING_OPTIONS="--separate-correctness": more grader options for the corpus's GPU runs.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi
# Grading a whole class (one grader run) may take longer than one lab program.
grading_saved_timeout=${RUN_TIMEOUT:-600}
RUN_TIMEOUT=${GRADING_RUN_TIMEOUT:-3600}

grading_dir=${GRADING_LOG_DIR:-$BUILD/test-logs/grading}
read -r -a grader_options <<< "${GRADING_OPTIONS:-}"
rm -rf "$grading_dir"
mkdir -p "$grading_dir"

# grading_score CSV STUDENT COLUMN: one cell of the gradebook ("" when absent).
grading_score() {
    gradebook_cells "$1" "$3" | awk -v s="$2" '{ at = index($0, "|") } substr($0, 1, at - 1) == s { print substr($0, at + 1) }'
}

# grading_outside_code FILE: the lines of a Markdown file outside its fenced code blocks
# (CommonMark: a fence of 3 or more backticks or tildes, indented by at most 3 spaces, closed by
# a line of at least as many of the same character). What a submission prints or makes the
# compiler print is quoted in such blocks: outside them it cannot forge anything.
grading_outside_code() {
    awk '{
        line = $0
        for (i = 0; i < 3 && substr(line, 1, 1) == " "; i++) line = substr(line, 2)  # up to 3 spaces of indentation
        ch = substr(line, 1, 1); run = 0
        if (ch == "`" || ch == "~") run = match(line, ch == "`" ? "^`+" : "^~+") ? RLENGTH : 0
        if (fence != "") {
            if (ch == fence && run >= fence_len && substr(line, run + 1) ~ /^[ \t]*$/) fence = ""
            next
        }
        if (run >= 3 && !(ch == "`" && index(substr(line, run + 1), "`"))) { fence = ch; fence_len = run; next }
        print
    }' "$1"
}

# What expected.txt says, one case per line:
#   CASE  TEST=N|TEST=LO..HI|total=N|rejected=yes ...  PATTERN && PATTERN && !PATTERN
# rejected=yes: not graded at all (integrity or compile failure). PATTERN: the feedback must
# match it (grep -E); !PATTERN: the feedback outside its quoted blocks must not. Every feedback
# must also have exactly one "Score:" line and one "# " heading outside its quoted blocks.
# Lines starting with '#' are comments (one before each case says what it does and why).

# grading_check LAB OUTDIR [compile_only] [LABEL]: every line of tests/grading/LAB/expected.txt
# against the grader's results in OUTDIR. With compile_only=1 nothing ran: the cases expected to
# be rejected must be, with their patterns, and every other case must have been built and passed
# the audit. Adds to grading_ok/grading_cases.
grading_check() {
    local nn=$1 dir=$2 compile_only=${3:-0} label=${4:-} line name scores pattern s test want got lo hi ok fb
    local what="grade lab$nn"; [ -n "$label" ] && what="grade lab$nn ($label)"
    while IFS= read -r line; do
        case $line in ''|'#'*) continue ;; esac
        name=$(awk '{print $1}' <<< "$line")
        scores=$(awk '{ for (i = 2; i <= NF && $i ~ /^[a-z_0-9]+=/; i++) printf "%s ", $i }' <<< "$line")
        pattern=$(awk '{ for (i = 2; i <= NF && $i ~ /^[a-z_0-9]+=/; i++); for (; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "") }' <<< "$line")
        [[ " ${grading_broken:-} " == *" $nn/$name "* ]] && continue  # its patch did not apply: failed already
        fb=$dir/feedback/$name.md
        grading_cases=$((grading_cases + 1))
        if [ ! -f "$fb" ]; then fail "$what $name" "no feedback written"; continue; fi
        ok=1
        if [ "$(grading_outside_code "$fb" | grep -c '^Score:')" != 1 ] || [ "$(grading_outside_code "$fb" | grep -c '^# ')" != 1 ]; then
            fail "$what $name" "the feedback does not have exactly one Score line and one title outside its quoted blocks (see $fb)"
            ok=0
        fi
        if [ "$compile_only" = 1 ] && [[ " $scores" != *" rejected=yes "* ]]; then
            if grep -q '^\*\*Not graded' "$fb"; then
                fail "$what $name builds and passes the audit" "$(grep -m1 '^\*\*Not graded' "$fb")"
            elif [ "$ok" = 1 ]; then
                grading_ok=$((grading_ok + 1))
                pass "$what $name builds and passes the audit"
            fi
            continue
        fi
        for s in $scores; do
            test=${s%%=*} want=${s#*=}
            if [ "$test" = rejected ]; then
                if ! grep -q '^\*\*Not graded:\*\*' "$fb"; then
                    fail "$what $name" "was not rejected (see $fb)"; ok=0
                fi
                continue
            fi
            [ "$compile_only" = 1 ] && continue
            got=$(grading_score "$dir/gradebook.csv" "$name" "$test")
            if [[ $want == *..* ]]; then lo=${want%..*} hi=${want#*..}; else lo=$want hi=$want; fi
            if [ -z "$got" ] || ! awk -v g="$got" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(g >= lo - 1e-6 && g <= hi + 1e-6) }'; then
                fail "$what $name" "$test = ${got:-missing}, expected $want (see $fb)"
                ok=0
            fi
        done
        local rest=$pattern part
        while [ -n "$rest" ]; do
            part=${rest%% && *}
            [ "$part" = "$rest" ] && rest="" || rest=${rest#* && }
            if [ "${part:0:1}" = '!' ]; then
                if grading_outside_code "$fb" | grep -qE -- "${part:1}"; then
                    fail "$what $name" "the feedback outside its quoted blocks matches /${part:1}/ (see $fb)"
                    ok=0
                fi
            elif ! grep -qE -- "$part" "$fb"; then
                fail "$what $name" "feedback does not match /$part/ (see $fb)"
                ok=0
            fi
        done
        if [ "$ok" = 1 ]; then
            grading_ok=$((grading_ok + 1))
            pass "$what $name: $(echo $scores)"
        fi
    done < "tests/grading/$nn/expected.txt"
}

# grading_corpus LAB SUBMISSIONS: the reference, the untouched starter and every case of
# tests/grading/LAB/, each in a folder of its own. A patch that does not apply fails, naming the
# case (and the case is left out).
grading_corpus() {
    local nn=$1 subs=$2 labdir soldir topic p name base dest log
    labdir=$(lab_dir "$nn")
    soldir=solutions/$(basename "$labdir")
    topic=$(basename "$(student_file "$nn")")
    rm -rf "$subs"; mkdir -p "$subs/reference" "$subs/starter"
    cp "$soldir/$topic" "$subs/reference/" && cp "$labdir/$topic" "$subs/starter/"
    for p in tests/grading/$nn/*.patch; do
        [ -f "$p" ] || continue
        name=$(basename "$p" .patch)
        base=$(patch_base "$p")
        if [ "$base" != "$soldir/$topic" ] && [ "$base" != "$labdir/$topic" ]; then
            fail "corpus lab$nn $name" "$p patches '$base', not $soldir/$topic or $labdir/$topic"
            grading_broken="${grading_broken:-} $nn/$name"; continue
        fi
        dest=$subs/$name
        mkdir -p "$dest"
        if ! log=$(patched_copy "$p" "$base" "$dest/$topic"); then
            fail "corpus lab$nn $name" "$p no longer applies to $base: $log"
            grading_broken="${grading_broken:-} $nn/$name"; rm -rf "$dest"; continue
        fi
        [ -d "tests/grading/$nn/$name.files" ] && cp -r "tests/grading/$nn/$name.files/." "$dest/"
    done
    # Every case has its line in expected.txt, and every line its case.
    if [ -f "tests/grading/$nn/expected.txt" ]; then
        for p in tests/grading/$nn/*.patch; do
            [ -f "$p" ] || continue
            grep -q "^$(basename "$p" .patch)[[:space:]]" "tests/grading/$nn/expected.txt" \
                || fail "corpus lab$nn $(basename "$p" .patch)" "no line in tests/grading/$nn/expected.txt"
        done
        awk '!/^#/ && NF { print $1 }' "tests/grading/$nn/expected.txt" | while read -r name; do
            [ "$name" = reference ] || [ "$name" = starter ] || [ -f "tests/grading/$nn/$name.patch" ] \
                || echo "$name"
        done > "$grading_dir/orphans-$nn"
        while read -r name; do
            fail "corpus lab$nn $name" "in expected.txt but there is no tests/grading/$nn/$name.patch"
            grading_broken="${grading_broken:-} $nn/$name"
        done < "$grading_dir/orphans-$nn"
    fi
}

command -v patch > /dev/null || { fail "grading corpus" "the corpus needs GNU patch (Debian package patch)"; }

grader=grading/grade
expect "grader --help" 0 'Usage: grading/grade --lab NN' $grader --help
expect "grader needs --lab" 2 'error: --lab NN is required' $grader somewhere
expect "grader rejects an unknown option" 2 'unknown option' $grader --lab 01 --no-such-flag x
expect "grader rejects a missing submission folder" 2 'no such file or folder' $grader --lab 01 --compile-only --out "$grading_dir/missing" /nonexistent/folder
printf 'lab = 01\n[test t]\nkind = correctness\npoints = 5\nvariants = no_such_variant\nsizes = 7\n' > "$grading_dir/bad.rubric"
expect "grader names a rubric's unknown variant" 2 "rubric error: .*no_such_variant" \
    $grader --lab 01 --rubric "$grading_dir/bad.rubric" --compile-only --out "$grading_dir/bad" labs/01-vector-add

# A kept verifier (grade's default; --separate-verifiers turns it off): build/grading/sol01,
# started as --verifier-requests, answers requests on its descriptor 3 one after another from one
# process, each as a verifier started for it would end (no GPU: 77; with one, outputs that were
# never stored fail: 1), refuses what is not a verification (2) and goes on, and ends when the
# grader closes its end, with the last run's code. A second one, whose request is cut short by
# that close, ends with a usage error (2). tests/tools/kept_verifier_requests.py serves both.
grading_kept_verifier() {
    local program=$1 name="a kept verifier answers one request after another, and ends with the grader's end (2 when a request is cut short)" py
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "$name" "no python3"; return; }
    mkdir -p "$grading_dir"
    run_capture "$name" "$py" tests/tools/kept_verifier_requests.py "$program" "$grading_dir/kept-verifier"
    local want
    case "$out" in
        "EXIT 77 | "*) want="EXIT 77 | EXIT 77 | EXIT 2 | EXIT 77 | ended 77 ; cut short: EXIT 77 | ended 2";;
        *) want="EXIT 1 | EXIT 1 | EXIT 2 | EXIT 1 | ended 1 ; cut short: EXIT 1 | ended 2";;
    esac
    if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then pass "$name ($out)"
    else fail "$name" "exit $rc: ${out:-$(printf '%s' "$err" | tail -n 3)} (expected: $want)"; fi
}

# The grader's options belong to its own builds of the labs (the grading harness, linked only into
# build/grading/solNN and a submission's program): ./sol01 of the course tree neither names nor
# takes them; build/grading/sol01 takes them (here refusing --fresh-inputs alone, before any GPU).
run_capture "make sol01 and build/grading/sol01" make -s --no-print-directory BUILD="$BUILD" sol01 "$BUILD/grading/sol01"
if [ "$rc" -ne 0 ]; then
    fail "make sol01 and build/grading/sol01" "exit $rc: $(printf '%s' "$err" | tail -n 3)"
else
    run_capture "sol01 --help" ./sol01 --help
    if [ "$rc" -eq 0 ] && ! printf '%s' "$out" | grep -qE -- '--(channel|verify-outputs|fresh-inputs)'; then
        pass "./sol01 --help names no grading option"
    else fail "./sol01 --help names no grading option" "exit $rc: $(printf '%s' "$out" | grep -m1 -E -- '--(channel|verify|fresh)')"; fi
    for flag in --channel --verify-outputs --fresh-inputs; do
        expect "./sol01 refuses the grader's $flag as unknown" 2 "unknown option '$flag'" ./sol01 "$flag" 3
    done
    expect "build/grading/sol01 takes the grader's options" 2 'error: --fresh-inputs needs --channel or --verify-outputs' \
        "$BUILD/grading/sol01" --fresh-inputs 3
    grading_kept_verifier "$BUILD/grading/sol01"
fi

isolations=${GRADING_ISOLATIONS:-}
grading_broken=""
declare -A corpus_ok=() corpus_cases=()
for rubric in grading/rubrics/[0-9][0-9].rubric; do
    [ -f "$rubric" ] || continue
    nn=$(basename "$rubric" .rubric)
    [ -n "${GRADING_ONLY:-}" ] && [[ " $GRADING_ONLY " != *" $nn "* ]] && continue
    labdir=$(lab_dir "$nn")
    [ -n "$labdir" ] || { skip "grade lab$nn" "no labs/$nn-* folder"; continue; }
    subs=$grading_dir/submissions-$nn
    grading_corpus "$nn" "$subs"

    # CPU: build and audit everything; the integrity cases are rejected with their reason.
    expect "grader lab$nn compile-only pass" 0 'results: ' $grader --lab "$nn" --compile-only --seed 7 --out "$grading_dir/compile-$nn" "$subs"
    if [ "$rc" -eq 0 ]; then
        if [ -f "tests/grading/$nn/expected.txt" ]; then
            grading_ok=0 grading_cases=0
            grading_check "$nn" "$grading_dir/compile-$nn" 1
            corpus_ok[compile only]=$(( ${corpus_ok[compile only]:-0} + grading_ok ))
            corpus_cases[compile only]=$(( ${corpus_cases[compile only]:-0} + grading_cases ))
        else
            for who in reference starter; do
                if grep -q '^\*\*Not graded' "$grading_dir/compile-$nn/feedback/$who.md"; then
                    fail "grade lab$nn $who builds and passes the audit" "$(grep -m1 'Not graded' "$grading_dir/compile-$nn/feedback/$who.md")"
                else pass "grade lab$nn $who builds and passes the audit"; fi
            done
        fi
    fi

    if [ "$gpu" != 1 ]; then
        skip "grade lab$nn on the GPU" "no GPU on this machine"
        continue
    fi
    # Every GPU of the machine grades the corpus (--gpus all), so a node of several GPUs takes a
    # fraction of the time; grading_gpus.sh checks that this grades as one GPU does.
    spread=()
    [ "$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')" -ge 2 ] && spread=(--gpus all)
    for level in ${isolations:-default}; do
        gpu_out=$grading_dir/gpu-$nn${isolations:+-$level}
        iso=(); [ -n "$isolations" ] && iso=(--isolation "$level")
        # The corpus tests what the grader makes of each case, not how many trials a rubric asks
        # for: one trial per correctness test (GRADING_TRIALS) keeps a class of 40 to minutes.
        rubric_used=$grading_dir/rubric-$nn.rubric
        sed -E "s/^trials = [0-9]+/trials = ${GRADING_TRIALS:-1}/" "$rubric" > "$rubric_used"
        expect "grader lab$nn grades the class${isolations:+ ($level)}${GRADING_OPTIONS:+ ($GRADING_OPTIONS)}" 0 'results: ' \
            $grader --lab "$nn" --rubric "$rubric_used" "${iso[@]}" "${spread[@]}" "${grader_options[@]}" --out "$gpu_out" "$subs"
        [ -f "$gpu_out/summary.txt" ] && sed 's/^/    /' "$gpu_out/summary.txt"
        if [ -f "tests/grading/$nn/expected.txt" ]; then
            grading_ok=0 grading_cases=0
            grading_check "$nn" "$gpu_out" 0 "${isolations:+$level}"
            corpus_ok[$level]=$(( ${corpus_ok[$level]:-0} + grading_ok ))
            corpus_cases[$level]=$(( ${corpus_cases[$level]:-0} + grading_cases ))
        else
            # No corpus yet: the reference gets full marks, the untouched starter no points.
            book=$gpu_out/gradebook.csv
            total=$(grading_score "$book" reference total 2>/dev/null) max=$(grading_score "$book" reference max 2>/dev/null)
            # The reference hands in no answers.txt: every point but the questions'.
            questions=$(awk '/^\[test /{ q = ($0 ~ /^\[test questions\]/) } q && /^points *=/{ print $3 }' "$rubric_used")
            if [ -n "$total" ] && awk -v t="$total" -v m="$max" -v q="${questions:-0}" 'BEGIN { exit !(t == m - q) }'; then
                pass "grade lab$nn reference: full marks but the questions' ($total)"
            else fail "grade lab$nn reference" "${total:-no result} of ${max:-?} (see $gpu_out/feedback/reference.md)"; fi
            starter=$(grading_score "$book" starter total 2>/dev/null)
            if [ "$starter" = 0 ]; then pass "grade lab$nn starter: 0"
            else fail "grade lab$nn starter" "${starter:-no result} points (see $gpu_out/feedback/starter.md)"; fi
        fi
    done
done
for level in "compile only" ${isolations:-default}; do
    [ -n "${corpus_cases[$level]:-}" ] || continue
    echo "corpus: ${corpus_ok[$level]} of ${corpus_cases[$level]} cases scored as expected ($level)" | tee -a "$LOG"
done
RUN_TIMEOUT=$grading_saved_timeout
