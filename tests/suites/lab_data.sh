# A lab's declaration is its data (tests/tools/lab_data.py), sourced by tests/run_tests.sh; alone:
# bash tests/suites/lab_data.sh. No GPU needed: ./solNN --describe exits before touching the
# device. For every built solution: a correctness test of grading/rubrics/NN.rubric grades each
# rung (each variant but the yardsticks) and every sanitizer test runs it; bench/targets.json
# holds the targets the lab declares; where profile.sh profiles every rung, the hints of
# tools/profile_hints.py are of those rungs. And the check fails where it should: a rung added
# to lab 12's declaration and to nothing else is named in each file that lacks it.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

lab_data_suite() {
    local py tmp nn described=""
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "lab data agrees with --describe" "no python3"; return; }
    [ -f tests/tools/lab_data.py ] && [ -d grading/rubrics ] || { skip "lab data agrees with --describe" "not in this edition"; return; }
    tmp=$(mktemp -d)
    for nn in $(make -s --no-print-directory list-labs 2> /dev/null); do
        [ -x "./sol$nn" ] || continue
        if "./sol$nn" --describe > "$tmp/$nn.json" 2> "$tmp/$nn.err"; then described="$described $tmp/$nn.json"
        else fail "./sol$nn --describe" "exit $?: $(head -c 200 "$tmp/$nn.err")"; fi
    done
    if [ -z "$described" ]; then
        skip "lab data agrees with --describe" "no solution built (make solutions)"
        rm -rf "$tmp"; return
    fi
    run_capture "lab data" "$py" tests/tools/lab_data.py $described
    if [ "$rc" -eq 0 ]; then pass "rubrics, bench/targets.json and profile hints agree with ./solNN --describe ($(echo $described | wc -w) labs)"
    else fail "rubrics, bench/targets.json and profile hints agree with ./solNN --describe" "$(printf '%s' "$out" | head -n 4)"; fi

    if [ ! -f "$tmp/12.json" ]; then
        skip "lab data: a rung declared alone agrees, a variant dropped or a target changed is found" "./sol12 not built"
    else
        "$py" tests/tools/lab12_declarations.py "$tmp/12.json" "$tmp"
        expect "lab data: a rung added to lab 12's declaration alone agrees with the rubric, bench/targets.json and the hints" \
            0 'the rubrics, bench/targets.json and the profile hints agree' "$py" tests/tools/lab_data.py "$tmp/extra/12.json"
        run_capture "lab data, a dropped rung" "$py" tests/tools/lab_data.py "$tmp/dropped/12.json"
        if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q "^grading/rubrics/12.rubric: test 'correct_fast' names fast, which lab 12 does not declare" \
            && printf '%s' "$out" | grep -q "^bench/targets.json: lab 12's targets" \
            && printf '%s' "$out" | grep -q "^tools/profile_hints.py: HINTS\[\"12\"\] has hints of fast"; then
            pass "lab data: a variant dropped from lab 12 and a target changed name the rubric, bench/targets.json and tools/profile_hints.py"
        else fail "lab data: a variant dropped and a target changed are found" "exit $rc: $(printf '%s' "$out" | head -n 3)"; fi
    fi
    rm -rf "$tmp"
}
lab_data_suite
