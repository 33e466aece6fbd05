# Lab 12's own GPU checks, sourced by tests/run_tests.sh (pass/fail/expect/run_capture, $sol,
# $lab available).
# Split k: a few tiles and a deep k give every rung from coarse2d up several blocks per tile
# that add into C; with --reps 3 the timed calls repeat on the same C, so a launcher that does
# not zero C before adding would be caught. 256x512x4096 also takes fast's 256 x 128 pipeline
# with a split, 128x128x3008 the 128 x 128 one with a chunk that is not a power of two, and
# 200x300x2500 the guarded kernels with a split.
expect "sol12 passes with k split" 0 'Verdict: PASS' \
    ./sol12 --reps 3 --size 256x512x4096,128x128x3008,200x300x2500,16x16x8192
# make profile12 without Nsight Compute: a clear message and exit 2.
expect "profile12 without ncu says so" 2 'ncu\) was not found' \
    env NCU=/nonexistent/ncu bash labs/12-matmul-fast/profile.sh ./sol12
