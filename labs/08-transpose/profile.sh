#!/usr/bin/env bash
# make profile08: Nsight Compute counters of lab 08, said as hints:
# the naive transpose's store sectors per request, shared-memory wavefronts
# per request of the tiled and padded ones (bank conflicts), the fast one's bandwidth.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/08-transpose/profile.sh ./sol08            the reference alone (make profile08)
#   bash labs/08-transpose/profile.sh ./lab08 ./sol08    yours beside it (make profile08 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab08/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 08 "${1:-./sol08}" "${2:-}"
