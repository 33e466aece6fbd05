# Lab 13's own GPU checks, sourced by tests/run_tests.sh (pass/fail/expect/run_capture, $sol,
# $lab available).
# More shapes than the default run: a single row and column of primes, rows that are a multiple
# of 4 wide but not of 128 (the float4 paths' edges), a tall and a wide strip (row splitting).
# On a GPU with clusters and 132 SMs (H100, H200), vecmat_shared runs 3000x1000 and 1000x1003
# as clusters of 8 (float4 and scalar loads) and 2500x2052 as clusters of 4; 5000x36 and 65537x8
# split their rows more than 8 ways and meet in the workspace.
expect "sol13 passes extra shapes" 0 'Verdict: PASS' \
    ./sol13 --reps 1 --size 1x4099,4099x1,3x4,4x3,129x132,5000x36,36x5000,65537x8,8x65537,3000x1000,1000x1003,2500x2052
expect "sol13 passes with another seed" 0 'Verdict: PASS' ./sol13 --reps 1 --seed 7 --size 513x511,4x4096
# Twice in one process at the same size: vecmat_shared's arrival counters must be back at zero
# (20000x64 splits its rows 64 ways through the workspace; 2000x4000 is a cluster of 2 on an H200).
expect "sol13 vecmat_shared is repeatable" 0 'Verdict: PASS' \
    ./sol13 --reps 3 --variant vecmat_shared --size 64x8192,64x8192,20000x64,20000x64,2000x4000,2000x4000
# Every variant's output is checked: a cuBLAS call in the wrong orientation would fail here.
expect "sol13 yardsticks pass their own check" 0 'cublas_vecmat.*REF' ./sol13 --reps 1 --size 300x700
# make profile13 without Nsight Compute: a clear message and exit 2.
expect "profile13 without ncu says so" 2 'ncu\) was not found' \
    env NCU=/nonexistent/ncu bash labs/13-matvec/profile.sh ./sol13
