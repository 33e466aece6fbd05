# The counters' hints (tools/profile_hints.py, make profileNN, labs/*/profile.sh), sourced by
# tests/run_tests.sh; alone: bash tests/suites/profile_hints.sh. Without a GPU: the hints drawn
# from the fixtures of tests/fixtures/profile/ (ncu's CSV, --page raw and --page details, and its
# text output; a student's runs beside the reference's), checked sentence by sentence, numbers
# included; every lab's hints from synthetic counters (far from the lesson's goal, on it, a
# counter missing, a variant not run): no Nsight metric name printed, every sentence using a term
# of the lab's handout, and every handout saying make profileNN; every profile.sh without ncu,
# and with an ncu that may not read the counters
# (ERR_NVGPUCTRPERM): one sentence, exit 2; profile.sh end to end through a fake ncu that
# replays the fixtures; make profileNN PROGRAM=lab's wiring. With a GPU and ncu: make profileNN
# on the reference and on the untouched starter, for every lab that has a profile.sh (of
# TEST_LABS, where it is set).

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# hints_hold NAME FILE LINE...: passes when FILE holds every LINE, whole and exact.
hints_hold() {
    local name=$1 file=$2 line missing=""
    shift 2
    for line in "$@"; do
        grep -qxF -- "$line" "$file" || missing="$missing${missing:+ | }${line:0:90}..."
    done
    if [ -z "$missing" ]; then pass "$name"
    else fail "$name" "missing: $missing; got: $(head -c 300 "$file")"; fi
}

# synthetic_runs DIR NN MODE: a VARIANT.csv (ncu --csv --page raw) for every variant of lab NN's
# plan, of a kernel its filter takes. MODE high: every request counter 1, every other metric 100
# (far from every goal); one: every metric 1 (on every goal); none: no metric (a counter missing);
# harness: the harness's kernel alone (the variant did not run).
synthetic_runs() {
    local dir=$1 nn=$2 mode=$3 plan variants metrics kernel v m header row
    plan=$("$py" "$tool" --lab "$nn" --plan)
    variants=$(printf '%s\n' "$plan" | sed -n 's/^variants=//p' | tr -d "'")
    metrics=$(printf '%s\n' "$plan" | sed -n 's/^metrics=//p' | tr -d "'" | tr ',' ' ')
    case $nn in 12) kernel=sgemm_synthetic;; 13) kernel=matvec_synthetic;; *) kernel=synthetic_kernel;; esac
    [ "$mode" = harness ] && kernel=cudalabs_fill
    mkdir -p "$dir"
    for v in $variants; do
        header='"ID","Kernel Name"' row="\"0\",\"$kernel\""
        if [ "$mode" != none ]; then
            for m in $metrics; do
                header="$header,\"$m\""
                case $mode:$m in high:*requests*|high:smsp__inst_executed*) row="$row,\"1\"";; high:*) row="$row,\"100\"";; *) row="$row,\"1\"";; esac
            done
        fi
        printf '%s\n%s\n' "$header" "$row" > "$dir/$v.csv"
    done
}

# handout_terms NN: the terms lab NN's handout defines that its hints must use (one at least per
# hint), as an extended regex; each is checked to be in the handout.
handout_terms() {
    case $1 in
        01) echo 'grid-stride loop|float4|copy bandwidth';;
        02) echo 'coalesced|sectors|padding|float4|copy bandwidth';;
        03) echo '7-point stencil|float4|copy bandwidth|cache';;
        04) echo 'constant memory|broadcast|same address';;
        07) echo 'coalesced|sectors per request|structure of arrays|array of structures|stride|misaligned offset|copy bandwidth';;
        08) echo 'coalesced|bank conflict|wavefront|banks|copy bandwidth';;
        10) echo 'bank conflict|shared memory|registers|occupancy|wavefront';;
        11) echo 'conflict|by column|wavefront|bank|padding';;
        12) echo '1D thread coarsening|2D register tiles|vectorised loads|warp tiling|pipelining|registers|occupancy|wavefront|bank conflict';;
        13) echo 'coalesced|one warp per row|sectors|copy bandwidth|shuffle reduction|shared memory';;
    esac
}

