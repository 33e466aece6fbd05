# Shared by the labs' Nsight Compute recipes (labs/NN-topic/profile.sh, run by make profileNN):
# source it, then call
#   find_ncu NAME             sets NCU (from $NCU, the PATH or /usr/local/cuda/bin), or says
#                             where ncu comes from and exits 2
#   ncu_failed NAME RC LOG    explains a run of ncu that gave no counters (its log's errors, and
#                             what to do when reading counters needs permission)
#   ncu_allowed NAME LOG      when LOG says that reading the GPU's counters is not allowed
#                             (ERR_NVGPUCTRPERM: not root, or Colab), says so in one sentence, with
#                             the fix, and exits 2
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

profile_lab() {
    local nn=$1 prog=$2 ref=${3:-} name=profile$1
    local tool py size variants metrics kernel launch_skip out p v log dir rc status=0 who device
    tool=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tools/profile_hints.py
    find_ncu "$name"
    [ -x "$prog" ] || { echo "$name: $prog not found (make ${prog#./} builds it)" >&2; exit 2; }
    py=$(command -v python3 || true)
    if [ -z "$py" ] || [ ! -f "$tool" ]; then
        echo "$name: the hints need python3 and tools/profile_hints.py; install python3 (sudo apt-get install python3)." >&2
        exit 2
    fi
    eval "$("$py" "$tool" --lab "$nn" --plan)" || exit 2
    size=${SIZE:-$size} variants=${VARIANTS:-$variants}
    out=${PROFILE_DIR:-build/profile}/lab$nn
    [ -n "$ref" ] && { [ "$(basename "$ref")" = "$(basename "$prog")" ] || [ ! -x "$ref" ]; } && ref=""
    for p in "$prog" $ref; do
        dir=$out/$(basename "$p")
        rm -rf "$dir" && mkdir -p "$dir" || exit 2
        for v in $variants; do
            log=$dir/$v.csv
            "$NCU" --csv --page raw --print-units base --clock-control none --metrics "$metrics" \
                ${kernel:+-k "regex:$kernel"} --launch-skip "$launch_skip" --launch-count 1 \
                "$p" --variant "$v" --size "$size" --reps 1 > "$log" 2>&1
            rc=$?
            ncu_allowed "$name" "$log"
            if ! profile_ran "$log"; then
                ncu_failed "$v" "$rc" "$log"
                status=1
            fi
        done
    done
    device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n1)
    echo "Nsight Compute hints, lab $nn at $size on ${device:-the GPU}: $prog${ref:+ beside the reference $ref}" \
         "(counters in $out/)"
    who=your
    case $(basename "$prog") in sol*) [ -z "$ref" ] && who="the reference's";; esac
    "$py" "$tool" --lab "$nn" --student "$out/$(basename "$prog")" \
        ${ref:+--reference "$out/$(basename "$ref")"} --who "$who" || status=1
    return $status
}
