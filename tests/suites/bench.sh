# The tests of bench/run.sh (make bench), sourced by tests/run_tests.sh. No GPU needed: stand-in
# sol programs write the JSON and Markdown a lab writes, so what is checked is the collection:
# one file per device, every lab run in it, and a later run of some labs replacing only those.
# Also: no committed results file shows the reference missing a target the labs declare now.
# Also make bench-starts (bench/process_starts.sh), with stand-ins for the program and nvidia-smi,
# and make bench-runner (the grader's own process starts, host only).
# Alone: bash tests/suites/bench.sh

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

bench_suite() {
    local tmp sol nn res
    tmp=$(mktemp -d)
    mkdir -p "$tmp/bin" "$tmp/results"
    # A stand-in sol: writes its lab number and a run tag (BENCH_TAG) into its JSON and Markdown.
    for nn in 01 02; do
        sol=$tmp/bin/sol$nn
        cp tests/fixtures/bench/sol.sh "$sol"
        chmod +x "$sol"
    done
    res=$tmp/results
    run_capture "bench: all labs" env SOL_DIR="$tmp/bin" BENCH_DIR="$res" LABS="01 02" BENCH_TAG=first bash bench/run.sh
    if [ "$rc" -eq 0 ] && [ -f "$res/test-gpu-9000.json" ] && [ -f "$res/test-gpu-9000.md" ] \
        && [ "$(grep -c '"tag": "first"' "$res/test-gpu-9000.json")" -eq 2 ]; then
        pass "make bench writes bench/results/<device>.json and .md with every lab run"
    else
        fail "make bench writes bench/results/<device>.json and .md" "exit $rc; $(ls "$res" | tr '\n' ' ')"
    fi
    if printf '%s\n' "$out" | grep -qE '^  target default run: sol01 [0-9.]+ s \(under 3 s: MET\)$' \
        && grep -q '^Default run, as a student starts it (wall time): sol01 ' "$res/test-gpu-9000.md"; then
        pass "make bench times each lab's default run against its target"
    else
        fail "make bench times each lab's default run against its target" "$(printf '%s\n' "$out" | grep -m1 'default run' || echo 'no default-run line')"
    fi
    run_capture "bench: default run over its target" env SOL_DIR="$tmp/bin" BENCH_DIR="$tmp/r2" LABS="01" SOL_TARGET_S=0 bash bench/run.sh
    if printf '%s\n' "$out" | grep -qE 'sol01 [0-9.]+ s \(under 0 s: MISSED\)'; then
        pass "make bench reports a default run over its target as MISSED"
    else
        fail "make bench reports a default run over its target as MISSED" "$(printf '%s\n' "$out" | grep -m1 'default run' || echo 'no default-run line')"
    fi
    run_capture "bench: one lab again" env SOL_DIR="$tmp/bin" BENCH_DIR="$res" LABS="02" BENCH_TAG=second bash bench/run.sh
    if [ "$rc" -eq 0 ] && grep -q '"lab": "01-x", "tag": "first"' "$res/test-gpu-9000.json" \
        && grep -q '"lab": "02-x", "tag": "second"' "$res/test-gpu-9000.json" \
        && ! grep -q '"lab": "02-x", "tag": "first"' "$res/test-gpu-9000.json" \
        && grep -q '^### 01-x (first)' "$res/test-gpu-9000.md" && grep -q '^### 02-x (second)' "$res/test-gpu-9000.md"; then
        pass "make bench LABS=02 replaces lab 02's results and keeps lab 01's"
    else
        fail "make bench LABS=02 replaces lab 02's results and keeps lab 01's" "exit $rc; $(head -c 400 "$res/test-gpu-9000.json")"
    fi
    local py
    py=$(command -v python3 || true)
    if [ -z "$py" ]; then
        skip "bench JSON parses" "no python3"
    elif "$py" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert [l["lab"] for l in d["labs"]] == ["01-x", "02-x"], d' \
        "$res/test-gpu-9000.json" 2> "$tmp/err"; then
        pass "bench JSON parses, labs in order"
    else
        fail "bench JSON parses, labs in order" "$(tail -1 "$tmp/err")"
    fi
    rm -rf "$tmp"
}
bench_suite

