#!/usr/bin/env bash
# make profile04: Nsight Compute counters of lab 04, said as hints:
# the constant kernel's DRAM bandwidth against the measured copy, and how
# much longer the divergent kernel (32 __constant__ addresses per warp) takes than the broadcast one.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/04-constant-memory/profile.sh ./sol04            the reference alone (make profile04)
#   bash labs/04-constant-memory/profile.sh ./lab04 ./sol04    yours beside it (make profile04 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab04/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 04 "${1:-./sol04}" "${2:-}"
