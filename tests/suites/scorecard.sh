# The scorecard (tools/scorecard.py, make scorecard), sourced by tests/run_tests.sh; alone:
# bash tests/suites/scorecard.sh. No GPU needed. It is drawn from every committed results file
# (each lab's bench/results/<device>.d/NN.json, and each lab of every bench/results/<device>.json)
# and from the fixtures of tests/fixtures/scorecard/ (a student's runs: a variant missing, a
# failed row), and its content is checked against the JSON (tests/tools/check_scorecard.py):
# the bars' values and labels, the reference's bars, the targets marked, the student's GPU
# named, a missing variant said, a failed row's TODO pointer kept, a figure past its roofline
# ceiling flagged; the roofline's points where their counts and times put them (tests/tools/
# check_roofline.py), one past a ceiling hollow and flagged, rows without counts listed as not
# placed, and the roofline of the grader's figures. A missing, broken or other lab's results file
# is refused in one sentence (exit 2). Then the PNG, and make scorecard with RESULTS= (also of another lab: refused).

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# 1. Every committed results file, lab by lab.
scorecard_committed_results() {
    local f nn dev n=0 bad=0 msg="" lab
    for f in bench/results/*.d/[0-9][0-9].json; do
        [ -f "$f" ] || continue
        nn=$(basename "$f" .json); dev=$(basename "$(dirname "$f")" .d)
        n=$((n + 1))
        if ! out=$("$py" tools/scorecard.py "$f" --out "$tmp/$dev-$nn.svg" 2>&1) \
            || ! out=$("$py" tests/tools/check_scorecard.py "$tmp/$dev-$nn.svg" "$f" --targets-json bench/targets.json 2>&1); then
            bad=$((bad + 1)); msg="$msg${msg:+; }$f: $(printf '%s' "$out" | head -n 2)"
        fi
    done
    for f in bench/results/*.json; do
        case $f in *.grading.json) continue;; esac
        for lab in $("$py" -c 'import json,sys; print(" ".join(l["lab"][:2] for l in json.load(open(sys.argv[1]))["labs"]))' "$f"); do
            n=$((n + 1))
            if ! out=$("$py" tools/scorecard.py "$f" --lab "$lab" --out "$tmp/all-$lab.svg" 2>&1) \
                || ! out=$("$py" tests/tools/check_scorecard.py "$tmp/all-$lab.svg" "$f" --lab "$lab" --targets-json bench/targets.json 2>&1); then
                bad=$((bad + 1)); msg="$msg${msg:+; }$f lab $lab: $(printf '%s' "$out" | head -n 2)"
            fi
        done
    done
    if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then pass "scorecard drawn from every committed results file ($n lab runs): bars, labels, reference bars and targets match the JSON"
    else fail "scorecard drawn from every committed results file" "$bad of $n: ${msg:0:400}"; fi
}

# 2. The fixtures: a student's run with a variant missing and a failed row.
scorecard_student_runs() {
    "$py" tools/scorecard.py tests/fixtures/scorecard/12-student.json --out "$tmp/f12.svg" > "$tmp/f12.txt" 2>&1
    if out=$("$py" tests/tools/check_scorecard.py "$tmp/f12.svg" tests/fixtures/scorecard/12-student.json --missing fast 2>&1) \
        && grep -q '^Missing: fast is not in your results$' "$tmp/f12.txt" \
        && grep -q 'class="nobar"[^>]*data-variant="vectorized" data-size="4096" data-status="FAIL"' "$tmp/f12.svg" \
        && grep -q 'data-device="Tesla T4">Your run: Tesla T4' "$tmp/f12.svg"; then
        pass "scorecard of a student's lab 12 run: the T4 named, fast said missing, the failed vectorized row said, bars as in the JSON"
    else fail "scorecard of a student's lab 12 run" "${out:-$(head -n 3 "$tmp/f12.txt")}"; fi
    "$py" tools/scorecard.py tests/fixtures/scorecard/01-student.json --out "$tmp/f01.svg" > /dev/null 2>&1
    if out=$("$py" tests/tools/check_scorecard.py "$tmp/f01.svg" tests/fixtures/scorecard/01-student.json --missing simple 2>&1) \
        && grep -q 'class="roofline bandwidth"[^>]*data-variant="fast"' "$tmp/f01.svg"; then
        pass "scorecard of a student's lab 01 run: simple said missing, a roofline point per variant against the copy bandwidth"
    else fail "scorecard of a student's lab 01 run" "${out:-no roofline point for fast}"; fi
    # The check itself fails on a wrong bar and on an unsaid missing variant.
    sed 's/\(class="bar yours"[^>]*data-variant="tiled" data-size="1024" data-ratio="\)[0-9.e-]*/\19.99/' "$tmp/f12.svg" > "$tmp/bad.svg"
    if ! "$py" tests/tools/check_scorecard.py "$tmp/bad.svg" tests/fixtures/scorecard/12-student.json > "$tmp/bad.txt" 2>&1 \
        && grep -q "('tiled', '1024'): bar 9.99 but the JSON says" "$tmp/bad.txt" \
        && ! "$py" tests/tools/check_scorecard.py "$tmp/f12.svg" tests/fixtures/scorecard/12-student.json --missing tiled > /dev/null 2>&1; then
        pass "scorecard check fails on a bar that is not the JSON's, and on a missing variant not said"
    else fail "scorecard check fails on a wrong bar" "$(head -n 2 "$tmp/bad.txt")"; fi
    # Targets judged against what the lab declares (--describe), marked on the bars they judge.
    "$py" -c 'import json; t = json.load(open("bench/targets.json"))["12"]; print(json.dumps({"lab": "12", "variants": [], "targets": [dict(variant=x["variant"], size=x["size"], min_ratio=x["min_ratio"], against=x["yardstick"]) for x in t]}))' > "$tmp/describe12.json"
    "$py" tools/scorecard.py bench/results/nvidia-h100-80gb-hbm3.d/12.json --describe "$tmp/describe12.json" --out "$tmp/d12.svg" > "$tmp/d12.txt" 2>&1
    if grep -q 'class="target"[^>]*data-variant="fast" data-size="4096" data-min-ratio="0.95"' "$tmp/d12.svg" \
        && grep -q '^target: fast at 4096 >= 0.95 x cublas: 0.99 met$' "$tmp/d12.txt" && ! grep -q MISSED "$tmp/d12.txt"; then
        pass "scorecard marks the declared targets on their bars (lab 12: fast >= 0.95 of cuBLAS at 4096, met)"
    else fail "scorecard marks the declared targets" "$(grep -m2 'target' "$tmp/d12.txt")"; fi
}

