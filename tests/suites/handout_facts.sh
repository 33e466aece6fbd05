# Claims of the handouts about generated code, checked against the compiler (sourced by
# tests/run_tests.sh; also runs on its own: `bash tests/suites/handout_facts.sh`). No GPU needed.
# Lab 04: the reference solution's constant kernel reads each coefficient with a load of its own,
# `ld.const.f32` at an address held in a register (c_coefficients[k] moves with the loop, so no
# FFMA can take it as a constant-bank operand at a fixed offset), and the handout's answer says
# so. Where cuobjdump is at hand, the sm_75 SASS too: an LDC indexed by a register. And the checks
# fail where they should: on a PTX whose coefficient is read at a fixed offset, and on the
# handout's former answer ("no separate load instruction").
# Lab 07: the aligned vec3a is read with one 16-byte load but written with an 8-byte and a 4-byte
# store (the padding is no member), as the handout says; the check fails on a PTX whose store is
# one 16-byte store.
# Every lab sized (tests/tools/lab_sizes.py): each lab's handout opens with three goals and a time
# estimate and puts its questions before the reference's measured results, and each TODO(labNN)
# task of a starter says about how many lines it takes; the check also finds what is missing or
# out of order in tests/fixtures/lab_sizes/.
# The bank figure of labs 08 and 11 (tests/tools/check_bank_figure.py): every word of both tiles
# shows its bank, and the padded tile's are shifted by one each row.
# The topics each handout owns (tests/tools/handout_topics.py): warp divergence in lab 01,
# __device__ variables and their symbols in 04, unified addressing and peer copies in 06, the
# carveout in 10, each a section of the idea with a question, every question of every handout
# answered, the corrections of the sources' cc 1.x char/short conflicts (08) and shared-memory
# accumulator (13) still written, and every cuda*/cublas* name of the handouts declared in the
# CUDA headers; the check finds what is missing in tests/fixtures/handout_topics/. Lab 04's
# snippet compiles, with c_limit in .const and g_above in .global as the handout says; a kernel's
# assignment to a __constant__ variable is an error, a store through a pointer a warning and no store.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

HANDOUT_FACTS_04=handouts/04-constant-memory.md
HANDOUT_FACTS_04_SOL=solutions/04-constant-memory/constant_memory.cu
# What the answer to question 2 must say, whitespace folded (the sentence may be reflowed), and
# what it must not.
HANDOUT_FACTS_04_SAYS=('one load instruction per coefficient'
    '`ld.const.f32` from an address held in a register')
HANDOUT_FACTS_04_NOT=('no separate load instruction' 'an operand of the multiply')

# handout_facts_entry FILE NAME: the lines of the PTX entry NAME of FILE, up to the next entry.
handout_facts_entry() {
    awk -v name="$2" '/^\.(visible )?\.entry /{on = index($0, name) > 0} on' "$1"
}

# handout_facts_ptx FILE: nothing when the constant kernel of lab 04's PTX FILE reads its
# coefficients with ld.const at register-held addresses only (two at least: the first coefficient
# and the loop's); else what is wrong, in one line.
handout_facts_ptx() {
    local body reg fixed
    body=$(handout_facts_entry "$1" poly_constant_kernel)
    [ -n "$body" ] || { echo "no entry poly_constant_kernel in the PTX"; return; }
    reg=$(grep -cE 'ld\.const\.f32[[:space:]]+%f[0-9]+,[[:space:]]*\[%r[d]?[0-9]+([+]?-?[0-9]+)?\]' <<< "$body")
    fixed=$(grep -E 'ld\.const' <<< "$body" | grep -vE '\[%r[d]?[0-9]+([+]?-?[0-9]+)?\]' | head -n 1)
    if [ -n "$fixed" ]; then echo "a coefficient read at a fixed address: $(echo $fixed)"
    elif [ "$reg" -lt 2 ]; then echo "$reg ld.const.f32 at a register-held address (2 or more expected)"
    fi
}

