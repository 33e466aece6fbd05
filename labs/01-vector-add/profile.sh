#!/usr/bin/env bash
# make profile01: Nsight Compute counters of lab 01, said as hints:
# the DRAM bandwidth of simple and fast, against the measured copy.
# Each hint is one sentence with your number beside the reference's (the table of hints, its
# variants, size and metrics: tools/profile_hints.py).
#
#   bash labs/01-vector-add/profile.sh ./sol01            the reference alone (make profile01)
#   bash labs/01-vector-add/profile.sh ./lab01 ./sol01    yours beside it (make profile01 PROGRAM=lab)
#   SIZE=... VARIANTS="..." NCU=/path/to/ncu    another size, some variants, another ncu
#
# Each variant's first launch at --size is profiled (ncu flushes the caches before it), at the
# GPU's normal clocks; the CSV (ncu --csv --page raw) is kept in build/profile/lab01/. Without
# ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says
# what to do, and the exit status is 2.
set -u
. "$(dirname "$0")/../../common/ncu.sh"
profile_lab 01 "${1:-./sol01}" "${2:-}"
