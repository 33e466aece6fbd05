#!/usr/bin/env bash
# The test suite behind `make test` (run it through make, which builds everything first).
#
#   1. the host unit tests (doctest);
#   2. for every lab, command-line checks that need no GPU (help, bad sizes, unknown flags);
#   3. without a GPU: every program says so in one sentence and exits 77;
#      with a GPU: every solution passes its default sizes, every untouched starter fails and
#      points at its TODO, compute-sanitizer memcheck and racecheck are clean on the solutions,
#      lab-specific checks in tests/labs/NN.sh run;
#   4. the suites of other parts of the project, tests/suites/*.sh (handouts, grading, SLURM);
#   5. with a GPU, the benchmarks (make bench).
#
# Ends with one line "N passed, M failed, K skipped". Logs: $LOG_DIR (default build/test-logs);
# $LOG_DIR/suite.log holds every PASS/FAIL/SKIP line, each command's output and the final count.
# In the student edition (make release: no solutions/) the checks of the reference solutions
# are skipped, and the command-line checks run the starter's program.
# CUDALABS_GPU=0 or 1 overrides the GPU detection (nvidia-smi -L); TEST_LABS="01 08" limits the
# lab checks, grading, the profile hints on the GPU and benchmarks to those labs; TEST_SUITES="grading"
# runs only those suites of tests/suites/; TEST_BENCH=0 leaves out the benchmarks (while other
# GPU work shares the machine, say).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LOG_DIR=${LOG_DIR:-$BUILD/test-logs}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
mkdir -p "$LOG_DIR"
LOG=$LOG_DIR/suite.log
: > "$LOG"

passed=0 failed=0 skipped=0
# say, pass, fail, skip, run_capture, expect, lab_dir, student_file
. tests/lib.sh

# no_false_alarm NAME: after a run of a reference solution, passes when its output ($out, $err)
# has no hint meant for unfinished work: no TODO( pointer, no "did not", no warning line.
no_false_alarm() {
    local alarms
    alarms=$(printf '%s\n%s\n' "$out" "$err" | grep -E 'TODO\(|did not|[Ww]arning' | head -n 3)
    if [ -z "$alarms" ]; then pass "$1 prints no hint meant for unfinished work"
    else fail "$1 prints no hint meant for unfinished work" "$alarms"; fi
}