# 2a. Long names (the GPU's, the variants', a failed row's note, a yardstick's description, a
#     reference GPU's): every line of the card stays inside the picture, wrapped between words
#     (a TODO pointer kept whole on its line) or, under a reference's bar, shortened; the check
#     fails on the same card made narrower.
scorecard_long_names() {
    local long=_with_a_rather_long_descriptive_name
    "$py" tests/tools/scorecard_long_names.py "$tmp/long.json" "$tmp/long-ref" "$tmp/long-targets.json"
    "$py" tools/scorecard.py "$tmp/long.json" --reference "$tmp/long-ref" --targets "$tmp/long-targets.json" \
        --out "$tmp/long.svg" > "$tmp/long.txt" 2>&1
    sed '0,/<svg /s/ width="[0-9.]*"/ width="700"/' "$tmp/long.svg" > "$tmp/long-narrow.svg"
    if out=$("$py" tests/tools/check_scorecard.py "$tmp/long.svg" "$tmp/long.json" --reference "$tmp/long-ref" \
            --missing "fast$long" 2>&1) \
        && [ "$(grep -c '<tspan' "$tmp/long.svg")" -ge 3 ] \
        && grep -qF 'see TODO(lab12) at labs/12-matmul-fast/matmul_fast.cu:140' "$tmp/long.svg" \
        && ! "$py" tests/tools/check_scorecard.py "$tmp/long-narrow.svg" "$tmp/long.json" --reference "$tmp/long-ref" \
            --missing "fast$long" > "$tmp/long-bad.txt" 2>&1 \
        && grep -q "text past the picture's edge ([0-9]* to [0-9]* of 700 px)" "$tmp/long-bad.txt"; then
        pass "scorecard with long names: every line inside the picture (long lines wrapped, the TODO pointer whole), and the check fails on a card narrower than its lines"
    else fail "scorecard with long names: every line inside the picture" "${out:0:400}$(head -n 2 "$tmp/long-bad.txt" 2> /dev/null)"; fi
}

