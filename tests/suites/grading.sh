# The grading tool's suite (sourced by tests/run_tests.sh; also runs on its own:
# `bash tests/suites/grading.sh`, with CUDALABS_GPU=0/1 to force the GPU part off or on).
#   always:      the grader's command line, and a compile-only pass over every lab's corpus
#                (tests/grading/NN/): integrity rejections and compile errors, no GPU needed;
#   with a GPU:  every lab with a rubric is graded: the reference solution gets full marks, the
#                untouched starter 0 for correctness, each corpus entry what expected.txt says.
# GRADING_LOG_DIR keeps the grader's results (default $BUILD/test-logs/grading).

if ! declare -F expect > /dev/null; then
    # Standalone: the helpers of tests/run_tests.sh, reduced.
    cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
    BUILD=${BUILD:-build}
    mkdir -p "$BUILD/test-logs"
    LOG=${LOG:-$BUILD/test-logs/grading-suite.log}
    : > "$LOG"
    passed=0 failed=0 skipped=0
    pass() { passed=$((passed + 1)); echo "PASS  $1"; }
    fail() { failed=$((failed + 1)); echo "FAIL  $1${2:+ -- $2}"; }
    skip() { skipped=$((skipped + 1)); echo "SKIP  $1${2:+ -- $2}"; }
    run_capture() {
        local name=$1; shift
        local o e; o=$(mktemp) e=$(mktemp)
        timeout --kill-after=10 "${RUN_TIMEOUT:-3600}" "$@" > "$o" 2> "$e" < /dev/null; rc=$?
        out=$(cat "$o") err=$(cat "$e"); rm -f "$o" "$e"
        { echo "=== $name: $* (exit $rc)"; echo "$out"; [ -n "$err" ] && echo "--- stderr:" && echo "$err"; } >> "$LOG"
    }
    expect() {
        local name=$1 want=$2 pattern=$3; shift 3
        run_capture "$name" "$@"
        if [ "$rc" -ne "$want" ]; then fail "$name" "exit $rc, expected $want: $(printf '%s' "$err" | tail -n 3)"
        elif [ -n "$pattern" ] && ! printf '%s\n%s' "$out" "$err" | grep -qE -- "$pattern"; then fail "$name" "output does not match /$pattern/"
        else pass "$name"; fi
    }
    if [ -n "${CUDALABS_GPU:-}" ]; then gpu=$CUDALABS_GPU; elif nvidia-smi -L > /dev/null 2>&1; then gpu=1; else gpu=0; fi
    grading_standalone=1
fi

grading_dir=${GRADING_LOG_DIR:-$BUILD/test-logs/grading}
rm -rf "$grading_dir"
mkdir -p "$grading_dir"

# grading_score CSV STUDENT COLUMN: one cell of the gradebook ("" when absent).
grading_score() {
    awk -F, -v s="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $1 == s && (c in col) { print $(col[c]) }' "$1"
}

