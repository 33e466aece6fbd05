# The grader against the mess of a real class (sourced by tests/run_tests.sh; also runs on its
# own: `bash tests/suites/grading_bad_inputs.sh`). No GPU needed: lab 01 is graded
# --compile-only under the grader's default isolation. tests/tools/bad_inputs.py holds the cases,
# as tables: command lines refused before anything is built, one class holding every odd entry
# (names, encodings, links, FIFOs, devices, sizes, layouts) beside two honest students, rosters
# in every encoding, two runs at once, a damaged record resumed, a tmpfs that fills up mid-class.
# Each case checks the exit code and the message, that the honest students' rows are byte for
# byte those of a run of them alone, and that nothing is written outside --out. The program
# prints "PASS name: what", "FAIL name: what -- why" or "SKIP name: what -- why", one line a
# case; each becomes one result here. As root it also makes devices and mounts a small tmpfs
# and a read-only folder (`unshare -m`); elsewhere those cases are skipped, saying why.
# GRADING_BAD_INPUTS_ONLY="row/,cli/": only the cases whose names start so.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# bad_inputs_result LINE: one line of the program as a result (any other line goes to the log).
bad_inputs_result() {
    local line=$1 verdict rest
    verdict=${line%% *} rest=${line#* }
    case $verdict in
        PASS) pass "bad inputs: $rest" ;;
        FAIL) fail "bad inputs: ${rest%% -- *}" "${rest#* -- }" ;;
        SKIP) skip "bad inputs: ${rest%% -- *}" "${rest#* -- }" ;;
        *) printf '%s\n' "$line" >> "$LOG" ;;
    esac
}

bad_inputs_suite() {
    local py results rc line count=0
    py=$(command -v python3 || true)
    if [ -z "$py" ]; then
        lacks_tools "bad inputs" "" " python3"
        return
    fi
    grading_class_ready "bad inputs" bwrap || return
    results=$(mktemp)
    # The cases' own time limits end any one that hangs; this one ends the program itself.
    BUILD=$BUILD timeout --kill-after=10 "${GRADING_BAD_INPUTS_TIMEOUT:-1500}" "$py" tests/tools/bad_inputs.py \
        --work "$BUILD/test-logs/grading-bad-inputs" --only "${GRADING_BAD_INPUTS_ONLY:-}" > "$results" 2>> "$LOG"
    rc=$?
    while IFS= read -r line; do
        case $line in PASS\ *|FAIL\ *|SKIP\ *) count=$((count + 1)) ;; esac
        bad_inputs_result "$line"
    done < "$results"
    rm -f "$results"
    if [ "$rc" -ne 0 ]; then fail "bad inputs: the program ran to its end" "exit $rc after $count cases (see $LOG)"
    elif [ "$count" -eq 0 ]; then fail "bad inputs: the program ran its cases" "no case reported (see $LOG)"; fi
}

bad_inputs_suite