# 2b. What a student's results may hold: a missing, broken or other lab's file is refused in
#     one sentence (exit 2, no traceback).
scorecard_refused_files() {
    local name lab file want
    head -c 300 tests/fixtures/scorecard/12-student.json > "$tmp/cut.json"
    # CASE | LAB | FILE | what its one sentence says
    while IFS='|' read -r name lab file want; do
        run_capture "scorecard of a results file that is $name" "$py" tools/scorecard.py "$file" --lab "$lab" --out "$tmp/refused.svg"
        if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
            && [[ $err == "scorecard.py: "*"$want"* ]] && [ ! -e "$tmp/refused.svg" ]; then
            pass "scorecard of a results file that is $name: one sentence, exit 2"
        else fail "scorecard of a results file that is $name" "exit $rc: $(printf '%s' "$err" | tail -n 2 | head -c 300)"; fi
    done <<< "missing|12|$tmp/no-such.json|cannot read the results file $tmp/no-such.json
broken|12|$tmp/cut.json|is not valid JSON
another lab's|02|tests/fixtures/scorecard/01-student.json|holds the results of lab 01, not of lab 02"
}

# scorecard_texts SVG: each text of the card on a line of its own, its lines (tspans) joined:
# <text ATTRIBUTES>ITS WHOLE TEXT</text>.
scorecard_texts() {
    "$py" -c 'import sys, xml.etree.ElementTree as ET
for e in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text"):
    print("<text " + " ".join(f"{k}=\"{v}\"" for k, v in e.attrib.items()) + ">" + "".join(e.itertext()) + "</text>")' "$1"
}

