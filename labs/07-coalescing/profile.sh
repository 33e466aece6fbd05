#!/usr/bin/env bash
# make profile07: Nsight Compute counters of lab 07, said as hints:
# global-load sectors per request of every layout (AoS, 16-byte AoS, SoA,
# strided, offset) and the SoA kernel's DRAM bandwidth against the measured copy.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/07-coalescing/profile.sh ./sol07            the reference alone (make profile07)
#   bash labs/07-coalescing/profile.sh ./lab07 ./sol07    yours beside it (make profile07 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab07/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 07 "${1:-./sol07}" "${2:-}"
