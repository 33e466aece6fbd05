#!/usr/bin/env bash
# make profile02: Nsight Compute counters of lab 02, said as hints:
# sectors per request of pitched and packed rows at an odd width, and the
# pitched kernel's DRAM bandwidth against the measured copy.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/02-pitched-2d/profile.sh ./sol02            the reference alone (make profile02)
#   bash labs/02-pitched-2d/profile.sh ./lab02 ./sol02    yours beside it (make profile02 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab02/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 02 "${1:-./sol02}" "${2:-}"
