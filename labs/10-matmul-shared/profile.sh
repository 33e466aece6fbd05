#!/usr/bin/env bash
# make profile10: Nsight Compute's shared-memory bank-conflict counters for the variants of
# lab 10 whose tiles differ only in their layout, at 2048 x 2048 x 2048.
#   bash labs/10-matmul-shared/profile.sh ./sol10
set -eu
prog=${1:-./sol10}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in tiled32 conflict padded tiled32_double conflict_double padded_double; do
    echo "== $v"
    "$NCU" --clock-control none --kernel-name regex:matmul --launch-count 1 \
        --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,gpu__time_duration.sum \
        "$prog" --variant "$v" --size 2048 --reps 1
done
