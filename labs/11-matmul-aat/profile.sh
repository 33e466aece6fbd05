#!/usr/bin/env bash
# make profile11: Nsight Compute counters of lab 11, said as hints:
# shared-memory wavefronts per request (bank conflicts) of the padded and
# unpadded A^T tiles, and registers and achieved occupancy of padded, at 2048.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/11-matmul-aat/profile.sh ./sol11            the reference alone (make profile11)
#   bash labs/11-matmul-aat/profile.sh ./lab11 ./sol11    yours beside it (make profile11 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab11/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 11 "${1:-./sol11}" "${2:-}"