# 2b. A failed row keeps its TODO pointer on its bar and in the targets; a figure past a roofline
#     ceiling is flagged, not drawn as a speed.
scorecard_todo_and_ceiling() {
    "$py" tests/tools/scorecard_todo_results.py "$tmp/todo.json"
    "$py" tools/scorecard.py "$tmp/todo.json" --out "$tmp/todo.svg" > "$tmp/todo.txt" 2>&1
    local pointer='TODO(lab12) at labs/12-matmul-fast/matmul_fast.cu:140'
    scorecard_texts "$tmp/todo.svg" > "$tmp/todo-texts.txt"
    if out=$("$py" tests/tools/check_scorecard.py "$tmp/todo.svg" "$tmp/todo.json" 2>&1) \
        && grep -qF "data-status=\"FAIL\">FAIL: wrong value at (17, 3): 1.5 != 2.25; see $pointer</text>" "$tmp/todo-texts.txt" \
        && grep -qF "data-met=\"failed\">vectorized at 4096 ≥ 0.60 × cublas: yours – (FAIL: wrong value at (17, 3): 1.5 != 2.25; see $pointer)" "$tmp/todo-texts.txt" \
        && grep -qF "$pointer" "$tmp/todo.svg" \
        && grep -qF "target: vectorized at 4096 >= 0.60 x cublas: – FAIL: wrong value at (17, 3): 1.5 != 2.25; see $pointer" "$tmp/todo.txt" \
        && ! grep -q '^target: vectorized at 4096 .*not measured' "$tmp/todo.txt"; then
        pass "scorecard keeps a failed row's TODO pointer on its bar, in the targets' table and in its text"
    else fail "scorecard keeps a failed row's TODO pointer" "${out:-$(grep -m1 'vectorized at 4096' "$tmp/todo.txt")}"; fi
    # The lab 12 fixture says Tesla T4 (FP32 peak 8,141 GFLOP/s) beside rates of 9 to 51 TFLOP/s:
    # every figure is past the ceiling; lab 01's fast (0.99 of the copy) is within it.
    if out=$("$py" tests/tools/check_scorecard.py "$tmp/f12.svg" tests/fixtures/scorecard/12-student.json --missing fast 2>&1) \
        && grep -q 'class="roofline compute beyond-ceiling"[^>]*data-variant="warptile" data-size="4096"[^>]*fill="none"\|class="roofline compute beyond-ceiling"[^>]*fill="none"[^>]*data-variant="warptile" data-size="4096"' "$tmp/f12.svg" \
        && grep -q 'class="beyond-ceiling"[^>]*>36,652.6 GFLOP/s = 4.50 × the FP32 peak: past the ceiling' "$tmp/f12.svg" \
        && grep -q 'class="ceiling-note"[^>]*>Past the FP32 peak, which no FP32 kernel reaches' "$tmp/f12.svg" \
        && grep -q '^warptile at 4096: 36,652.6 GFLOP/s = 4.50 × the FP32 peak\. Past the FP32 peak' "$tmp/f12.txt" \
        && grep -q 'class="roofline bandwidth"[^>]*data-variant="fast"' "$tmp/f01.svg" && ! grep -q 'beyond-ceiling' "$tmp/f01.svg"; then
        pass "scorecard flags a figure past its roofline ceiling (4.50 x a T4's FP32 peak) as such, and leaves one within it (0.99 of the copy) a plain bar"
    else fail "scorecard flags a figure past its ceiling" "${out:-$(grep -m1 'warptile' "$tmp/f12.txt")}"; fi
}