# make bench-starts (bench/process_starts.sh) with a stand-in for the harness-linked reference
# and for nvidia-smi: every kind of batch runs the rubric's first correctness case, with the
# kernel trace where it says so, on the GPUs it names; a failing process is an error; no GPU, 77.
bench_starts_suite() {
    local tmp log
    tmp=$(mktemp -d)
    mkdir -p "$tmp/build/grading" "$tmp/bin"
    log=$tmp/runs.log
    # The stand-ins log each run to runs.log and opens.log in $STANDIN_LOGS ($tmp).
    cp tests/fixtures/bench/sol13_starts.sh "$tmp/build/grading/sol13"
    chmod +x "$tmp/build/grading/sol13"
    : > "$tmp/build/grading/libkernel_trace.so"
    mkdir -p "$tmp/build/bench"
    cp tests/fixtures/bench/gpu_open_phases.sh "$tmp/build/bench/gpu_open_phases"
    chmod +x "$tmp/build/bench/gpu_open_phases"
    # nvidia-smi: a name, or GPU N's UUID (GPU-test-N); the driver's folder names GPUs 4 and 5,
    # with minors 4 and 5, whose nodes (and the driver's) are files of a stand-in /dev.
    printf '#!/bin/sh\ncase "$*" in *uuid*) echo "GPU-test-${*##* }" ;; *) echo "Test GPU 9000" ;; esac\n' > "$tmp/bin/nvidia-smi"
    chmod +x "$tmp/bin/nvidia-smi"
    mkdir -p "$tmp/driver/a" "$tmp/driver/b" "$tmp/dev"
    printf 'GPU UUID: \t GPU-test-4\nDevice Minor: \t 4\n' > "$tmp/driver/a/information"
    printf 'GPU UUID: \t GPU-test-5\nDevice Minor: \t 5\n' > "$tmp/driver/b/information"
    : > "$tmp/dev/nvidia4"; : > "$tmp/dev/nvidia5"; : > "$tmp/dev/nvidiactl"
    run_capture "bench-starts: two GPUs" env PATH="$tmp/bin:$PATH" STANDIN_LOGS="$tmp" CUDA_VISIBLE_DEVICES=4,5 BUILD="$tmp/build" \
        BENCH_DIR="$tmp/results" LAB=13 STARTS_REPEAT=1 NVIDIA_DRIVER_GPUS="$tmp/driver" DEVICE_DIR="$tmp/dev" STARTS_WRITABLE="$tmp" \
        bash bench/process_starts.sh
    # Under bubblewrap (where it runs here): 16 on GPU 4 and 32 on GPUs 4 and 5, the whole /dev
    # (CUDA_VISIBLE_DEVICES an index) and then the GPU's nodes alone (its UUID).
    local boxed=0
    bwrap --unshare-all --ro-bind / / true 2> /dev/null && boxed=1
    # the header and 12 rows (16 under bubblewrap), then the phases table's header and 6 rows
    # (checked below). The first case: 1 + 16 runs without the trace, 1 + 8 + 16 + 16 + 16 with
    # it, one 16 with one hardware queue a context, one 16 on GPUs 4 and 5 (8 each). The whole
    # test, with the trace: 1, 16, and 16 on GPUs 4 and 5.
    if [ "$rc" -eq 0 ] && [ "$(grep -c '^| ' "$tmp/results/test-gpu-9000.starts.md")" -eq $((20 + 4 * boxed)) ] \
        && [ "$(grep -c 'run=first .*trace= ' "$log")" -eq $((17 + 96 * boxed)) ] && [ "$(grep -c 'run=first .*trace=yes' "$log")" -eq 57 ] \
        && [ "$(grep -c 'run=first gpu=5 ' "$log")" -eq $((8 + 16 * boxed)) ] && [ "$(grep -c 'run=first gpu=GPU-test-5 ' "$log")" -eq $((16 * boxed)) ] \
        && [ "$(grep -c 'run=first gpu=GPU-test-4 ' "$log")" -eq $((32 * boxed)) ] && [ "$(grep -c 'trace=yes connections=1$' "$log")" -eq 16 ] \
        && [ "$(grep -c 'connections=1$' "$log")" -eq 16 ] && [ "$(grep -c 'run=whole .*trace=yes connections=$' "$log")" -eq 33 ] \
        && [ "$(grep -c 'run=whole gpu=5 ' "$log")" -eq 8 ]; then
        pass "make bench-starts times each kind of batch, with the trace and on the GPUs it names"
    else
        fail "make bench-starts times each kind of batch" "exit $rc; $(sort "$log" | uniq -c | tr '\n' ' ')"
    fi
    # The open's phases: 1 alone and 16 at once, without and with the trace; 16 with one queue a
    # context; 16 on GPUs 4 and 5. Each row holds the phases' medians.
    if [ "$(grep -c '^| at once' "$tmp/results/test-gpu-9000.starts.md")" -eq 4 ] \
        && grep -q '^| alone, kernel trace | 1 | 4 | 0.010 | 0.250 | 0.030 | 0.040 | 0.050 |$' "$tmp/results/test-gpu-9000.starts.md" \
        && [ "$(wc -l < "$tmp/opens.log")" -eq 66 ] && [ "$(grep -c 'trace=yes' "$tmp/opens.log")" -eq 17 ] \
        && [ "$(grep -c 'connections=1$' "$tmp/opens.log")" -eq 16 ] && [ "$(grep -c 'gpu=5 ' "$tmp/opens.log")" -eq 8 ]; then
        pass "make bench-starts times the GPU open's phases, alone and many at once"
    else
        fail "make bench-starts times the GPU open's phases" "exit $rc; $(sort "$tmp/opens.log" | uniq -c | tr '\n' ' ')"
    fi
    run_capture "bench-starts: a failing process" env PATH="$tmp/bin:$PATH" STANDIN_LOGS="$tmp" CUDA_VISIBLE_DEVICES=4 BUILD="$tmp/build" \
        BENCH_DIR="$tmp/results" LAB=13 STARTS_REPEAT=1 FAIL_TRACED=1 bash bench/process_starts.sh
    if [ "$rc" -eq 1 ] && printf '%s\n' "$err" | grep -q 'one run, kernel trace: a process failed'; then
        pass "make bench-starts fails, naming the batch, when a process fails"
    else
        fail "make bench-starts fails when a process fails" "exit $rc; $(printf '%s' "$err" | head -n 2)"
    fi
    expect "make bench-starts without a GPU says so (exit 77)" 77 'no GPU here' \
        env PATH="$tmp/bin:$PATH" STANDIN_LOGS="$tmp" CUDA_VISIBLE_DEVICES= BUILD="$tmp/build" LAB=13 bash bench/process_starts.sh
    rm -rf "$tmp"
}
bench_starts_suite

