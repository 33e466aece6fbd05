# Shared by the labs' Nsight Compute recipes (labs/NN-topic/profile.sh, run by make profileNN):
# source it, then call
#   find_ncu NAME             sets NCU (from $NCU, the PATH or /usr/local/cuda/bin), or says
#                             where ncu comes from and exits 2
#   ncu_failed NAME RC LOG    explains a run of ncu that gave no counters (its log's errors, and
#                             what to do when reading counters needs permission)
find_ncu() {
    NCU=${NCU:-$(command -v ncu 2>/dev/null || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)}
    if [ -z "$NCU" ] || [ ! -x "$NCU" ]; then
        echo "$1: Nsight Compute (ncu) was not found. It comes with the CUDA Toolkit" \
             "(/usr/local/cuda/bin/ncu) or as the nsight-compute package; put it on the PATH or" \
             "set NCU=/path/to/ncu." >&2
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