# grading_check LAB OUTDIR: every line of tests/grading/LAB/expected.txt against the results.
# With compile_only=1 only the lines that expect a rejection (rejected=yes: not graded, for an
# integrity or compile failure) are checked, since nothing ran.
grading_check() {
    local nn=$1 dir=$2 compile_only=${3:-0} line name scores pattern s test want got lo hi ok
    while IFS= read -r line; do
        case $line in ''|'#'*) continue ;; esac
        name=$(awk '{print $1}' <<< "$line")
        scores=$(awk '{ for (i = 2; i <= NF && $i ~ /^[a-z_0-9]+=/; i++) printf "%s ", $i }' <<< "$line")
        pattern=$(awk '{ for (i = 2; i <= NF && $i ~ /^[a-z_0-9]+=/; i++); for (; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "") }' <<< "$line")
        if [ "$compile_only" = 1 ]; then
            [[ " $scores" == *" rejected=yes "* ]] || continue
        fi
        if [ ! -f "$dir/feedback/$name.md" ]; then fail "grade lab$nn $name" "no feedback written"; continue; fi
        ok=1
        for s in $scores; do
            test=${s%%=*} want=${s#*=}
            if [ "$test" = rejected ]; then
                if ! grep -q '^\*\*Not graded:\*\*' "$dir/feedback/$name.md"; then
                    fail "grade lab$nn $name" "was not rejected (see $dir/feedback/$name.md)"; ok=0
                fi
                continue
            fi
            got=$(grading_score "$dir/gradebook.csv" "$name" "$test")
            if [[ $want == *..* ]]; then lo=${want%..*} hi=${want#*..}; else lo=$want hi=$want; fi
            if [ -z "$got" ] || ! awk -v g="$got" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(g >= lo - 1e-6 && g <= hi + 1e-6) }'; then
                fail "grade lab$nn $name" "$test = ${got:-missing}, expected $want (see $dir/feedback/$name.md)"
                ok=0
            fi
        done
        local rest=$pattern part
        while [ -n "$rest" ]; do
            part=${rest%% && *}
            [ "$part" = "$rest" ] && rest="" || rest=${rest#* && }
            if ! grep -qE -- "$part" "$dir/feedback/$name.md"; then
                fail "grade lab$nn $name" "feedback does not match /$part/ (see $dir/feedback/$name.md)"
                ok=0
            fi
        done
        [ "$ok" = 1 ] && pass "grade lab$nn $name: $(echo $scores)"
    done < "tests/grading/$nn/expected.txt"
}

grader=grading/grade
expect "grader --help" 0 'Usage: grading/grade --lab NN' $grader --help
expect "grader needs --lab" 2 'error: --lab NN is required' $grader somewhere
expect "grader rejects an unknown option" 2 'unknown option' $grader --lab 01 --no-such-flag x
expect "grader rejects a missing submission folder" 2 'no such file or folder' $grader --lab 01 --compile-only --out "$grading_dir/missing" /nonexistent/folder
printf 'lab = 01\n[test t]\nkind = correctness\npoints = 5\nvariants = no_such_variant\nsizes = 7\n' > "$grading_dir/bad.rubric"
expect "grader names a rubric's unknown variant" 2 "rubric error: .*no_such_variant" \
    $grader --lab 01 --rubric "$grading_dir/bad.rubric" --compile-only --out "$grading_dir/bad" labs/01-vector-add

for rubric in grading/rubrics/[0-9][0-9].rubric; do
    [ -f "$rubric" ] || continue
    nn=$(basename "$rubric" .rubric)
    # GRADING_ONLY="01 08": only these labs (for a quick run on a lent GPU).
    [ -n "${GRADING_ONLY:-}" ] && [[ " $GRADING_ONLY " != *" $nn "* ]] && continue
    labdir=$(ls -d labs/$nn-* 2>/dev/null | head -n1)
    soldir=solutions/$(basename "$labdir")
    [ -n "$labdir" ] || { skip "grade lab$nn" "no labs/$nn-* folder"; continue; }
    topic=$(cd "$labdir" && ls *.cu | grep -v '^driver.cu$' | head -n1)
    subs=$grading_dir/submissions-$nn
    rm -rf "$subs"; mkdir -p "$subs/reference" "$subs/starter"
    cp "$soldir/$topic" "$subs/reference/" && cp "$labdir/$topic" "$subs/starter/"
    [ -d "tests/grading/$nn" ] && for d in tests/grading/$nn/*/; do cp -r "$d" "$subs/"; done

    # CPU: build and audit everything; the integrity cases are rejected with their reason.
    expect "grader lab$nn compile-only pass" 0 'results: ' $grader --lab "$nn" --compile-only --seed 7 --out "$grading_dir/compile-$nn" "$subs"
    if [ "$rc" -eq 0 ]; then
        for who in reference starter; do
            if grep -q '^\*\*Not graded' "$grading_dir/compile-$nn/feedback/$who.md"; then
                fail "grade lab$nn $who builds and passes the audit" "$(grep -m1 'Not graded' "$grading_dir/compile-$nn/feedback/$who.md")"
            else pass "grade lab$nn $who builds and passes the audit"; fi
        done
        [ -f "tests/grading/$nn/expected.txt" ] && grading_check "$nn" "$grading_dir/compile-$nn" 1
    fi

    if [ "$gpu" != 1 ]; then
        skip "grade lab$nn on the GPU" "no GPU on this machine"
        continue
    fi
    expect "grader lab$nn grades the class" 0 'results: ' $grader --lab "$nn" --out "$grading_dir/gpu-$nn" "$subs"
    [ -f "$grading_dir/gpu-$nn/summary.txt" ] && sed 's/^/    /' "$grading_dir/gpu-$nn/summary.txt"
    if [ -f "tests/grading/$nn/expected.txt" ]; then
        grading_check "$nn" "$grading_dir/gpu-$nn"
    else
        # No corpus yet: the reference gets full marks, the untouched starter no correctness points.
        book=$grading_dir/gpu-$nn/gradebook.csv
        total=$(grading_score "$book" reference total 2>/dev/null) max=$(grading_score "$book" reference max 2>/dev/null)
        if [ -n "$total" ] && [ "$total" = "$max" ]; then pass "grade lab$nn reference: full marks ($total)"
        else fail "grade lab$nn reference" "${total:-no result} of ${max:-?} (see $grading_dir/gpu-$nn/feedback/reference.md)"; fi
        starter=$(grading_score "$book" starter total 2>/dev/null)
        if [ "$starter" = 0 ]; then pass "grade lab$nn starter: 0"
        else fail "grade lab$nn starter" "${starter:-no result} points (see $grading_dir/gpu-$nn/feedback/starter.md)"; fi
    fi
done

if [ -n "${grading_standalone:-}" ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
fi