# handout_facts_text FILE: nothing when lab 04's handout FILE says what the PTX shows; else what
# it lacks or still says, in one line.
handout_facts_text() {
    local text phrase wrong=""
    text=$(tr -s ' \n' '  ' < "$1")
    for phrase in "${HANDOUT_FACTS_04_SAYS[@]}"; do
        grep -qF -- "$phrase" <<< "$text" || wrong="$wrong lacks \"$phrase\";"
    done
    for phrase in "${HANDOUT_FACTS_04_NOT[@]}"; do
        grep -qF -- "$phrase" <<< "$text" && wrong="$wrong still says \"$phrase\";"
    done
    echo "${wrong# }"
}

# handout_facts_aos16 PTX: nothing when lab 07's aos16 kernel in PTX loads a point with one
# 16-byte load and stores it with an 8-byte and a 4-byte store; else what differs, in one line.
handout_facts_aos16() {
    local body
    body=$(handout_facts_entry "$1" transform_aos16_kernel | grep -oE '(ld|st)\.global(\.nc)?(\.v[24])?\.f32' | tr '\n' ' ')
    [ "$body" = "ld.global.nc.v4.f32 st.global.v2.f32 st.global.f32 " ] \
        || echo "transform_aos16_kernel's global accesses: ${body:-none} (expected ld.global.nc.v4.f32 st.global.v2.f32 st.global.f32)"
}

handout_facts_07() {
    local nvcc=$1 tmp=$2 why
    run_capture "lab 07 PTX" "$nvcc" -std=c++17 -O3 -arch=sm_75 -Icommon -Ilabs/07-coalescing \
        -ptx solutions/07-coalescing/coalescing.cu -o "$tmp/sol07.ptx"
    why=$([ "$rc" -eq 0 ] && handout_facts_aos16 "$tmp/sol07.ptx" || echo "nvcc: exit $rc")
    if [ -z "$why" ]; then pass "handout facts: lab 07's aos16 loads a point with one 16-byte load, stores it with an 8- and a 4-byte store"
    else fail "handout facts: lab 07's aos16 loads a point with one 16-byte load, stores it with an 8- and a 4-byte store" "$why"; fi
    sed -E '/\.entry .*transform_aos16_kernel/,$ s/st\.global\.v2\.f32([[:space:]]+\[%rd[0-9]+\]),[[:space:]]*\{(%f[0-9]+), (%f[0-9]+)\}/st.global.v4.f32\1, {\2, \3, \2, \3}/' \
        "$tmp/sol07.ptx" > "$tmp/v4.ptx"
    if [ -n "$(handout_facts_aos16 "$tmp/v4.ptx")" ]; then pass "handout facts: the PTX check finds a 16-byte store of aos16"
    else fail "handout facts: the PTX check finds a 16-byte store of aos16" "it passed"; fi
    if tr -s ' \n' '  ' < handouts/07-coalescing.md | grep -qF '(`st.global.v2.f32` and `st.global.f32` in the PTX)'; then
        pass "handout facts: lab 07's handout names the two stores of aos16"
    else fail "handout facts: lab 07's handout names the two stores of aos16" "handouts/07-coalescing.md lacks '(\`st.global.v2.f32\` and \`st.global.f32\` in the PTX)'"; fi
}

handout_facts_sizes() {
    if [ ! -d handouts ] || [ ! -f tests/tools/lab_sizes.py ]; then
        skip "handout facts: every lab sized" "this edition has no handouts or no check"; return
    fi
    expect "handout facts: every lab handout has three goals, a time, its questions before the results; every starter TODO its size" 0 \
        'handouts with three goals and a time, questions before results' python3 tests/tools/lab_sizes.py .
    expect "handout facts: a handout without three goals or a time, with results before questions or without its answers.txt's questions, a TODO without its size, are found" 1 \
        '01-sample.md: 2 goals.*01-sample.md: no time estimate.*01-sample.md: its .Answers to hand in. asks \[\], .*answers.txt has \[q1 q2 q3\].*02-sample.md: .# Measured results. comes before.*02-sample.md: no .# Goals.*sample.cu:4: TODO\(lab01\) launch lacks' \
        bash -c 'python3 tests/tools/lab_sizes.py tests/fixtures/lab_sizes | tr "\n" " "; exit "${PIPESTATUS[0]}"'
}