# hint_advice: the sentences of stdin without what every hint of a kind says whatever the lesson
# (its title, the variant's name, the measured numbers), so that a term must come from the
# change, the gain or the lesson.
hint_advice() {
    sed -E 's/^[^:]*: //; s/(your|the reference.s) [a-z0-9_]+ kernel//; s/[0-9][0-9.,]* (sectors|shared-memory wavefronts) per request//g; s/gave no value for [^(]*//g; s/uses [0-9]+ registers per thread//g; s/\(achieved occupancy\)//g'
}

# The hints of every lab, drawn from synthetic counters, whatever the student's kernels measure
# (far from the goal, on it, a counter missing, not run): no Nsight metric name is printed, every
# sentence uses a term of the lab's handout, and every lab's handout says how to get them.
profile_hints_every_lab() {
    local tmp=$1 nn mode md terms t n want names="" noterm="" undefined="" unsaid="" out
    for nn in $labs_with; do
        for mode in high one none harness; do synthetic_runs "$tmp/syn/$nn/$mode" "$nn" "$mode"; done
        want=$("$py" "$tool" --list | awk -v l="$nn" '$1 == l { print $(NF - 1) }')
        out="$tmp/syn/$nn/hints.txt"
        : > "$out"
        for mode in "high one" "one none" "harness high" "none harness"; do
            set -- $mode
            "$py" "$tool" --lab "$nn" --student "$tmp/syn/$nn/$1" --reference "$tmp/syn/$nn/$2" --copy-gbs 3000 > "$tmp/syn/$nn/one.txt" 2>&1
            n=$(grep -c . "$tmp/syn/$nn/one.txt")
            [ "$n" -eq "$want" ] || noterm="$noterm lab $nn ($1 beside $2) printed $n sentences, not $want;"
            cat "$tmp/syn/$nn/one.txt" >> "$out"
        done
        "$py" "$tool" --lab "$nn" --student "$tmp/syn/$nn/high" --who "the reference's" >> "$out" 2>&1
        grep -qE '[a-z0-9]+__[a-z0-9_]+' "$out" && names="$names lab $nn: $(grep -oE '[a-z0-9]+__[a-z0-9_.]+' "$out" | head -n 1);"
        md=$(ls handouts/"$nn"-*.md 2> /dev/null | head -n 1)
        terms=$(handout_terms "$nn")
        if [ -z "$md" ] || [ -z "$terms" ]; then undefined="$undefined lab $nn has no handout or no terms;"; continue; fi
        while IFS= read -r t; do
            tr '\n' ' ' < "$md" | grep -qiF -- "$t" || undefined="$undefined $md never says \"$t\";"
        done < <(printf '%s\n' "$terms" | tr '|' '\n')
        while IFS= read -r line; do
            printf '%s\n' "$line" | hint_advice | grep -qiE -- "$terms" || noterm="$noterm lab $nn: ${line:0:120}...;"
        done < "$out"
        grep -qF "make profile$nn" "$md" || unsaid="$unsaid $md;"
    done
    if [ -z "$names" ]; then pass "no hint of any lab ($labs_with ) prints an Nsight metric's name, whatever its counters"
    else fail "no hint prints an Nsight metric's name" "$names"; fi
    if [ -z "$noterm$undefined" ]; then pass "every hint of every lab uses a term its handout defines, whatever its counters"
    else fail "every hint uses a term its handout defines" "${undefined}${noterm:0:600}"; fi
    if [ -z "$unsaid" ]; then pass "every lab with a profile.sh says make profileNN in its handout"
    else fail "every lab with a profile.sh says make profileNN in its handout" "not in:$unsaid"; fi

    # These checks can fail: a metric's name, a sentence without the handout's terms, a handout
    # without make profileNN are found.
    printf 'Coalescing: your x kernel gave no value for l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum (ask).\n' > "$tmp/syn/bad.txt"
    if grep -qE '[a-z0-9]+__[a-z0-9_]+' "$tmp/syn/bad.txt"; then pass "a hint that prints a metric's name is found"
    else fail "a hint that prints a metric's name is found" "the pattern missed it"; fi
    if printf 'Coalescing: your soa kernel reads 4.0 sectors per request: do better; expect more (no reason).\n' \
        | hint_advice | grep -qiE -- "$(handout_terms 07)"; then
        fail "a hint without its handout's terms is found" "the measured sectors per request were taken for the lesson's words"
    else pass "a hint without its handout's terms is found (the measured numbers do not count)"; fi
    if ! grep -qF "make profile05" handouts/05-*.md; then pass "a handout without make profileNN is found (lab 05's)"
    else fail "a handout without make profileNN is found" "lab 05's handout says make profile05"; fi
}

