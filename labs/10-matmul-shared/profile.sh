#!/usr/bin/env bash
# make profile10: Nsight Compute counters of lab 10, said as hints:
# shared-memory wavefronts per request (bank conflicts) of the tile layouts,
# float and double, and registers and achieved occupancy of tiled16 and tiled32, at 2048.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/10-matmul-shared/profile.sh ./sol10            the reference alone (make profile10)
#   bash labs/10-matmul-shared/profile.sh ./lab10 ./sol10    yours beside it (make profile10 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab10/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 10 "${1:-./sol10}" "${2:-}"