# ---- 1. unit tests --------------------------------------------------------------------------
run_capture "unit tests" "$BUILD/unit_tests"
echo "$out" | grep -E '^\[doctest\]|ERROR|FAILED|\.cpp\(' | grep -v '^\[doctest\] doctest version' | tee -a "$LOG"
summary=$(echo "$out" | grep -E '^\[doctest\] test cases:')
if [[ $summary =~ ([0-9]+)\ passed.*\|\ *([0-9]+)\ failed.*\|\ *([0-9]+)\ skipped ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    skipped=$((skipped + BASH_REMATCH[3]))
    [ "$rc" -ne 0 ] && [ "${BASH_REMATCH[2]}" -eq 0 ] && fail "unit tests" "exit $rc"
else
    fail "unit tests" "no doctest summary (exit $rc)"
fi

# ---- GPU detection --------------------------------------------------------------------------
if [ -n "${CUDALABS_GPU:-}" ]; then gpu=$CUDALABS_GPU
elif nvidia-smi -L > /dev/null 2>&1; then gpu=1
else gpu=0
fi
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
say "GPU present: $([ "$gpu" = 1 ] && echo yes || echo no)"
have_solutions=0
[ -d solutions ] && have_solutions=1

# ---- 2 and 3. every lab ---------------------------------------------------------------------
# TEST_LABS="01 08" limits the lab checks, the grading suite and the benchmarks to those labs
# (to split a long GPU run in two).
labs=${TEST_LABS:-$(make -s --no-print-directory list-labs)}
[ -n "${TEST_LABS:-}" ] && export GRADING_ONLY=${GRADING_ONLY:-$TEST_LABS}
for nn in $labs; do
    sol=./sol$nn lab=./lab$nn
    [ "$have_solutions" = 1 ] || sol=$lab
    # Command-line checks: usage errors are found before the GPU is touched.
    expect "lab$nn --help" 0 'Usage:' $sol --help
    expect "lab$nn --describe prints its declaration" 0 "^  \"lab\": \"$nn\",$" $sol --describe
    expect "lab$nn rejects a non-numeric size" 2 'error: .*abc' $sol --size abc
    expect "lab$nn rejects size 0" 2 'error: .*at least 1' $sol --size 0
    expect "lab$nn rejects negative --reps" 2 'error: ' $sol --reps -3
    expect "lab$nn rejects an unknown variant" 2 'unknown variant' $sol --variant no_such_variant
    expect "lab$nn rejects an unknown option" 2 'unknown option' $sol --no-such-flag

    # Every variant a student writes has a TODO(labNN) marker that names it, so a failing
    # variant can point at its work (yardsticks, marked in --help, are the lab's own).
    starter=$(student_file "$nn")
    unmarked=""
    help=$($sol --help)
    for v in $($sol --list); do
        printf '%s\n' "$help" | grep -qE "^  $v .*\(yardstick\)$" && continue
        grep -qE "TODO\(lab$nn\).*\b$v\b" "$starter" || unmarked="$unmarked $v"
    done
    # In the student edition the starter is the student's own file, markers removed or not.
    if [ "$have_solutions" != 1 ]; then skip "lab$nn starter marks every variant with TODO(lab$nn)" "the student's own file"
    elif [ -z "$unmarked" ]; then pass "lab$nn starter marks every variant with TODO(lab$nn)"
    else fail "lab$nn starter marks every variant with TODO(lab$nn)" "no marker names:$unmarked"; fi

    [ "$have_solutions" = 1 ] || skip "sol$nn checks" "this edition has no reference solutions"

    if [ "$gpu" != 1 ]; then
        for prog in $(printf '%s\n' $lab $sol | sort -u); do
            run_capture "$prog without a GPU" $prog
            if [ "$rc" -eq 77 ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
                && [[ $err == *"no usable CUDA GPU"* ]]; then
                pass "$prog without a GPU: one sentence, exit 77"
            else
                fail "$prog without a GPU" "exit $rc, stdout ${#out} chars, stderr: $(echo "$err" | head -c 200)"
            fi
        done
        skip "lab$nn GPU suite" "no GPU on this machine"
        continue
    fi
    if [ "$have_solutions" != 1 ]; then
        # The student edition: the starter is the student's work, finished or not.
        run_capture "lab$nn runs to a verdict" $lab
        if { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && printf '%s' "$out" | grep -q '^Verdict: '; then
            pass "lab$nn runs to a verdict ($(printf '%s' "$out" | grep -m1 '^Verdict: '))"
        else fail "lab$nn runs to a verdict" "exit $rc: $(printf '%s' "$err" | head -c 300)"; fi
        continue
    fi

    expect "sol$nn passes every default size" 0 'Verdict: PASS' $sol
    no_false_alarm "sol$nn"
    expect "sol$nn --quick passes" 0 'Verdict: PASS' $sol --quick
    no_false_alarm "sol$nn --quick"
    expect "lab$nn starter fails and points at its TODO" 1 "TODO\\(lab$nn\\).*|Verdict: FAIL" $lab
    if ! printf '%s' "$out" | grep -q "TODO(lab$nn)"; then fail "lab$nn starter names TODO(lab$nn)"; else pass "lab$nn starter names TODO(lab$nn)"; fi
    expect "sol$nn rejects a size too large for the device" 2 'error: ' $sol --size 100000000000
    expect "sol$nn passes with guard zones and input checks" 0 'Verdict: PASS' $sol --quick --guard-buffers
    if [ -n "$SANITIZER" ]; then
        expect "sol$nn memcheck clean" 0 'ERROR SUMMARY: 0 errors' \
            "$SANITIZER" --tool memcheck --leak-check full --error-exitcode 99 $sol --quick
        expect "sol$nn racecheck clean" 0 'RACECHECK SUMMARY: 0 hazards|ERROR SUMMARY: 0 errors' \
            "$SANITIZER" --tool racecheck --error-exitcode 99 $sol --quick
    else
        skip "sol$nn compute-sanitizer" "compute-sanitizer not found"
    fi
    if [ -f "tests/labs/$nn.sh" ]; then
        # shellcheck source=/dev/null
        . "tests/labs/$nn.sh"
    fi
done

# machine_cpu: "BUSY TOTAL", clock ticks of all the machine's CPUs since boot (/proc/stat's cpu
# line; busy is all but idle and I/O wait). Machine-wide, so it counts the processes a suite
# hands to others too (the grader's sandboxes, the cluster's daemons); "0 0" without /proc.
machine_cpu() {
    awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat 2> /dev/null || echo "0 0"
}
# cpus_busy "BUSY TOTAL" (machine_cpu at the start): how busy the CPUs have been since ("CPUs N% busy").
cpus_busy() {
    local before=($1) now=($(machine_cpu))
    local busy=$((now[0] - before[0])) total=$((now[1] - before[1]))
    [ "$total" -gt 0 ] || { echo "CPUs not measured"; return; }
    echo "CPUs $((100 * busy / total))% busy"
}

# ---- 4. other parts of the project: tests/suites/*.sh (handouts, grading, cluster) ---------
# Each is sourced with pass/fail/skip/expect/run_capture and $gpu available.
# TEST_SUITES="grading grading_stress": only these suites (by file name, without .sh).
for suite in tests/suites/*.sh; do
    [ -f "$suite" ] || continue
    suite_name=$(basename "$suite" .sh)
    if [ -n "${TEST_SUITES:-}" ] && [[ " $TEST_SUITES " != *" $suite_name "* ]]; then
        skip "suite $suite_name" "not in TEST_SUITES"
        continue
    fi
    suite_started=$SECONDS suite_cpu=$(machine_cpu)
    # shellcheck source=/dev/null
    . "$suite"
    # Where a slow run's time went, and whether it computed (CPUs near 100% busy) or waited.
    say "suite $suite_name: $((SECONDS - suite_started)) s, $(cpus_busy "$suite_cpu")"
done

# ---- 5. benchmarks (GPU only) ---------------------------------------------------------------
if [ "$gpu" = 1 ] && [ "${TEST_BENCH:-1}" = 0 ]; then
    skip "make bench" "TEST_BENCH=0"
elif [ "$gpu" = 1 ] && [ "$have_solutions" != 1 ]; then
    skip "make bench" "this edition has no reference solutions to time"
elif [ "$gpu" = 1 ]; then
    run_capture "make bench" env LABS="$labs" make -s --no-print-directory bench BUILD="$BUILD"
    echo "$out" | grep -E '^(target|Benchmarks|Results|  )' | head -80
    if [ "$rc" -eq 0 ]; then pass "make bench: every solution passed at its benchmark sizes"
    else fail "make bench" "exit $rc (see $LOG)"; fi
fi

say "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