# Every lab with a profile.sh has hints, and its hints name variants the lab has; labs 12 and
# 13 (their own ncu runs) measure every metric their hints need.
profile_hints_have_hints() {
    local nn lab plan v m bad=""
    for nn in $labs_with; do
        lab=$(lab_dir "$nn")
        if ! plan=$("$py" "$tool" --lab "$nn" --plan 2> /dev/null); then bad="$bad lab $nn has no hints;"; continue; fi
        for v in $(printf '%s\n' "$plan" | sed -n "s/^variants='\{0,1\}\([^']*\)'\{0,1\}$/\1/p"); do
            grep -qE "\{\"$v\"," "$lab/driver.cu" || bad="$bad lab $nn has no variant $v;"
        done
        if grep -q '^profile_lab ' "$lab/profile.sh"; then
            grep -q "^profile_lab $nn " "$lab/profile.sh" || bad="$bad $lab/profile.sh profiles another lab;"
        else
            for m in $(printf '%s\n' "$plan" | sed -n 's/^metrics=//p' | tr -d "'" | tr ',' ' '); do
                grep -q "$m" "$lab/profile.sh" || bad="$bad $lab/profile.sh does not measure $m;"
            done
        fi
    done
    if [ -n "$labs_with" ] && [ -z "$bad" ]; then pass "every lab with a profile.sh ($labs_with ) has hints of its own variants, and measures their metrics"
    else fail "every lab with a profile.sh has hints" "${bad:-no profile.sh found}"; fi
}

