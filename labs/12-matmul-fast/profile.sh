#!/usr/bin/env bash
# make profile12: the Nsight Compute counters that explain each step of lab 12's ladder, one
# row per rung.
#
#   bash labs/12-matmul-fast/profile.sh ./sol12     (or ./lab12 once your kernels pass)
#   bash labs/12-matmul-fast/profile.sh ./lab12 ./sol12   your table, and hints beside the
#                                                   reference's numbers (make profile12 PROGRAM=lab)
#   SIZE=2048 make profile12                        another size (default 4096)
#   NCU=/path/to/ncu make profile12                 an ncu that is not on the PATH
#
# For each rung, the first timed launch of its product kernel (not the packing transpose of
# `fast`) is profiled at the GPU's normal clocks (--clock-control none). The columns:
#   regs          registers per thread                          launch__registers_per_thread
#   occupancy %   achieved occupancy: resident warps, in % of the SM's maximum
#                                                               sm__warps_active.avg.pct_of_peak_sustained_active
#   ld wf/req     shared-memory wavefronts per warp-wide load: 1 is conflict-free (a float4
#                 load of 32 different addresses needs 4)       l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
#                                                               / smsp__inst_executed_op_shared_ld.sum
#   st conflicts  shared-memory store bank conflicts            l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
#   gld eff %     global load efficiency: bytes used per sector fetched, of the loads into
#                 registers ("-" for fast: cp.async copies are not such loads)
#                                                               smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct
#   FMA pipe %    how busy the FMA pipe was                     sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
#   FMA/ld        FMA instructions per shared-memory load instruction
# Then the hints of tools/profile_hints.py: registers and occupancy of each rung, and the shared
# loads' wavefronts, said in the lesson's words (your numbers beside the reference's when it is
# given). ncu's output is kept in build/profile/lab12/. Without ncu, or where reading counters
# is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence says what to do (exit 2).
set -u
. "$(dirname "$0")/../../common/ncu.sh"
table_recipe 12 4096 "$@"

metrics=gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,smsp__sass_inst_executed_op_global_ld.sum
metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum

header() {
    echo "Nsight Compute counters, lab 12 at $size on ${device:-the GPU} ($("$NCU" --version | tail -n1))"
    echo
    printf '%-11s %10s %5s %12s %10s %13s %10s %11s %7s\n' variant 'time (us)' regs 'occupancy %' 'ld wf/req' \
        'st conflicts' 'gld eff %' 'FMA pipe %' 'FMA/ld'
    printf '%-11s %10s %5s %12s %10s %13s %10s %11s %7s\n' ----------- ---------- ----- ------------ ---------- \
        ------------- ---------- ----------- -------
}
# Metric lines are "name  unit  value" (the unit may be missing); values may have commas.
table_row() {
    awk -v v="$1" '
        $1 ~ /^(gpu|launch|sm|smsp|l1tex)__/ { val = $NF; gsub(",", "", val); m[$1] = val; n++ }
        END {
            if (n == 0) exit 1
            sreq = m["smsp__inst_executed_op_shared_ld.sum"]
            wf = (sreq > 0) ? sprintf("%.2f", m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] / sreq) : "-"
            # FFMA instructions: thread-level count / 32 lanes.
            gld = (m["smsp__sass_inst_executed_op_global_ld.sum"] > 0) ? sprintf("%.1f", m["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"]) : "-"
            fpl = (sreq > 0) ? sprintf("%.1f", m["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] / 32 / sreq) : "-"
            printf "%-11s %10.1f %5d %12.1f %10s %13s %10s %11.1f %7s\n", v,
                m["gpu__time_duration.sum"] / 1000, m["launch__registers_per_thread"],
                m["sm__warps_active.avg.pct_of_peak_sustained_active"], wf,
                m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"],
                gld,
                m["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"], fpl
        }' "$2"
}
status=0
# Launch 0 is the correctness check; launch 1 is the first timed one.
ncu_table 12 "$out" "$prog" "$ref" "$size" "$variants" '^sgemm_' "$metrics" header table_row || status=1
# The hints: one sentence per lesson, yours beside the reference's (tools/profile_hints.py).
echo
ncu_hints 12 "$out" "$prog" "$ref" || status=1
exit $status
