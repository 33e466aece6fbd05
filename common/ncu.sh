# Shared by the labs' Nsight Compute recipes (labs/NN-topic/profile.sh, run by make profileNN):
# source it, then call
#   find_ncu NAME             sets NCU (from $NCU, the PATH or /usr/local/cuda/bin), or says
#                             where ncu comes from and exits 2
#   ncu_failed NAME RC LOG    explains a run of ncu that gave no counters (its log's errors, and
#                             what to do when reading counters needs permission)
#   ncu_allowed NAME LOG      when LOG says that reading the GPU's counters is not allowed
#                             (ERR_NVGPUCTRPERM: not root, or Colab), says so in one sentence, with
#                             the fix, and exits 2
#   profiled_variants NN PROGRAM
#                             the variants a lab's recipe profiles (unless VARIANTS says otherwise):
#                             its hints' (tools/profile_hints.py --plan --program PROGRAM): for
#                             labs 12 and 13 the rungs PROGRAM declares (--describe, yardsticks
#                             left out), which is also what it reads without python3
#   ncu_reference PROGRAM REFERENCE
#                             prints REFERENCE, or nothing where it is PROGRAM itself or not built
#   ncu_variants NAME DIR PROGRAM SIZE "VARIANTS" EXT NCU_ARG...
#                             profiles each variant (ncu NCU_ARG... PROGRAM --variant V --size
#                             SIZE --reps 1) into DIR/V.EXT, DIR made afresh; NCU_RC[V] is ncu's
#                             exit status; exits 2 where counters are not allowed
#   ncu_table NN OUT PROGRAM REFERENCE SIZE "VARIANTS" KERNEL METRICS HEADER ROW
#                             the counters' table of labs 12 and 13: each variant's first timed
#                             launch (launch 1) of a kernel matching KERNEL, ncu's text output in
#                             OUT/PROGRAM/V.log (and OUT/REFERENCE/ for the hints); then HEADER
#                             once and ROW V LOG (prints the row; fails without counters) per
#                             variant of PROGRAM; returns 1 where a variant has no row
#   ncu_hints NN OUT PROGRAM [REFERENCE]
#                             the hints of tools/profile_hints.py from the counters in
#                             OUT/PROGRAM/ (beside OUT/REFERENCE/'s)
#   table_recipe NN SIZE [PROGRAM [REFERENCE]]
#                             what the table recipes of labs 12 and 13 start with: finds ncu, sets
#                             prog (PROGRAM, default ./solNN; exits 2 where it is not built), ref
#                             (ncu_reference), size ($SIZE, default SIZE), variants ($VARIANTS,
#                             default profiled_variants), out ($PROFILE_DIR/labNN) and device
#   profile_lab NN PROGRAM [REFERENCE]
#                             the whole recipe of a lab whose hints are in tools/profile_hints.py:
#                             runs ncu on each variant (CSV saved in $PROFILE_DIR, default
#                             build/profile/labNN/PROGRAM/) and prints one hint per lesson, beside
#                             the reference's numbers when REFERENCE (./solNN) is given
find_ncu() {
    NCU=${NCU:-$(command -v ncu 2>/dev/null || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)}
    if [ -z "$NCU" ] || [ ! -x "$NCU" ]; then
        echo "$1: Nsight Compute (ncu) was not found, so there are no hints; it comes with the" \
             "CUDA Toolkit (/usr/local/cuda/bin/ncu) or as the nsight-compute package: put it on" \
             "the PATH or set NCU=/path/to/ncu (the lab itself runs and times without it)." >&2
        exit 2
    fi
}

ncu_allowed() {
    if grep -q ERR_NVGPUCTRPERM "$2" 2> /dev/null; then
        echo "$1: this GPU does not let you read its performance counters (ERR_NVGPUCTRPERM), so" \
             "there are no hints; run it as root (sudo make $1), or ask an administrator to allow" \
             "them (https://developer.nvidia.com/ERR_NVGPUCTRPERM); on Colab they cannot be" \
             "allowed, and the lab itself runs and times without them." >&2
        exit 2
    fi
}

ncu_failed() {
    printf '%-14s no counters (ncu exit %d):\n' "$1" "$2"
    grep -E '==ERROR==|==WARNING==|FAIL|error' "$3" | head -n 5 | sed 's/^/    /'
    if grep -q ERR_NVGPUCTRPERM "$3"; then
        echo "    reading GPU counters needs permission: run as root, or see" \
             "https://developer.nvidia.com/ERR_NVGPUCTRPERM"
    fi
}

# profile_ran LOG: true when ncu's log holds counters, or says that no kernel ran (an unfinished
# variant: the hints say so).
profile_ran() {
    tr '\r' '\n' < "$1" | grep -q -E '^"ID"|No kernels were profiled'
}

ncu_reference() {
    [ -n "$2" ] && [ "$(basename "$2")" != "$(basename "$1")" ] && [ -x "$2" ] && echo "$2"
    return 0
}