# Every results file of the repository (and the one this run's `make bench` wrote, with a GPU):
# a yardstick's row is compared with itself, so its ratio is 1.00 by definition.
bench_ref_ratios() {
    local py bad
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "bench results: every REF row's ratio is 1.00" "no python3"; return; }
    bad=$("$py" tests/tools/check_ref_ratios.py bench/results/*.json)
    if [ $? -eq 0 ] && [ -z "$bad" ]; then pass "bench results: every REF row's ratio is 1.00"
    else fail "bench results: every REF row's ratio is 1.00" "$(printf '%s' "$bad" | head -n 3)"; fi
}
bench_ref_ratios

# The targets students see are targets the reference meets: every committed results file's
# measured rows judged against the targets the labs declare now (bench/targets.json, kept equal
# to ./solNN --describe below), met on every GPU with a margin of 1 % (bench/targets.py check).
bench_targets_met() {
    local py tmp nn sols=""
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "bench results: the reference meets every target" "no python3"; return; }
    [ -f bench/targets.py ] || { skip "bench results: the reference meets every target" "no bench/ in this edition"; return; }
    run_capture "bench targets check" "$py" bench/targets.py check
    if [ "$rc" -eq 0 ]; then pass "bench results: the reference meets every target the labs declare, on every GPU measured"
    else fail "bench results: the reference meets every target the labs declare" "$(printf '%s' "$out" | grep -v '^note' | head -n 4)"; fi
    # The check fails where it should: lab 12's old target, parity with cuBLAS at 4096.
    tmp=$(mktemp -d)
    printf '{"12": [{"variant": "fast", "size": "4096", "min_ratio": 1.0, "yardstick": "cublas"}]}\n' > "$tmp/t.json"
    run_capture "bench targets check (a missed target)" "$py" bench/targets.py check --targets "$tmp/t.json"
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q 'lab 12 fast at 4096 >= 1.00 x cublas: the reference measured 0.9[0-9]* on NVIDIA H100 80GB HBM3 (missed)'; then
        pass "bench targets check fails on a target the reference misses (lab 12 fast at 1.00 of cuBLAS)"
    else fail "bench targets check fails on a target the reference misses" "exit $rc; $(printf '%s' "$out" | head -n 2)"; fi
    # bench/targets.json is what the built programs declare, for every variant it lists.
    for nn in $(make -s --no-print-directory list-labs 2>/dev/null); do
        [ -x "./sol$nn" ] && sols="$sols ./sol$nn"
    done
    if [ -z "$sols" ]; then
        skip "bench/targets.json is what ./solNN --describe declares" "no solution built (make solutions)"
    else
        run_capture "bench targets snapshot" "$py" bench/targets.py snapshot $sols
        if [ "$rc" -eq 0 ] && printf '%s\n' "$out" > "$tmp/now.json" \
            && "$py" tests/tools/check_targets_snapshot.py "$tmp/now.json" bench/targets.json
        then pass "bench/targets.json is what ./solNN --describe declares ($(echo $sols | wc -w) labs)"
        else fail "bench/targets.json is what ./solNN --describe declares" "$(printf '%s' "$out" | tail -n 2)"; fi
    fi
    rm -rf "$tmp"
}
bench_targets_met

# make bench-grading's CPU figure (bench/grading_throughput.sh's busy_percent and cpu_ticks): the
# share of CPU time between two readings that was neither idle nor waiting for I/O.
bench_grading_cpus() {
    local fns busy ticks
    fns=$(sed -n '/^cpu_ticks()/p;/^busy_percent()/p' bench/grading_throughput.sh)
    busy=$(bash -c "$fns"'
        printf "%s %s %s " "$(busy_percent "1 10" "5 20")" "$(busy_percent "0 100" "0 300")" "$(busy_percent "7 50" "7 50")"')
    ticks=$(bash -c "$fns"'; cpu_ticks')
    if [ "$busy" = "40 0 0 " ] && [[ "$ticks" =~ ^[0-9]+\ [0-9]+$ ]] && [ "${ticks% *}" -le "${ticks#* }" ]; then
        pass "bench-grading: how busy the CPUs were, from two /proc/stat readings ($busy; now: $ticks)"
    else
        fail "bench-grading: how busy the CPUs were" "busy_percent gave '$busy' (want '40 0 0 '), cpu_ticks '$ticks'"
    fi
}
bench_grading_cpus

# make bench-grading's results (bench/grading_throughput.sh's publish): a second run of another
# lab keeps the first's section, and the sections are not kept as a *.d/NN.json, which the
# scorecard, the release, the notebooks and bench/targets.py read as a lab's benchmark results.
bench_grading_publish() {
    local fns tmp out
    tmp=$(mktemp -d)
    fns=$(sed -n '/^seconds()/p;/^publish()/,/^}/p' bench/grading_throughput.sh)
    mkdir -p "$tmp/s13" "$tmp/s12"
    echo '{"lab": "13"}' > "$tmp/s13/13.json"; echo '## Lab 13 section' > "$tmp/s13/13.md"
    echo '{"lab": "12"}' > "$tmp/s12/12.json"; echo '## Lab 12 section' > "$tmp/s12/12.md"
    out=$(cd "$tmp" && bash -c "$fns"'
        device="Test GPU 9000" gpus=1 BENCH_DIR=results trials=1 seed=1 targets="13=300" speedup_target=1.9
        started=$EPOCHREALTIME
        labs=13 sections=s13 publish && labs=12 sections=s12 publish
        ls -d results/*.d/[0-9][0-9].json 2> /dev/null' 2>&1)
    if [ -z "$out" ] && [ -f "$tmp/results/test-gpu-9000.grading.md" ] \
        && [ "$(grep -c '^## Lab 1[23] section$' "$tmp/results/test-gpu-9000.grading.md")" -eq 2 ] \
        && grep -q '"labs": \[{"lab": "12"},{"lab": "13"}\]' "$tmp/results/test-gpu-9000.grading.json"; then
        pass "bench-grading keeps every lab's section, outside the *.d folders that hold labs' benchmark results"
    else
        fail "bench-grading's results" "$(ls -R "$tmp/results" | tr '\n' ' ') $out"
    fi
    rm -rf "$tmp"
}
bench_grading_publish

# make bench-grading's class (bench/grading_throughput.sh's make_class) and its defaults: by default
# the rubric's trials and every submission a distinct file (a comment line of its own, so that no
# build is shared), both named in the results' header and JSON; GRADING_BENCH_DISTINCT=0 keeps the
# reference's copies identical.
bench_grading_class() {
    local fns tmp said=""
    tmp=$(mktemp -d)
    fns=$(sed -n '/^trials=/p;/^distinct=/p;/^seconds()/p;/^rubric_tests()/,/^}/p;/^full_marks_cases()/,/^}/p;/^make_class()/,/^}/p;/^publish()/,/^}/p' bench/grading_throughput.sh)
    env -u GRADING_BENCH_TRIALS -u GRADING_BENCH_DISTINCT -u GRADING_BENCH_OPTIONS bash -c "$fns"'
        make_class 01 labs/01-vector-add vector_add.cu "$1/class-one" 24 > /dev/null
        distinct=0 make_class 01 labs/01-vector-add vector_add.cu "$1/same" 24 > /dev/null
        mkdir -p "$1/s" && echo "{"lab": "01"}" > "$1/s/01.json" && echo "## Lab 01" > "$1/s/01.md"
        device="Test GPU" gpus=1 BENCH_DIR="$1/results" seed=1 targets="01=600" speedup_target=1.9             started=$EPOCHREALTIME labs=01 sections="$1/s" publish' _ "$tmp" 2> "$tmp/err" || said="the functions failed: $(head -c 200 "$tmp/err");"
    [ "$(ls "$tmp/class-one" 2> /dev/null | wc -l)" -eq 24 ] || said="$said not 24 submissions;"
    [ "$(sha256sum "$tmp"/class-one/*/vector_add.cu | cut -d" " -f1 | sort -u | wc -l)" -eq 24 ] || said="$said files alike in the class;"
    [ "$(tail -qn1 "$tmp"/class-one/*/vector_add.cu | grep -c "^// bench-grading: class-one/")" -eq 24 ] || said="$said no comment line of its own;"
    [ "$(ls -d "$tmp"/same/copy* | wc -l)" -ge 2 ] \
        && [ "$(sha256sum "$tmp"/same/copy*/vector_add.cu | cut -d' ' -f1 | sort -u | wc -l)" -eq 1 ] || said="$said GRADING_BENCH_DISTINCT=0 changed the copies;"
    grep -q "one seed, the rubric's trials, " "$tmp/results/test-gpu.grading.md" \
        && grep -q '^every submission a distinct file (no build shared), options: none (GRADING_BENCH_TRIALS=rubric GRADING_BENCH_DISTINCT=1)' "$tmp/results/test-gpu.grading.md" \
        && grep -q '"trials": "rubric", "distinct_files": true, "options": ""' "$tmp/results/test-gpu.grading.json" \
        || said="$said the header does not name the defaults: $(sed -n 3,5p "$tmp/results/test-gpu.grading.md" 2> /dev/null | tr '\n' ' ');"
    if [ -z "$said" ]; then
        pass "bench-grading by default: the rubric's trials, every submission a distinct file (24, corpus cases and copies of the reference), both named in its header and JSON"
    else fail "bench-grading's class and defaults" "$said"; fi
    rm -rf "$tmp"
}
bench_grading_class

# make bench-runner (bench/runner_starts.cpp): a row of runs a second for each amount of memory
# the grader holds, every run of /bin/true having worked.
bench_runner() {
    local out rc rows
    out=$(make --no-print-directory bench-runner 2>&1)
    rc=$?
    rows=$(grep -cE '^\| (0|100|1000) \| [1-9][0-9]* \|$' <<< "$out")
    if [ "$rc" = 0 ] && [ "$rows" = 3 ]; then
        pass "bench-runner: runs a second from 8 threads, the grader holding 0, 100 and 1000 MB ($(grep -E '^\| 1000 ' <<< "$out"))"
    else
        fail "bench-runner: runs a second from 8 threads" "exit $rc, $rows of 3 rows: $(tail -5 <<< "$out" | tr '\n' ' ')"
    fi
}
bench_runner