# 2c. The roofline (tests/tools/check_roofline.py recomputes every point from the counts and
#     the time, and its place from the plot's axes): a fixture of lab 01 whose simple row is
#     too fast for its bytes (2.81 x the copy), two rows without FP operations and a failed one.
scorecard_roofline() {
    local rl=tests/fixtures/scorecard/01-roofline.json
    "$py" tools/scorecard.py "$rl" --out "$tmp/rl.svg" > "$tmp/rl.txt" 2>&1
    if out=$("$py" tests/tools/check_roofline.py "$tmp/rl.svg" "$rl" --peak 66910 2>&1) \
        && grep -q 'class="rl-point rl-yours"[^>]*data-variant="fast" data-size="67108864" data-intensity="0.0833333" data-gflops="236.632"' "$tmp/rl.svg" \
        && grep -q 'class="rl-point rl-yours rl-beyond"[^>]*fill="none"[^>]*data-variant="simple" data-size="67108864"' "$tmp/rl.svg" \
        && grep -q 'class="rl-row"[^>]*data-variant="simple" data-size="67108864">3. simple 67108864: 0.0833 FLOP/byte, 671.1 GFLOP/s (past the measured copy bandwidth: not a speed)' "$tmp/rl.svg" \
        && grep -q 'class="rl-unplaced"[^>]*data-variant="host" data-size="1048576">Not placed: host 1048576: no FP operations counted' "$tmp/rl.svg" \
        && grep -qF 'Not placed: simple 1048576: FAIL: output never written: did you launch the kernel and store the result?; see' "$tmp/rl.svg" \
        && grep -q '^roofline: simple at 67108864: 671.1 GFLOP/s at 0.0833 FLOP/byte is past the measured copy bandwidth: not a speed$' "$tmp/rl.txt" \
        && grep -q '^Roofline: 3 row(s) placed, 3 not placed' "$tmp/rl.txt"; then
        pass "scorecard roofline: each point where its counts and time put it, the one past the copy hollow and flagged, rows without counts or that failed listed as not placed"
    else fail "scorecard roofline" "${out:-$(head -n 3 "$tmp/rl.txt")}"; fi
    # The check fails on a point moved, and on a flag taken off.
    sed 's/\(class="rl-point rl-yours" cx="\)[0-9.]*\("[^>]*data-variant="fast" data-size="67108864"\)/\1999\2/' "$tmp/rl.svg" > "$tmp/rl-moved.svg"
    sed 's/class="rl-point rl-yours rl-beyond" \(cx="[0-9.]*" cy="[0-9.]*" r="5"\) fill="none"/class="rl-point rl-yours" \1 fill="#2f6db5"/' "$tmp/rl.svg" > "$tmp/rl-unflagged.svg"
    if ! "$py" tests/tools/check_roofline.py "$tmp/rl-moved.svg" "$rl" > "$tmp/rl-bad.txt" 2>&1 \
        && grep -q "('fast', '67108864'): point at (999" "$tmp/rl-bad.txt" \
        && ! "$py" tests/tools/check_roofline.py "$tmp/rl-unflagged.svg" "$rl" > "$tmp/rl-bad.txt" 2>&1 \
        && grep -q "('simple', '67108864'): .* past its ceiling but not drawn as past it" "$tmp/rl-bad.txt"; then
        pass "roofline check fails on a point out of place and on a point past its ceiling drawn as a speed"
    else fail "roofline check fails on a wrong point" "$(head -n 2 "$tmp/rl-bad.txt")"; fi
    # Its legend and lines stay inside the picture (the check above passed), and the check fails
    # on the same card made narrower than its lines.
    sed '0,/<svg /s/ width="[0-9.]*"/ width="400"/' "$tmp/rl.svg" > "$tmp/rl-narrow.svg"
    if [ "$(grep -c 'class="rl-row-more"' "$tmp/rl.svg")" -ge 1 ] \
        && ! "$py" tests/tools/check_roofline.py "$tmp/rl-narrow.svg" "$rl" > "$tmp/rl-bad.txt" 2>&1 \
        && grep -q "^text past the picture's edge ([0-9]* of 400 px): 1\. fast 1048576: " "$tmp/rl-bad.txt"; then
        pass "roofline legend: its long lines wrap inside the picture, and the check fails on a line past its edge"
    else fail "roofline legend wraps inside the picture" "$(grep -c 'rl-row-more' "$tmp/rl.svg") wrapped lines; $(head -n 2 "$tmp/rl-bad.txt")"; fi
    # A results file from before the counts: every row said not placed, and why.
    "$py" tools/scorecard.py tests/fixtures/scorecard/12-student.json --out "$tmp/rl12.svg" > /dev/null 2>&1
    if ! grep -q 'class="rl-point' "$tmp/rl12.svg" && ! grep -q 'class="rl-unplaced"' "$tmp/rl12.svg" \
        && grep -q 'class="rl-not-counted"[^>]*>Roofline: nothing placed: these results count no roofline bytes or FP operations (a run from before they were counted)' "$tmp/rl12.svg" \
        && [ "$(grep -c '<text' <(sed -n '/class="rl-section"/,/<\/g>/p' "$tmp/rl12.svg"))" -eq 1 ] && ! grep -q 'rl-plot\|rl-ceilings' "$tmp/rl12.svg"; then
        pass "scorecard roofline of results without counts: no point, no panel, one line that says why"
    else fail "scorecard roofline of results without counts" "$(grep -m1 'rl-' "$tmp/rl12.svg" | head -c 300)"; fi
    # The grader's figures (NAME.roofline.json beside a submission's feedback): yours and the
    # reference's point per performance test, on one GPU; a broken file refused in one sentence.
    local gf=tests/fixtures/scorecard/grader-roofline.json
    run_capture "scorecard --grader-figures" "$py" tools/scorecard.py --grader-figures "$gf" --out "$tmp/grader.svg"
    if [ "$rc" -eq 0 ] && out=$("$py" tests/tools/check_roofline.py "$tmp/grader.svg" "$gf" --grader --peak 66910 2>&1) \
        && grep -q 'class="rl-point rl-reference"[^>]*data-variant="fast" data-size="67108864"' "$tmp/grader.svg" \
        && grep -q 'class="rl-unplaced"[^>]*data-variant="simple" data-size="1000"' "$tmp/grader.svg"; then
        pass "scorecard --grader-figures: the student's and the reference's point of each performance test, one past the copy flagged"
    else fail "scorecard --grader-figures" "exit $rc: ${out:-$err}"; fi
    run_capture "scorecard --grader-figures of a broken file" "$py" tools/scorecard.py --grader-figures "$tmp/cut.json" --out "$tmp/refused2.svg"
    if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == "scorecard.py: "*"is not valid JSON"* ]] \
        && [ ! -e "$tmp/refused2.svg" ]; then
        pass "scorecard --grader-figures of a broken file: one sentence, exit 2"
    else fail "scorecard --grader-figures of a broken file" "exit $rc: ${err:0:300}"; fi
}

