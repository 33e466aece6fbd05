# The grader's shape (sourced by tests/run_tests.sh; alone: bash tests/suites/grader_shape.sh):
# tests/tools/grader_shape.py finds every include of grading/src/ against its layers (util,
# process, intake, isolation, gpu, compile, runs, judge, class, stages), and measures the grader:
# its lines of C++ code (cloc), its longest class and function (universal-ctags), grader.cpp's
# length. No GPU needed. And the check fails where it should: an include against the order, put
# into a copy of the tree, is named.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

grader_shape_suite() {
    local missing="" tool tmp
    [ -d grading/src ] || { skip "the grader's shape" "this edition has no grader"; return; }
    for tool in python3 cloc ctags; do command -v "$tool" > /dev/null || missing="$missing $tool"; done
    lacks_tools "the grader's shape" grading "$missing" && return
    expect "the grader's layers and sizes hold" 0 "^the grader's shape holds" python3 tests/tools/grader_shape.py --figures
    printf '%s\n' "$out" | sed -n 's/^/  /p'
    # A util/ header that includes a stage's: named as against the order.
    tmp=$(mktemp -d)
    mkdir -p "$tmp/grading" && cp -r grading/src grading/harness "$tmp/grading/"
    printf '#include "stages/run.h"\n' >> "$tmp/grading/src/util/text.h"
    run_capture "the grader's shape, an include against the order" python3 tests/tools/grader_shape.py --root "$tmp"
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q '^grading/src/util/text.h: includes stages/run.h: layer stages is above util'; then
        pass "an include against the layers' order is named"
    else fail "an include against the layers' order is named" "exit $rc: $(printf '%s' "$out" | head -n 2)"; fi
    rm -rf "$tmp"
}
grader_shape_suite
