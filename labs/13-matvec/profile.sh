#!/usr/bin/env bash
# make profile13: Nsight Compute counters of lab 13's kernels, one table.
#
#   bash labs/13-matvec/profile.sh ./sol13      (or ./lab13 once your kernels pass)
#   bash labs/13-matvec/profile.sh ./lab13 ./sol13   your table, and hints beside the reference's
#                                               numbers (make profile13 PROGRAM=lab)
#   SIZE=16384x16384 make profile13             another size (default 4096x4096)
#   NCU=/path/to/ncu make profile13             an ncu that is not on the PATH
#
# For each variant, the first timed launch of its kernel is profiled with --clock-control none
# (the GPU's normal clocks, as in the lab's own timing). The columns are today's names for the
# profiler events the assignment asks about (nvprof is gone since Volta):
#   ld conflicts   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum   (shared_ld_bank_conflict)
#   st conflicts   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum   (shared_st_bank_conflict)
#   smem eff %     smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct (shared_efficiency)
#   ld wf/req      l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
#                  / smsp__inst_executed_op_shared_ld.sum        (shared_load_transactions_per_request)
# and, for coalescing, global load sectors per request (4 is ideal for 32 floats; 32 means
# every thread of the warp touched its own 32-byte sector) and the DRAM read rate.
# Then the hints of tools/profile_hints.py: sectors per request of matvec against vecmat, and
# the bandwidth of the fast ones against the measured copy, in the lesson's words (your numbers
# beside the reference's when it is given). ncu's output is kept in build/profile/lab13/.
# Without ncu, or where reading counters is not allowed (ERR_NVGPUCTRPERM, Colab), one sentence
# says what to do (exit 2).
set -u
. "$(dirname "$0")/../../common/ncu.sh"
table_recipe 13 4096x4096 "$@"

metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum
metrics+=,smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct

header() {
    echo "Nsight Compute counters, lab 13 at $size on ${device:-the GPU} ($("$NCU" --version | tail -n1))"
    echo
    printf '%-14s %10s %9s %12s %13s %13s %11s %10s\n' variant 'time (us)' 'DRAM GB/s' 'gld sect/req' \
        'ld conflicts' 'st conflicts' 'smem eff %' 'ld wf/req'
    printf '%-14s %10s %9s %12s %13s %13s %11s %10s\n' -------------- ---------- --------- ------------ \
        ------------- ------------- ----------- ----------
}
# Metric lines are "name  unit  value" (the unit may be missing); values may have commas.
table_row() {
    awk -v v="$1" '
        $1 ~ /^(gpu|dram|l1tex|smsp)__/ { val = $NF; gsub(",", "", val); m[$1] = val; n++ }
        END {
            if (n == 0) exit 1
            t = m["gpu__time_duration.sum"] / 1000
            gbs = (t > 0) ? m["dram__bytes_read.sum"] / (t * 1000) : 0
            req = m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
            sreq = m["smsp__inst_executed_op_shared_ld.sum"]
            # (parentheses: a bare ">" among the printf arguments would be a redirection)
            gld = (req > 0) ? sprintf("%.1f", m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / req) : "-"
            eff = (sreq > 0) ? sprintf("%.1f", m["smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct"]) : "-"
            wf = (sreq > 0) ? sprintf("%.2f", m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] / sreq) : "-"
            printf "%-14s %10.1f %9.0f %12s %13s %13s %11s %10s\n", v, t, gbs, gld,
                m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"],
                m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"], eff, wf
        }' "$2"
}
status=0
# Launch 0 is the correctness check; launch 1 is the first timed one (after an L2 flush).
ncu_table 13 "$out" "$prog" "$ref" "$size" "$variants" '^(matvec|vecmat)_' "$metrics" header table_row || status=1
echo
echo "ld wf/req: shared-memory wavefronts (passes through the 32 banks) per warp-wide load; 1.00 is"
echo "conflict-free, k means a k-way conflict. A warp reading one word (broadcast) or 32 consecutive"
echo "words needs 1. smem eff (nvprof's shared_efficiency): requested bytes per wavefront, in % of"
echo "what a wavefront can carry. gld sect/req: 32-byte sectors per warp-wide global load (4 for 32"
echo "consecutive floats, 16 for float4s; 32 when each thread reads a different row)."
# The hints: one sentence per lesson, yours beside the reference's (tools/profile_hints.py).
echo
ncu_hints 13 "$out" "$prog" "$ref" || status=1
exit $status