# The sentences, from the fixtures: labs 07 and 08.
profile_hints_fixtures_07_08() {
    local n
    "$py" "$tool" --lab 07 --student "$fx/07-student" --reference "$fx/07-reference" > "$tmp/07.txt" 2>&1
    hints_hold "lab 07 hints: sectors per request and bandwidth, the student's beside the reference's (raw CSV in base and in scaled units, --page details, a missing counter, a variant not run)" "$tmp/07.txt" \
        "Coalescing: your soa kernel reads 4.0 sectors per request, where the reference's reads 4.0 sectors per request: on target, nothing to change (SoA, a structure of arrays: 32 consecutive floats of one array fill 4 sectors of 32 bytes, every byte used)." \
        "Coalescing: your offset kernel reads 8.0 sectors per request, where the reference's reads 5.0 sectors per request: start each warp's reads on a 32-byte sector (no misaligned offset); expect about 2x fewer sectors per request (in[i + 1], a misaligned offset, starts 4 bytes past a sector, so 32 floats touch 5 sectors, not 4)." \
        "Coalescing: your strided kernel did not run (ncu saw no kernel of this variant: is its TODO(lab07) written yet?), where the reference's reads 32.0 sectors per request: give consecutive threads consecutive addresses (a stride of 1, the coalesced layout); expect about 8x fewer sectors per request (in[8 i], a stride of 8, puts each lane's float in its own 32-byte sector: 32 sectors for 128 useful bytes)." \
        "Coalescing: your aos kernel gave no value for the sectors per request (this GPU or ncu lacks the counter), where the reference's reads 12.0 sectors per request: store the points as a structure of arrays (the soa variant); expect about 3x fewer sectors per request (AoS, an array of structures: in[i].x of 32 lanes is 12 bytes apart, so each load spans 12 sectors and a third of each is used)." \
        "Coalescing: your aos16 kernel was not profiled, where the reference's reads 16.0 sectors per request: store the points as a structure of arrays (the soa variant); expect a quarter fewer bytes moved, and SoA at least 1.10x faster than aos16, the lab's target (the 16-byte vec3a is one float4 load of 16 sectors, of which 12 bytes in 16 are used)." \
        "Bandwidth: your soa kernel moves 2,000 GB/s, 0.61 of the measured copy of 3,300 GB/s and 59% of DRAM peak, where the reference's moves 3,000 GB/s, 0.90 of the measured copy of 3,350 GB/s and 88% of DRAM peak: keep the structure of arrays and one coalesced load per array; expect about 1.4x the bandwidth, up to 0.85 of the copy, the lab's target (SoA moves only the bytes it uses: a kernel that reads and writes each byte once can go no faster than the measured copy bandwidth)."
    n=$(grep -c . "$tmp/07.txt")
    if [ "$n" -eq 6 ]; then pass "lab 07 hints: one sentence per hint (6)"; else fail "lab 07 hints: one sentence per hint" "$n lines"; fi

    "$py" "$tool" --lab 08 --student "$fx/08-student" --reference "$fx/08-reference" > "$tmp/08.txt" 2>&1
    hints_hold "lab 08 hints: strided stores, bank conflicts on whichever side has them, the harness's kernel not taken for the student's" "$tmp/08.txt" \
        "Coalescing: your naive kernel writes 32.0 sectors per request, where the reference's writes 32.0 sectors per request: stage a 32 x 32 tile in shared memory and write it out along rows of the output (the tiled variant); expect about 8x fewer sectors per request (writing out[col][row] puts each lane's float in another row, 32 sectors per request where a coalesced write needs 4)." \
        "Bank conflicts: your tiled kernel needs 32.00 shared-memory wavefronts per request, where the reference's needs 32.00 shared-memory wavefronts per request: declare the tile float tile[32][33] (the padded variant); expect about 32x fewer shared-memory wavefronts per request (reading a column of a float tile[32][32] puts all 32 lanes in one bank: a 32-way bank conflict)." \
        "Bank conflicts: your padded kernel needs 2.00 shared-memory wavefronts per request, where the reference's needs 1.00 shared-memory wavefronts per request: launch the tiled kernel with Pad = 1, the [32][33] tile, and index it with its padded row length; expect about 2x fewer shared-memory wavefronts per request (a 32 x 33 tile shifts each row by one bank, so a column falls in 32 different banks: 1 wavefront per request)." \
        "Bandwidth: your fast kernel did not run (ncu saw no kernel of this variant: is its TODO(lab08) written yet?), where the reference's moves 3,000 GB/s, 0.90 of the measured copy of 3,350 GB/s and 91% of DRAM peak: give each thread more elements (a 64 x 64 tile, 16 per thread) with float4 loads and stores where the shape allows, keeping the padding; expect 0.90 of the copy, the lab's target (a transpose reads and writes each element once: a kernel that reads and writes each byte once can go no faster than the measured copy bandwidth)."
}

