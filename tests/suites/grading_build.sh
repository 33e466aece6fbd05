# The grader's build and audit of a submission (sourced by tests/run_tests.sh; also runs on its
# own: `bash tests/suites/grading_build.sh`). No GPU needed: every folder of tests/grading/build/
# is built as a lab 01 submission with `grading/grade --compile-only`, and each must be accepted
# or rejected as tests/grading/build/expected.txt says: styles students write (globals, extern "C"
# and static kernels, templates, cooperative groups, graphs, inline PTX...) are accepted; includes
# outside the lab, host assembly, forbidden calls, unusual sections and main are rejected, with
# a reason that names them.

if ! declare -F expect > /dev/null; then
    # Standalone: the test functions of tests/run_tests.sh, reduced.
    cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
    BUILD=${BUILD:-build}
    mkdir -p "$BUILD/test-logs"
    LOG=${LOG:-$BUILD/test-logs/grading-build-suite.log}
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
    grading_build_standalone=1
fi

build_cases=tests/grading/build
build_out=${GRADING_LOG_DIR:-$BUILD/test-logs/grading}/build-cases
rm -rf "$build_out"
expect "grader builds and audits the build cases" 0 'results: ' \
    grading/grade --lab 01 --compile-only --seed 7 --out "$build_out" "$build_cases"
if [ "$rc" -eq 0 ]; then
    while read -r name verdict pattern; do
        case $name in ''|'#'*) continue ;; esac
        feedback=$build_out/feedback/$name.md
        if [ ! -f "$feedback" ]; then fail "build case $name" "no feedback written"; continue; fi
        # The reason as the feedback shows it, Markdown escapes taken out.
        reason=$(grep -m1 '^\*\*Not graded' "$feedback" | sed 's/\\//g')
        if [ "$verdict" = accept ]; then
            if [ -z "$reason" ]; then pass "build case $name: accepted"
            else fail "build case $name" "rejected: ${reason:0:300}"; fi
        elif [ -z "$reason" ]; then
            fail "build case $name" "accepted, expected a rejection matching /$pattern/"
        elif ! printf '%s\n' "$reason" | grep -qE -- "$pattern"; then
            fail "build case $name" "the reason does not match /$pattern/: ${reason:0:300}"
        else
            pass "build case $name: rejected"
        fi
    done < "$build_cases/expected.txt"
fi

if [ -n "${grading_build_standalone:-}" ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
fi
