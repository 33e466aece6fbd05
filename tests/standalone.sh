# The test functions of tests/lib.sh, and $gpu, for a suite of
# tests/suites/ run on its own: `bash tests/suites/release.sh`. Sourced by such a suite when
# run_tests.sh has not defined them; it ends the run with the count and the exit status.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
BUILD=${BUILD:-build}
mkdir -p "$BUILD/test-logs"
LOG=${LOG:-$BUILD/test-logs/$(basename "$0" .sh)-suite.log}
: > "$LOG"
passed=0 failed=0 skipped=0
. tests/lib.sh
if [ -n "${CUDALABS_GPU:-}" ]; then gpu=$CUDALABS_GPU; elif nvidia-smi -L > /dev/null 2>&1; then gpu=1; else gpu=0; fi
standalone_summary() {
    say "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}
trap 'standalone_summary; exit $?' EXIT