# The sentences, from the fixtures: labs 04 and 12, the reference alone, and a changed fixture.
profile_hints_fixtures_04_12() {
    "$py" "$tool" --lab 04 --student "$fx/04-student" --reference "$fx/04-reference" > "$tmp/04.txt" 2>&1
    hints_hold "lab 04 hints: the constant kernel's bandwidth, the divergent one's time over the broadcast's" "$tmp/04.txt" \
        "Bandwidth: your constant kernel moves 1,342 GB/s, 0.41 of the measured copy of 3,300 GB/s and 70% of DRAM peak, where the reference's moves 3,050 GB/s, 0.91 of the measured copy of 3,350 GB/s and 70% of DRAM peak: keep every thread of a warp reading the same coefficient from constant memory, four points per thread; expect about 2x the bandwidth, up to 0.80 of the copy, the lab's target (coefficients read from __constant__ at one address per warp are a broadcast and cost no memory traffic)." \
        "Broadcast: your divergent kernel takes 19.0x the time of its constant kernel, where the reference's takes 10.0x the time of its constant kernel: make every thread of a warp read the same address (the constant variant); expect about 19x less time (32 lanes reading 32 different __constant__ addresses are served one address after another, where one address is one broadcast)."

    "$py" "$tool" --lab 12 --student "$fx/12-student" --reference "$fx/12-reference" > "$tmp/12.txt" 2>&1
    hints_hold "lab 12 hints from ncu's text output: registers, achieved occupancy, float4 shared loads (kernels in an anonymous namespace, a template's name, matched)" "$tmp/12.txt" \
        "Registers and occupancy: your coarse2d kernel uses 255 registers per thread and keeps 12% of the SM's warp slots busy (achieved occupancy), where the reference's uses 128 registers per thread and keeps 31% of the SM's warp slots busy (achieved occupancy): keep at most 128 registers per thread, so that two blocks share an SM; expect twice the warps of one block per SM (an 8 x 8 register tile: 64 accumulators, so more registers and fewer warps, but each shared load feeds 8 FMAs)." \
        "Bank conflicts: your vectorized kernel needs 8.00 shared-memory wavefronts per request, where the reference's needs 4.00 shared-memory wavefronts per request: pad each row of the transposed A tile by 4 floats, which keeps rows 16-byte aligned and spreads the stores over the banks; expect about 2x fewer shared-memory wavefronts per request (a float4 shared load of 32 different addresses needs 4 wavefronts; more means a bank conflict)."
    if grep -q 'coarse1d\|warptile\|fast kernel' "$tmp/12.txt"; then fail "lab 12 hints: rungs profiled by neither run are left out" "$(grep -m1 'coarse1d\|warptile\|fast kernel' "$tmp/12.txt")"
    else pass "lab 12 hints: rungs profiled by neither run are left out"; fi

    # ncu's own text output for lab 12's reference on an H200 (make profile12, kept as it came):
    # every rung's kernel is found, in its anonymous namespace ("<unnamed>::") and templates.
    "$py" "$tool" --lab 12 --student "$fx/12-h200-reference" --who "the reference's" > "$tmp/12h200.txt" 2>&1
    hints_hold "lab 12 hints from a real H200 run of the reference: each of the six rungs found (<unnamed>:: namespaces, templates)" "$tmp/12h200.txt" \
        "Registers and occupancy: the reference's tiled kernel uses 31 registers per thread and keeps 100% of the SM's warp slots busy (achieved occupancy): climb to 1D thread coarsening, 8 outputs per thread; expect each value of B loaded from shared memory to feed 8 multiply-adds (one output per thread: few registers, many warps, but two shared loads per multiply-add)." \
        "Registers and occupancy: the reference's fast kernel uses 227 registers per thread and keeps 12% of the SM's warp slots busy (achieved occupancy): use pipelining, cp.async copies straight into shared memory with three stages in flight; expect the FMA pipe busy about 80% of the time at 12.5% occupancy, as in the ladder table of the handout (256 x 128 tiles and a 3-stage pipeline trade occupancy for reuse)."
    if [ "$(grep -c "^Registers and occupancy: the reference's [a-z0-9]* kernel uses" "$tmp/12h200.txt")" = 6 ] && ! grep -q "did not run" "$tmp/12h200.txt"; then
        pass "lab 12 hints from a real H200 run: registers and occupancy for all six rungs, none said not to run"
    else fail "lab 12 hints from a real H200 run: all six rungs" "$(head -c 400 "$tmp/12h200.txt")"; fi

    "$py" "$tool" --lab 07 --student "$fx/07-reference" --who "the reference's" > "$tmp/07ref.txt" 2>&1
    hints_hold "lab 07 hints of the reference alone" "$tmp/07ref.txt" \
        "Coalescing: the reference's strided kernel reads 32.0 sectors per request: give consecutive threads consecutive addresses (a stride of 1, the coalesced layout); expect about 8x fewer sectors per request (in[8 i], a stride of 8, puts each lane's float in its own 32-byte sector: 32 sectors for 128 useful bytes)."

    # The checks above can fail: one sector count changed in a copy of the fixtures.
    cp -r "$fx/07-reference" "$tmp/07-changed"
    sed -i 's/"16,777,216","524,288"/"8,388,608","524,288"/' "$tmp/07-changed/strided.csv"
    "$py" "$tool" --lab 07 --student "$tmp/07-changed" --who "the reference's" > "$tmp/07changed.txt" 2>&1
    if ! grep -qxF "Coalescing: the reference's strided kernel reads 32.0 sectors per request: give consecutive threads consecutive addresses (a stride of 1, the coalesced layout); expect about 8x fewer sectors per request (in[8 i], a stride of 8, puts each lane's float in its own 32-byte sector: 32 sectors for 128 useful bytes)." "$tmp/07changed.txt" \
        && grep -q "strided kernel reads 16.0 sectors per request" "$tmp/07changed.txt"; then
        pass "the hints follow the counters (a changed sector count changes the sentence)"
    else fail "the hints follow the counters" "$(grep strided "$tmp/07changed.txt")"; fi
}

# profile.sh without ncu, and with counters not allowed (tests/fixtures/ncu/counters_not_allowed.sh
# as ncu). Also writes the stand-in lab programs $tmp/bin/labNN and solNN that the next steps run.
profile_hints_without_ncu() {
    local nn
    mkdir -p "$tmp/bin" "$tmp/fakencu-perm"
    for nn in $labs_with; do
        printf '#!/bin/sh\necho "a lab program"\n' > "$tmp/bin/lab$nn"
        cp "$tmp/bin/lab$nn" "$tmp/bin/sol$nn"
        chmod +x "$tmp/bin/lab$nn" "$tmp/bin/sol$nn"
    done
    cp tests/fixtures/ncu/counters_not_allowed.sh "$tmp/fakencu-perm/ncu"
    chmod +x "$tmp/fakencu-perm/ncu"
    local nonce_bad="" perm_bad="" script out1
    for nn in $labs_with; do
        script=$(lab_dir "$nn")/profile.sh
        run_capture "profile$nn without ncu" env NCU=/nonexistent/ncu PROFILE_DIR="$tmp/prof" bash "$script" "$tmp/bin/sol$nn"
        out1=$(printf '%s\n%s\n' "$out" "$err" | grep -c .)
        if [ "$rc" -ne 2 ] || [ "$out1" -ne 1 ] || ! printf '%s' "$err" | grep -q 'ncu) was not found.*set NCU=/path/to/ncu'; then
            nonce_bad="$nonce_bad $nn (exit $rc, $out1 lines)"
        fi
        run_capture "profile$nn with counters not allowed" env -u NCU PATH="$tmp/fakencu-perm:$PATH" PROFILE_DIR="$tmp/prof" \
            bash "$script" "$tmp/bin/lab$nn" "$tmp/bin/sol$nn"
        out1=$(printf '%s\n%s\n' "$out" "$err" | grep -c .)
        if [ "$rc" -ne 2 ] || [ "$out1" -ne 1 ] \
            || ! printf '%s' "$err" | grep -q "^profile$nn: .*(ERR_NVGPUCTRPERM).*run it as root (sudo make profile$nn).*Colab"; then
            perm_bad="$perm_bad $nn (exit $rc, $out1 lines: $(printf '%s %s' "$out" "$err" | head -c 160))"
        fi
    done
    if [ -z "$nonce_bad" ]; then pass "every profile.sh without ncu ($labs_with ): one sentence that says where ncu comes from, exit 2"
    else fail "every profile.sh without ncu: one sentence, exit 2" "$nonce_bad"; fi
    if [ -z "$perm_bad" ]; then pass "every profile.sh where counters are not allowed (ERR_NVGPUCTRPERM): one sentence with the fix, exit 2"
    else fail "every profile.sh where counters are not allowed: one sentence, exit 2" "${perm_bad:0:500}"; fi
}

# profile.sh end to end, through an ncu that replays the fixtures (tests/fixtures/ncu/replaying.sh:
# the fixture of the variant run, of the student (labNN) or the reference (solNN)).
profile_hints_replaying_ncu() {
    local ncu=$PWD/tests/fixtures/ncu/replaying.sh
    run_capture "profile07 through a replaying ncu" env NCU="$ncu" PROFILE_DIR="$tmp/prof" \
        bash labs/07-coalescing/profile.sh "$tmp/bin/lab07" "$tmp/bin/sol07"
    printf '%s\n' "$out" > "$tmp/run07.txt"
    if [ "$rc" -eq 0 ] && [ -f "$tmp/prof/lab07/lab07/soa.csv" ] && [ -f "$tmp/prof/lab07/sol07/soa.csv" ] \
        && grep -q "^Nsight Compute hints, lab 07 at 16777216 on .*: $tmp/bin/lab07 beside the reference $tmp/bin/sol07" "$tmp/run07.txt"; then
        hints_hold "labs/07-coalescing/profile.sh labNN solNN: ncu's CSV saved for both, the hints beside the reference's" "$tmp/run07.txt" \
            "Coalescing: your offset kernel reads 8.0 sectors per request, where the reference's reads 5.0 sectors per request: start each warp's reads on a 32-byte sector (no misaligned offset); expect about 2x fewer sectors per request (in[i + 1], a misaligned offset, starts 4 bytes past a sector, so 32 floats touch 5 sectors, not 4)." \
            "Coalescing: your aos16 kernel did not run (ncu saw no kernel of this variant: is its TODO(lab07) written yet?), where the reference's reads 16.0 sectors per request: store the points as a structure of arrays (the soa variant); expect a quarter fewer bytes moved, and SoA at least 1.10x faster than aos16, the lab's target (the 16-byte vec3a is one float4 load of 16 sectors, of which 12 bytes in 16 are used)."
    else fail "labs/07-coalescing/profile.sh through a replaying ncu" "exit $rc: $(head -c 300 "$tmp/run07.txt") $(printf '%s' "$err" | head -c 200)"; fi
    run_capture "profile12 through a replaying ncu" env NCU="$ncu" PROFILE_DIR="$tmp/prof" \
        VARIANTS="tiled coarse2d vectorized" bash labs/12-matmul-fast/profile.sh "$tmp/bin/lab12" "$tmp/bin/sol12"
    printf '%s\n' "$out" > "$tmp/run12.txt"
    if [ "$rc" -eq 0 ] && grep -qE '^coarse2d +1530\.1 +255 +12\.4 +1\.00 ' "$tmp/run12.txt"; then
        hints_hold "labs/12-matmul-fast/profile.sh lab12 sol12: the student's table, then the hints beside the reference's" "$tmp/run12.txt" \
            "Bank conflicts: your vectorized kernel needs 8.00 shared-memory wavefronts per request, where the reference's needs 4.00 shared-memory wavefronts per request: pad each row of the transposed A tile by 4 floats, which keeps rows 16-byte aligned and spreads the stores over the banks; expect about 2x fewer shared-memory wavefronts per request (a float4 shared load of 32 different addresses needs 4 wavefronts; more means a bank conflict)."
    else fail "labs/12-matmul-fast/profile.sh through a replaying ncu" "exit $rc: $(head -c 400 "$tmp/run12.txt") $(printf '%s' "$err" | head -c 200)"; fi
}

# make profileNN PROGRAM=lab builds both programs, stops without a GPU, and hands both to
# profile.sh (make -n builds and runs nothing: it prints what it would do).
profile_hints_make_wiring() {
    if [ -d solutions ]; then
        run_capture "make -n profile07 PROGRAM=lab" make -n --no-print-directory profile07 PROGRAM=lab NVCC=/bin/true \
            NCU=/nonexistent/ncu BUILD="$tmp/build"
        if printf '%s' "$out" | grep -q -- '-o lab07 ' && printf '%s' "$out" | grep -q -- '-o sol07 ' \
            && printf '%s' "$out" | grep -q 'why=$(./lab07 --quick' \
            && printf '%s' "$out" | grep -qxF 'bash "labs/07-coalescing/profile.sh" ./lab07 ./sol07'; then
            pass "make profile07 PROGRAM=lab builds lab07 and sol07 and runs labs/07-coalescing/profile.sh"
        else fail "make profile07 PROGRAM=lab" "exit $rc: $(printf '%s %s' "$out" "$err" | tail -c 300)"; fi
    fi
}

# On the GPU: every lab's hints, on the reference and on the untouched starter.
profile_hints_on_gpu() {
    local ncu nn n got
    ncu=${NCU:-$(command -v ncu 2> /dev/null || ls /usr/local/cuda/bin/ncu 2> /dev/null || true)}
    if [ "${gpu:-0}" != 1 ]; then skip "make profileNN on the GPU" "no GPU on this machine"
    elif [ -z "$ncu" ] || [ ! -x "$ncu" ]; then skip "make profileNN on the GPU" "no Nsight Compute (ncu)"
    elif [ ! -d solutions ]; then skip "make profileNN on the GPU" "this edition has no reference solutions"
    else
        for nn in $labs_with; do
            # TEST_LABS (a GPU run split in parts) profiles only its own labs.
            [ -n "${TEST_LABS:-}" ] && [[ " $TEST_LABS " != *" $nn "* ]] && continue
            n=$("$py" "$tool" --list | awk -v l="$nn" '$1 == l { print $(NF - 1) }')
            run_capture "make profile$nn" make -s --no-print-directory profile$nn BUILD="$BUILD" PROFILE_DIR="$tmp/gpu"
            if printf '%s' "$err" | grep -q ERR_NVGPUCTRPERM; then
                skip "make profile$nn on the GPU" "this GPU's counters may not be read here (ERR_NVGPUCTRPERM)"; continue
            fi
            got=$(printf '%s\n' "$out" | grep -cE "^[A-Z][A-Za-z ]+: the reference's [a-z0-9_]+ kernel (reads|writes|moves|needs|uses|keeps|takes) [0-9]")
            if [ "$rc" -eq 0 ] && [ "$got" -eq "$n" ] && ! printf '%s' "$out" | grep -qE 'did not run|gave no value'; then
                pass "make profile$nn: $n hints, every one with the reference's number"
            else fail "make profile$nn" "exit $rc, $got of $n hints with a number: $(printf '%s\n%s' "$out" "$err" | grep -m2 -E 'did not run|gave no value|ERROR|rror')"; fi
            run_capture "make profile$nn PROGRAM=lab" make -s --no-print-directory profile$nn PROGRAM=lab BUILD="$BUILD" PROFILE_DIR="$tmp/gpu"
            got=$(printf '%s\n' "$out" | grep -cE "^[A-Z][A-Za-z ]+: your [a-z0-9_]+ kernel .*(, where the reference's (reads|writes|moves|needs|uses|keeps|takes) [0-9]).*\)\.$")
            # The starter's unwritten variants say so, and the script exits 1 (make: exit 2, with
            # "Error 1"; a 2 of the script's own would mean that it could not profile at all).
            if { [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q '\] Error 1$'; }; } \
                && [ "$got" -eq "$n" ]; then
                pass "make profile$nn PROGRAM=lab on the untouched starter: $n hints beside the reference's numbers"
            else fail "make profile$nn PROGRAM=lab on the untouched starter" "exit $rc, $got of $n hints: $(printf '%s\n%s' "$out" "$err" | tail -n 3 | head -c 300)"; fi
        done
        # ncu's own output stays with the logs, to read when a hint is wrong.
        rm -rf "${LOG_DIR:-$BUILD/test-logs}/profile" && cp -r "$tmp/gpu" "${LOG_DIR:-$BUILD/test-logs}/profile"
    fi
}

profile_hints_suite() {
    local py tool=tools/profile_hints.py fx=tests/fixtures/profile tmp f labs_with=""
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "profile hints" "no python3"; return; }
    [ -f "$tool" ] || { skip "profile hints" "no tools/profile_hints.py in this edition"; return; }
    [ -d "$fx" ] || { skip "profile hints" "no tests/fixtures/profile in this edition"; return; }
    tmp=$(mktemp -d)
    for f in labs/*/profile.sh; do labs_with="$labs_with $(basename "$(dirname "$f")" | cut -c1-2)"; done

    expect "profile_hints.py --help" 0 '^usage: profile_hints.py' "$py" "$tool" --help
    expect "profile_hints.py refuses a lab without hints" 2 'lab 05 has no counter hints' "$py" "$tool" --lab 05 --plan
    profile_hints_have_hints
    profile_hints_fixtures_07_08
    profile_hints_fixtures_04_12
    profile_hints_every_lab "$tmp"
    profile_hints_without_ncu
    profile_hints_replaying_ncu
    profile_hints_make_wiring
    profile_hints_on_gpu
    rm -rf "$tmp"
}
profile_hints_suite