handout_facts_suite() {
    local nvcc tmp why cuobjdump sass
    if [ ! -f "$HANDOUT_FACTS_04_SOL" ] || [ ! -f "$HANDOUT_FACTS_04" ]; then
        skip "handout facts: lab 04's constant loads" "this edition has no reference solution"; return
    fi
    nvcc=$(make -s --no-print-directory arch 2> /dev/null | sed -n 's/^nvcc: \(\/[^ ]*\).*/\1/p')
    [ -n "$nvcc" ] || { skip "handout facts: lab 04's constant loads" "no nvcc (make arch)"; return; }
    tmp=$(mktemp -d)
    [ -f solutions/07-coalescing/coalescing.cu ] && handout_facts_07 "$nvcc" "$tmp"

    run_capture "lab 04 PTX" "$nvcc" -std=c++17 -O3 -arch=sm_75 -Icommon -Ilabs/04-constant-memory \
        -ptx "$HANDOUT_FACTS_04_SOL" -o "$tmp/sol04.ptx"
    if [ "$rc" -ne 0 ]; then
        fail "handout facts: lab 04's solution compiles to PTX" "exit $rc: $(printf '%s' "$err" | grep -m 2 error)"
    else
        why=$(handout_facts_ptx "$tmp/sol04.ptx")
        if [ -z "$why" ]; then pass "handout facts: lab 04's constant kernel reads each coefficient with ld.const at a register-held address"
        else fail "handout facts: lab 04's constant kernel reads each coefficient with ld.const at a register-held address" "$why"; fi
        # The check itself: a coefficient read at a fixed offset of the symbol is found.
        sed -E '/\.entry .*poly_constant_kernel/,$ s/ld\.const\.f32([[:space:]]+%f[0-9]+,[[:space:]]*)\[%rd[0-9]+\+4\]/ld.const.f32\1[c_coefficients+4]/' \
            "$tmp/sol04.ptx" > "$tmp/fixed.ptx"
        if cmp -s "$tmp/sol04.ptx" "$tmp/fixed.ptx"; then
            fail "handout facts: the PTX check finds a coefficient read at a fixed offset" "no [%rdN+4] load to rewrite in the PTX"
        elif [ -n "$(handout_facts_ptx "$tmp/fixed.ptx")" ]; then
            pass "handout facts: the PTX check finds a coefficient read at a fixed offset"
        else fail "handout facts: the PTX check finds a coefficient read at a fixed offset" "it passed"; fi
    fi

    # The SASS, where cuobjdump is at hand (not every CUDA installation has it).
    cuobjdump=$(dirname "$nvcc")/cuobjdump
    [ -x "$cuobjdump" ] || cuobjdump=$(command -v cuobjdump || true)
    if [ -z "$cuobjdump" ]; then
        skip "handout facts: lab 04's sm_75 SASS loads each coefficient with LDC" "no cuobjdump"
    else
        run_capture "lab 04 cubin" "$nvcc" -std=c++17 -O3 -arch=sm_75 -Icommon -Ilabs/04-constant-memory \
            -cubin "$HANDOUT_FACTS_04_SOL" -o "$tmp/sol04.cubin"
        sass=$([ "$rc" -eq 0 ] && "$cuobjdump" -sass "$tmp/sol04.cubin" 2> /dev/null \
            | awk '/Function :/{on = /poly_constant_kernel/} on')
        if grep -qE 'LDC[^;]*c\[0x3\]\[R[0-9]+' <<< "$sass" && ! grep -qE 'FFMA[^;]*c\[0x3\]' <<< "$sass"; then
            pass "handout facts: lab 04's sm_75 SASS loads each coefficient with LDC, no FFMA reads bank 3"
        else fail "handout facts: lab 04's sm_75 SASS loads each coefficient with LDC" \
            "$(grep -m 2 -E 'LDC|FFMA[^;]*c\[' <<< "$sass" | tr -s ' ' || echo "no SASS of poly_constant_kernel")"; fi
    fi

    why=$(handout_facts_text "$HANDOUT_FACTS_04")
    if [ -z "$why" ]; then pass "handout facts: lab 04's handout says each coefficient is an ld.const at a register-held address"
    else fail "handout facts: lab 04's handout says each coefficient is an ld.const at a register-held address" "$HANDOUT_FACTS_04: $why"; fi
    # The check itself: the former answer, an operand with no load of its own, is refused.
    printf '%s\n' "2. Global loads of a uniform address are served by L1 as one transaction, so the gap is" \
        "small; the constant version can use the constant cache operand directly in the multiply-add" \
        "(no separate load instruction)." > "$tmp/former.md"
    if [ -n "$(handout_facts_text "$tmp/former.md")" ]; then pass "handout facts: the handout check refuses the former answer"
    else fail "handout facts: the handout check refuses the former answer" "it passed"; fi
    rm -rf "$tmp"
}
# handout_facts_banks: the bank figure shows every word's bank, right in both tiles (the padded
# tile's diagonal shift), and the check refuses a figure whose padded tile is drawn unpadded.
handout_facts_banks() {
    local tmp
    expect "handout facts: the bank figure shows each word's bank, in both tiles" 0 '' \
        python3 tests/tools/check_bank_figure.py handouts/figures/banks.svg
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-banks.XXXXXX")
    sed 's/\(class="bank" font-size="[0-9.]*" fill="white">\)1</\10</' \
        handouts/figures/banks.svg > "$tmp/wrong.svg"
    expect "handout facts: the bank check refuses a padded tile drawn with column 0 all in bank 0" 1 'tile\[32\]\[33\] row 1' \
        python3 tests/tools/check_bank_figure.py "$tmp/wrong.svg"
    rm -rf "$tmp"
}
# handout_facts_nvcc: the nvcc of `make arch`, or nothing.
handout_facts_nvcc() {
    make -s --no-print-directory arch 2> /dev/null | sed -n 's/^nvcc: \(\/[^ ]*\).*/\1/p'
}

