# The scorecard (tools/scorecard.py, make scorecard), sourced by tests/run_tests.sh; alone:
# bash tests/suites/scorecard.sh. No GPU needed. It is drawn from every committed results file
# (each lab's bench/results/<device>.d/NN.json, and each lab of every bench/results/<device>.json)
# and from the fixtures of tests/fixtures/scorecard/ (a student's runs: a variant missing, a
# failed row), and its content is checked against the JSON (tests/tools/check_scorecard.py):
# the bars' values and labels, the reference's bars, the targets marked, the student's GPU
# named, a missing variant said. Then the PNG, and make scorecard with RESULTS=.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

scorecard_suite() {
    local py tmp f nn dev n=0 bad=0 msg="" lab
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "scorecard" "no python3"; return; }
    [ -f tests/tools/check_scorecard.py ] || { skip "scorecard" "no tests/tools/check_scorecard.py in this edition"; return; }
    tmp=$(mktemp -d)
    # 1. Every committed results file, lab by lab.
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

    # 2. The fixtures: a student's run with a variant missing and a failed row.
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

    # 3. The PNG, and make scorecard with RESULTS= (no nvcc needed for a results file).
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
    rm -rf "$tmp"
}
scorecard_suite
