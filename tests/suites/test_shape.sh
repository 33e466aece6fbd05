# The shell tests read as lists (sourced by tests/run_tests.sh; alone: bash tests/suites/test_shape.sh).
# No GPU needed: tests/tools/test_shape.py finds no shell function over 80 lines in tests/ and no
# program in a heredoc (one fed to python, awk, a shell..., or written as a .py, .sh or executable
# file: such a program has a file of its own in tests/tools/ or tests/fixtures/). And the check
# fails where it should: on tests/fixtures/test_shape/shapes.txt, copied into a scratch tree, it
# finds the long function and the four programs, and leaves a function of 80 lines, braces in
# quotes, heredocs of data and a table of cases alone.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

test_shape_suite() {
    local py tmp want
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "the shell tests read as lists" "no python3"; return; }
    [ -f tests/tools/test_shape.py ] || { skip "the shell tests read as lists" "no tests/tools/test_shape.py in this edition"; return; }
    run_capture "test_shape.py" "$py" tests/tools/test_shape.py
    if [ "$rc" -eq 0 ]; then pass "the shell tests read as lists: $out"
    else fail "the shell tests read as lists" "exit $rc, $(printf '%s\n' "$out" | grep -c .) findings: $(printf '%s' "$out" | head -n 4 | tr '\n' ';')"; fi

    tmp=$(mktemp -d)
    mkdir -p "$tmp/tests/suites"
    cp tests/fixtures/test_shape/shapes.txt "$tmp/tests/suites/shapes.sh"
    want="tests/suites/shapes.sh:5: function too_long is 81 lines (at most 80; lines 5-85)
tests/suites/shapes.sh:172: a heredoc <<PY feeds python3: move the program to a file of its own
tests/suites/shapes.sh:175: a heredoc <<PY feeds \$py: move the program to a file of its own
tests/suites/shapes.sh:179: a heredoc <<PY writes the program \$1/check.py: move the program to a file of its own
tests/suites/shapes.sh:182: a heredoc <<EOF writes \$1/stand-in, made executable later: move the program to a file of its own"
    run_capture "test_shape.py on shapes it must find" "$py" tests/tools/test_shape.py "$tmp"
    if [ "$rc" -eq 1 ] && [ "$out" = "$want" ]; then
        pass "test_shape.py finds a function of 81 lines and programs in heredocs, and leaves one of 80 lines and heredocs of data alone"
    else fail "test_shape.py finds what it should" "exit $rc: $(diff <(printf '%s\n' "$want") <(printf '%s\n' "$out") | head -n 4 | tr '\n' ';')"; fi
    rm -rf "$tmp"
}
test_shape_suite