handout_facts_topics() {
    local nvcc include
    if [ ! -d handouts ] || [ ! -f tests/tools/handout_topics.py ]; then
        skip "handout facts: each topic in the handout that owns it" "this edition has no handouts or no check"; return
    fi
    nvcc=$(handout_facts_nvcc)
    include=${nvcc:+$(dirname "$(dirname "$nvcc")")/include}
    if [ -n "$include" ] && [ -f "$include/cuda_runtime_api.h" ]; then
        expect "handout facts: each topic in its handout with a question, every question answered, every CUDA name declared in the headers" 0 \
            'CUDA names declared in the headers' python3 tests/tools/handout_topics.py . "$include"
        expect "handout facts: a missing topic, an unanswered question and a made-up CUDA name are found" 1 \
            "01-sample.md: 2 questions but answers numbered \\[1\\].*01-sample.md: the section on warp divergence does not name warp-uniform.*04-sample.md: no section .## .__device__. variables.*no handout 06-.*no handout 10-.*01-sample.md:21: cudaMemcpyPeerToPeer is declared in none" \
            bash -c 'python3 tests/tools/handout_topics.py tests/fixtures/handout_topics "$1" | tr "\n" " "; exit "${PIPESTATUS[0]}"' _ "$include"
    else
        expect "handout facts: each topic in its handout with a question, every question answered" 0 \
            '4 topics in their handouts' python3 tests/tools/handout_topics.py .
        skip "handout facts: every CUDA name of the handouts declared in the headers" "no nvcc (make arch) or no cuda_runtime_api.h beside it"
    fi
}

# handout_facts_symbols_ptx PTX: nothing when the PTX of lab 04's snippet declares c_limit in
# .const and g_above in .global; else what differs, in one line.
handout_facts_symbols_ptx() {
    local c g
    c=$(grep -cE '^\.const [^;]*[[:space:]]c_limit;' "$1")
    g=$(grep -cE '^\.global [^;]*[[:space:]]g_above;' "$1")
    [ "$c" -eq 1 ] && [ "$g" -eq 1 ] || echo "c_limit declared in .const $c times, g_above in .global $g times (once each expected)"
}