# 3. The PNG, and make scorecard with RESULTS= (no nvcc needed for a results file).
scorecard_png_and_make() {
    if command -v rsvg-convert > /dev/null; then
        "$py" tools/scorecard.py tests/fixtures/scorecard/12-student.json --out "$tmp/p12.svg" --png > /dev/null 2>&1
        if [ "$(head -c 4 "$tmp/p12.png" 2> /dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; then pass "scorecard PNG (rsvg-convert)"
        else fail "scorecard PNG" "no PNG beside $tmp/p12.svg"; fi
    else skip "scorecard PNG" "no rsvg-convert (Debian: librsvg2-bin)"; fi
    run_capture "make scorecard" make -s --no-print-directory scorecard LAB=12 NVCC=/nonexistent/nvcc \
        RESULTS=tests/fixtures/scorecard/12-student.json BUILD="$tmp/build"
    if [ "$rc" -eq 0 ] && [ -s "$tmp/build/scorecard/lab12.svg" ] && printf '%s' "$out" | grep -q 'Missing: fast'; then
        pass "make scorecard LAB=12 RESULTS=...: $tmp/build/scorecard/lab12.svg"
    else fail "make scorecard LAB=12 RESULTS=..." "exit $rc; $(printf '%s\n%s' "$out" "$err" | head -n 3)"; fi
    run_capture "make scorecard LAB=02 with lab 01's results" make -s --no-print-directory scorecard LAB=02 NVCC=/nonexistent/nvcc \
        RESULTS=tests/fixtures/scorecard/01-student.json BUILD="$tmp/build"
    if [ "$rc" -ne 0 ] && [[ $err == *"holds the results of lab 01, not of lab 02"* ]] && [[ $err != *Traceback* ]]; then
        pass "make scorecard LAB=02 with lab 01's results is refused in one sentence"
    else fail "make scorecard LAB=02 with lab 01's results" "exit $rc: ${err:0:300}"; fi
}

scorecard_suite() {
    local py tmp
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "scorecard" "no python3"; return; }
    [ -f tests/tools/check_scorecard.py ] || { skip "scorecard" "no tests/tools/check_scorecard.py in this edition"; return; }
    tmp=$(mktemp -d)
    scorecard_committed_results
    scorecard_student_runs
    scorecard_long_names
    scorecard_refused_files
    scorecard_todo_and_ceiling
    scorecard_roofline
    scorecard_png_and_make
    rm -rf "$tmp"
}
scorecard_suite