declare -A NCU_RC
ncu_variants() {
    local name=$1 dir=$2 prog=$3 size=$4 variants=$5 ext=$6 v
    shift 6
    rm -rf "$dir" && mkdir -p "$dir" || exit 2
    for v in $variants; do
        "$NCU" "$@" "$prog" --variant "$v" --size "$size" --reps 1 > "$dir/$v.$ext" 2>&1
        NCU_RC[$v]=$?
        ncu_allowed "$name" "$dir/$v.$ext"
    done
}

ncu_table() {
    local nn=$1 out=$2 prog=$3 ref=$4 size=$5 variants=$6 kernel=$7 metrics=$8 header=$9 row=${10}
    local p v line status=0 shown=0
    for p in $ref "$prog"; do
        ncu_variants "profile$nn" "$out/$(basename "$p")" "$p" "$size" "$variants" log \
            --clock-control none --metrics "$metrics" --print-units base \
            -k "regex:$kernel" --launch-skip 1 --launch-count 1
    done
    for v in $variants; do
        if line=$("$row" "$v" "$out/$(basename "$prog")/$v.log") && [ -n "$line" ]; then
            [ "$shown" = 1 ] || "$header"
            shown=1
            echo "$line"
        else
            ncu_failed "$v" "${NCU_RC[$v]}" "$out/$(basename "$prog")/$v.log"
            status=1
        fi
    done
    return $status
}

NCU_HINTS_TOOL=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tools/profile_hints.py
profiled_variants() {
    if command -v python3 > /dev/null && [ -f "$NCU_HINTS_TOOL" ]; then
        python3 "$NCU_HINTS_TOOL" --lab "$1" --plan --program "$2" | sed -n "s/^variants='\{0,1\}\([^']*\)'\{0,1\}$/\1/p"
    else
        # print_description writes one variant a line: {"name": ..., "description": ..., "yardstick": ...}
        "$2" --describe | sed -n 's/^ *{"name": "\([^"]*\)", "description": .*, "yardstick": false, "compare_with": .*/\1/p' \
            | tr '\n' ' '
    fi
}

# hints_tool_ready NAME: false, with one sentence, where python3 or the hints' table is missing.
hints_tool_ready() {
    command -v python3 > /dev/null && [ -f "$NCU_HINTS_TOOL" ] && return 0
    echo "$1: the hints need python3 and tools/profile_hints.py; install python3 (sudo apt-get install python3)." >&2
    return 1
}

ncu_hints() {
    local nn=$1 out=$2 prog=$3 ref=${4:-} who=your
    hints_tool_ready "profile$nn" || return 2
    case $(basename "$prog") in sol*) [ -z "$ref" ] && who="the reference's";; esac
    python3 "$NCU_HINTS_TOOL" --lab "$nn" --student "$out/$(basename "$prog")" \
        ${ref:+--reference "$out/$(basename "$ref")"} --who "$who"
}

table_recipe() {
    local nn=$1
    prog=${3:-./sol$nn}
    size=${SIZE:-$2}
    find_ncu "profile$nn"
    [ -x "$prog" ] || { echo "profile$nn: $prog not found (make ${prog#./} builds it)" >&2; exit 2; }
    ref=$(ncu_reference "$prog" "${4:-}")
    # Every rung of the lab (./solNN --describe, yardsticks left out), or VARIANTS.
    variants=${VARIANTS:-$(profiled_variants "$nn" "$prog")}
    out=${PROFILE_DIR:-build/profile}/lab$nn
    device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n1)
}

profile_lab() {
    local nn=$1 prog=$2 ref name=profile$1
    local size variants metrics kernel launch_skip out p v status=0 device
    find_ncu "$name"
    [ -x "$prog" ] || { echo "$name: $prog not found (make ${prog#./} builds it)" >&2; exit 2; }
    hints_tool_ready "$name" || exit 2
    eval "$(python3 "$NCU_HINTS_TOOL" --lab "$nn" --plan)" || exit 2
    size=${SIZE:-$size} variants=${VARIANTS:-$variants}
    out=${PROFILE_DIR:-build/profile}/lab$nn
    ref=$(ncu_reference "$prog" "${3:-}")
    for p in "$prog" $ref; do
        ncu_variants "$name" "$out/$(basename "$p")" "$p" "$size" "$variants" csv \
            --csv --page raw --print-units base --clock-control none --metrics "$metrics" \
            ${kernel:+-k "regex:$kernel"} --launch-skip "$launch_skip" --launch-count 1
        for v in $variants; do
            if ! profile_ran "$out/$(basename "$p")/$v.csv"; then
                ncu_failed "$v" "${NCU_RC[$v]}" "$out/$(basename "$p")/$v.csv"
                status=1
            fi
        done
    done
    device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n1)
    echo "Nsight Compute hints, lab $nn at $size on ${device:-the GPU}: $prog${ref:+ beside the reference $ref}" \
         "(counters in $out/)"
    ncu_hints "$nn" "$out" "$prog" "$ref" || status=1
    return $status
}