handout_facts_symbols() {
    local nvcc tmp why name="handout facts: lab 04's snippet puts c_limit in .const and g_above in .global"
    [ -f handouts/04-constant-memory.md ] || { skip "$name" "this edition has no handouts"; return; }
    nvcc=$(handout_facts_nvcc)
    [ -n "$nvcc" ] || { skip "$name" "no nvcc (make arch)"; return; }
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-symbols.XXXXXX")
    # The ```cuda block of the handout that holds count_above.
    awk '/^```cuda$/ {on = 1; buf = ""; next}
         /^```$/ && on {on = 0; if (buf ~ /count_above/) printf "%s", buf; next}
         on {buf = buf $0 "\n"}' handouts/04-constant-memory.md > "$tmp/count.cu"
    if [ ! -s "$tmp/count.cu" ]; then
        fail "$name" "handouts/04-constant-memory.md has no \`\`\`cuda block with count_above"; rm -rf "$tmp"; return
    fi
    run_capture "lab 04 snippet PTX" "$nvcc" -arch=sm_75 -ptx "$tmp/count.cu" -o "$tmp/count.ptx"
    why=$([ "$rc" -eq 0 ] && handout_facts_symbols_ptx "$tmp/count.ptx" || echo "nvcc: exit $rc: $(printf '%s' "$err" | grep -m 1 error)")
    if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
    if tr -s ' \n' '  ' < handouts/04-constant-memory.md | grep -qF '`.const .align 4 .f32 c_limit` and `.global .align 4 .u32 g_above`' \
        && grep -qF '.const .align 4 .f32 c_limit;' "$tmp/count.ptx" && grep -qF '.global .align 4 .u32 g_above;' "$tmp/count.ptx"; then
        pass "handout facts: lab 04's answer quotes the two PTX declarations as nvcc writes them"
    else fail "handout facts: lab 04's answer quotes the two PTX declarations as nvcc writes them" \
        "$(grep -E 'c_limit;|g_above;' "$tmp/count.ptx" | tr '\n' ' ')against the handout's answer 5"; fi
    # The check itself: g_above declared in .const is refused.
    sed -E 's/^\.global ([^;]*g_above;)/.const \1/' "$tmp/count.ptx" > "$tmp/wrong.ptx"
    if [ -n "$(handout_facts_symbols_ptx "$tmp/wrong.ptx")" ]; then pass "handout facts: the symbol check refuses g_above in .const"
    else fail "handout facts: the symbol check refuses g_above in .const" "it passed"; fi
    # "depending on how a store into it is written, nvcc rejects it or warns and leaves it out":
    # an assignment by name is an error; a store through a pointer compiles with a warning and
    # is not in the PTX.
    { cat "$tmp/count.cu"; printf '%s\n' '__global__ void store_limit(float v) { c_limit = v; }'; } > "$tmp/assign.cu"
    run_capture "an assignment to a __constant__ variable" "$nvcc" -arch=sm_75 -ptx "$tmp/assign.cu" -o "$tmp/assign.ptx"
    if [ "$rc" -ne 0 ]; then pass "handout facts: nvcc rejects a kernel's assignment to a __constant__ variable"
    else fail "handout facts: nvcc rejects a kernel's assignment to a __constant__ variable" "it compiled"; fi
    { cat "$tmp/count.cu"; printf '%s\n' '__global__ void store_limit(float v) { float* p = &c_limit; *p = v; }'; } > "$tmp/store.cu"
    run_capture "a store through a pointer into a __constant__ variable" "$nvcc" -arch=sm_75 -ptx "$tmp/store.cu" -o "$tmp/store.ptx"
    if [ "$rc" -eq 0 ] && grep -qi 'constant' <<< "$err" \
        && ! handout_facts_entry "$tmp/store.ptx" store_limit | grep -qE '^[[:space:]]*st\.'; then
        pass "handout facts: a kernel's store through a pointer into a __constant__ variable is warned about and left out"
    else fail "handout facts: a kernel's store through a pointer into a __constant__ variable is warned about and left out" \
        "exit $rc, stderr: $(printf '%s' "$err" | head -c 200)"; fi
    rm -rf "$tmp"
}

handout_facts_sizes
handout_facts_banks
handout_facts_topics
handout_facts_symbols
handout_facts_suite
