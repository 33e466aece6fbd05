#!/usr/bin/env bash
# make profile03: Nsight Compute counters of lab 03, said as hints:
# the DRAM bandwidth of scale and stencil against the measured copy.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/03-pitched-3d/profile.sh ./sol03            the reference alone (make profile03)
#   bash labs/03-pitched-3d/profile.sh ./lab03 ./sol03    yours beside it (make profile03 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab03/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 03 "${1:-./sol03}" "${2:-}"
