# The test functions of tests/run_tests.sh (pass/fail/skip/run_capture/expect, $gpu), for a suite of
# tests/suites/ run on its own: `bash tests/suites/release.sh`. Sourced by such a suite when
# run_tests.sh has not defined them; it ends the run with the count and the exit status.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
BUILD=${BUILD:-build}
mkdir -p "$BUILD/test-logs"
LOG=${LOG:-$BUILD/test-logs/$(basename "$0" .sh)-suite.log}
: > "$LOG"
passed=0 failed=0 skipped=0
say() { echo "$1"; echo "$1" >> "$LOG"; }
pass() { passed=$((passed + 1)); say "PASS  $1"; }
fail() { failed=$((failed + 1)); say "FAIL  $1${2:+ -- $2}"; }
skip() { skipped=$((skipped + 1)); say "SKIP  $1${2:+ -- $2}"; }
run_capture() {
    local name=$1; shift
    local o e; o=$(mktemp) e=$(mktemp)
    timeout --kill-after=10 "${RUN_TIMEOUT:-600}" "$@" > "$o" 2> "$e" < /dev/null; rc=$?
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
standalone_summary() {
    say "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}
trap 'standalone_summary; exit $?' EXIT
