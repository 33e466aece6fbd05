#!/usr/bin/env bash
# make bench-starts LAB=13: what one graded run's start costs on this machine, and whether that
# cost grows with the processes starting at once on the same GPU or on the whole machine.
#
# The grader starts a process for every test of every submission (and one for each
# verification), on each GPU's lanes at once (grading/DESIGN.md, "Throughput"); its breakdown
# counts the time from a run's start to its GPU open. This runs the lab's trusted program
# (build/grading/solNN, the reference linked with the grading harness) on the rubric's first
# correctness case, K processes started together, and reports each batch's median and slowest
# process, from start to exit:
#   - no CUDA (--help): the process and its libraries alone;
#   - one at a time, without and with the grader's kernel trace (CUPTI, CUDA_INJECTION64_PATH);
#   - 8 and 16 at once on one GPU, and 16 at once spread over two GPUs (where there are two):
#     if 8 + 8 on two GPUs take as long as 16 on one, what the starts share is the machine (its
#     CPUs, its memory, the driver), and more GPUs will not grade faster;
#   - 16 at once on one GPU without the trace, and with the trace and one hardware work queue a
#     context (CUDA_DEVICE_MAX_CONNECTIONS=1): what part of a GPU open the queue of opens holds
#     (a lab program sets one queue itself, lab 06's aside, so for the others the two rows agree);
#   - the whole test (every fixed size of it, with guard zones, as the grader runs it), alone,
#     16 at once on one GPU and 16 over two: whether the machine bounds the rest of a run too;
#   - under bubblewrap, 16 at once on one GPU and 32 over two (16 a GPU), with the whole /dev and
#     with the GPU's device nodes alone (bubblewrap's basic nodes, the driver's, that GPU's:
#     grading/DESIGN.md, "Isolation"), where bubblewrap runs here and the driver names the GPUs
#     (/proc/driver/nvidia/gpus; NVIDIA_DRIVER_GPUS and DEVICE_DIR stand in for it and /dev, and
#     STARTS_WRITABLE is a folder the programs may write there);
#   - the GPU open phase by phase ($BUILD/bench/gpu_open_phases: driver start, context, memory,
#     first kernel, context destroyed), alone and 16 at once, with the trace, with one queue a
#     context, and over two GPUs: which part of an open the processes queue for.
# STARTS_REPEAT (3) batches of each kind; the medians are over every process of them. Writes
# bench/results/<device>.starts.md (BENCH_DIR overrides the folder). Exit: 0 done, 1 a process
# failed, 2 nothing to run, 77 no GPU.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
BENCH_DIR=${BENCH_DIR:-bench/results}
lab=${LAB:-13}
repeat=${STARTS_REPEAT:-3}
program=$BUILD/grading/sol$lab
trace=$BUILD/grading/libkernel_trace.so
open_phases=$BUILD/bench/gpu_open_phases
rubric=grading/rubrics/$lab.rubric

[ -f "$rubric" ] || { echo "bench-starts: no rubric $rubric (LAB=NN, a lab of this course)" >&2; exit 2; }
[ -x "$program" ] && [ -f "$trace" ] || { echo "bench-starts: no $program or $trace (make grading-info LAB=$lab)" >&2; exit 2; }
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    IFS=',' read -r -a gpus <<< "$CUDA_VISIBLE_DEVICES"
else
    mapfile -t gpus < <(nvidia-smi -L 2> /dev/null | sed -n 's/^GPU \([0-9]*\):.*/\1/p')
fi
if [ "${#gpus[@]}" -lt 1 ] || [ -z "${gpus[0]}" ]; then
    echo "bench-starts: no GPU here (nvidia-smi -L lists none): nothing to time"
    exit 77
fi

# The rubric's first correctness test: its first variant, its first size and all its sizes.
read -r variant size all_sizes < <(awk '/^\[test /{ t = 1; v = ""; s = ""; a = ""; k = "correctness" }
    t && $1 == "kind" { k = $3 } t && $1 == "variants" && v == "" { v = $3 }
    t && $1 == "sizes" && s == "" { s = $3; for (i = 3; i <= NF; i++) a = a (i > 3 ? "," : "") $i }
    t && v != "" && s != "" && k == "correctness" { print v, s, a; exit }' "$rubric")
[ -n "${variant:-}" ] || { echo "bench-starts: $rubric has no correctness test to run" >&2; exit 2; }
case_args=(--variant "$variant" --size "$size" --reps 1)
# The whole test as the grader runs it (its fixed sizes, guard zones around every buffer).
whole_args=(--variant "$variant" --size "$all_sizes" --reps 1 --guard-buffers)
trace_env=("LD_PRELOAD=$trace" "CUDA_INJECTION64_PATH=$trace")

failed=0
# batch K GPUS ARGS...: K processes started together, process i on GPU i mod |GPUS| (GPUS
# comma-separated); prints for each one, a line each: its seconds from start to exit, its exit
# status, and the last line it printed.
batch() {
    local k=$1 i dir
    local -a on
    IFS=',' read -r -a on <<< "$2"
    shift 2
    dir=$(mktemp -d)
    for ((i = 0; i < k; i++)); do
        (
            s=$EPOCHREALTIME
            env CUDA_VISIBLE_DEVICES="${on[i % ${#on[@]}]}" "$@" > "$dir/$i.out" 2> /dev/null
            rc=$?
            printf '%s %s %s\n' "$(awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')" "$rc" \
                "$(tail -n 1 "$dir/$i.out")" > "$dir/$i"
        ) &
    done
    wait
    cat "$dir"/*[0-9]
    rm -rf "$dir"
}

# batches EXPECT NAME K GPUS ARGS...: STARTS_REPEAT batches' lines, into $lines. A process that
# failed is an error, and so is one whose last line does not begin with the word EXPECT ("": any).
lines=""
batches() {
    local want=$1 name=$2 k=$3 where=$4 r
    shift 4
    lines=$(for ((r = 0; r < repeat; r++)); do batch "$k" "$where" "$@"; done)
    if awk -v want="$want" '$2 != 0 || (want != "" && $3 != want) { bad = 1 } END { exit !bad }' <<< "$lines"; then
        echo "bench-starts: $name: a process failed ($*)" >&2
        failed=1
    fi
}

rows=()
# measure NAME K GPUS ARGS...: STARTS_REPEAT batches; one table row.
measure() {
    local name=$1 k=$2 where=$3
    shift 3
    batches "" "$name" "$k" "$where" "$@"
    rows+=("$(sort -n <<< "$lines" | awk -v name="$name" -v k="$k" -v on="$where" '{ t[NR] = $1 }
        END { printf "| %s | %d | %s | %.2f | %.2f |", name, k, on, t[int((NR + 1) / 2)], t[NR] }')")
    echo "${rows[-1]}"
}

one=${gpus[0]}
measure "no CUDA (--help)" 1 "$one" "$program" --help
measure "no CUDA (--help)" 16 "$one" "$program" --help
measure "one run" 1 "$one" "$program" "${case_args[@]}"
measure "one run, kernel trace" 1 "$one" "${trace_env[@]}" "$program" "${case_args[@]}"
measure "runs at once, kernel trace" 8 "$one" "${trace_env[@]}" "$program" "${case_args[@]}"
measure "runs at once, kernel trace" 16 "$one" "${trace_env[@]}" "$program" "${case_args[@]}"
# What of a GPU open the queue holds: without the trace (CUPTI's share), and with one hardware
# work queue a context instead of CUDA's 8 (CUDA_DEVICE_MAX_CONNECTIONS, fewer driver objects).
measure "runs at once" 16 "$one" "$program" "${case_args[@]}"
measure "runs at once, kernel trace, 1 connection" 16 "$one" CUDA_DEVICE_MAX_CONNECTIONS=1 "${trace_env[@]}" "$program" "${case_args[@]}"
if [ "${#gpus[@]}" -ge 2 ]; then
    measure "runs at once, kernel trace" 16 "$one,${gpus[1]}" "${trace_env[@]}" "$program" "${case_args[@]}"
fi
# Whole runs: whether the machine, not the GPU, bounds the rest of a run too (its allocations and
# guard zones go through the driver as well).
measure "whole test, kernel trace" 1 "$one" "${trace_env[@]}" "$program" "${whole_args[@]}"
measure "whole tests at once, kernel trace" 16 "$one" "${trace_env[@]}" "$program" "${whole_args[@]}"
if [ "${#gpus[@]}" -ge 2 ]; then
    measure "whole tests at once, kernel trace" 16 "$one,${gpus[1]}" "${trace_env[@]}" "$program" "${whole_args[@]}"
fi

# Under bubblewrap: the whole /dev, or the GPU's device nodes alone, as the grader shows them.
driver_gpus=${NVIDIA_DRIVER_GPUS:-/proc/driver/nvidia/gpus}
device_dir=${DEVICE_DIR:-/dev}
sandboxed=$(mktemp)
trap 'rm -f "$sandboxed"' EXIT
cat > "$sandboxed" <<'SANDBOXED'
#!/usr/bin/env bash
# sandboxed whole|own DRIVER_GPUS DEV PROGRAM ARGS...: PROGRAM under bubblewrap on the GPU that
# CUDA_VISIBLE_DEVICES names (an nvidia-smi index): /dev whole, or bubblewrap's basic nodes, every
# node of the driver's and that GPU's own alone, the GPU named by its UUID.
mode=$1 driver=$2 dev=$3
shift 3
box=(bwrap --die-with-parent --unshare-all --ro-bind / / --proc /proc)
[ -n "${STARTS_WRITABLE:-}" ] && box+=(--bind "$STARTS_WRITABLE" "$STARTS_WRITABLE")  # a test's stand-ins log there
[ "$mode" = whole ] && exec "${box[@]}" --dev-bind /dev /dev -- "$@"
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i "$CUDA_VISIBLE_DEVICES")
minor=$(awk -F: -v u="$uuid" 'FNR == 1 { f = 0 } { gsub(/[ \t]/, "", $2) } $1 == "GPU UUID" { f = ($2 == u) }
    f && $1 == "Device Minor" { print $2; exit }' "$driver"/*/information)
[ -n "$minor" ] || { echo "sandboxed: the driver names no GPU $uuid" >&2; exit 5; }
box+=(--dev /dev)
for node in "$dev"/nvidia*; do
    name=${node##*/}
    [[ $name =~ ^nvidia[0-9]+$ ]] && [ "$name" != "nvidia$minor" ] && continue
    box+=(--dev-bind "$node" "$node")
done
CUDA_VISIBLE_DEVICES=$uuid exec "${box[@]}" -- "$@"
SANDBOXED
chmod +x "$sandboxed"
if ! command -v bwrap > /dev/null || ! bwrap --unshare-all --ro-bind / / true 2> /dev/null; then
    echo "bench-starts: bubblewrap does not run here: no rows under it"
elif ! ls "$driver_gpus"/*/information > /dev/null 2>&1; then
    echo "bench-starts: $driver_gpus names no GPU: no rows under bubblewrap"
else
    for mode in whole own; do
        what="/dev whole"
        [ "$mode" = own ] && what="its GPU's nodes alone"
        measure "bubblewrap, $what" 16 "$one" "$sandboxed" "$mode" "$driver_gpus" "$device_dir" "$program" "${case_args[@]}"
        if [ "${#gpus[@]}" -ge 2 ]; then
            measure "bubblewrap, $what" 32 "$one,${gpus[1]}" "$sandboxed" "$mode" "$driver_gpus" "$device_dir" "$program" "${case_args[@]}"
        fi
    done
fi

# The GPU open, phase by phase (bench/gpu_open_phases.cu): each phase's median over the processes
# of STARTS_REPEAT batches of K started together.
phase_rows=()
# phases NAME K GPUS [ENV...]: one row of the phases table (each process's last line is
# "init S context S memory S launch S release S").
phases() {
    local name=$1 k=$2 where=$3 col
    shift 3
    batches init "$name" "$k" "$where" "$@" "$open_phases"
    local row="| $name | $k | $where |"
    for col in 4 6 8 10 12; do
        row+=" $(awk -v c="$col" '{ print $c }' <<< "$lines" | sort -n | awk '{ t[NR] = $1 } END { printf "%.3f", t[int((NR + 1) / 2)] }') |"
    done
    phase_rows+=("$row")
    echo "${phase_rows[-1]}"
}
if [ -x "$open_phases" ]; then
    phases "alone" 1 "$one"
    phases "alone, kernel trace" 1 "$one" "${trace_env[@]}"
    phases "at once" 16 "$one"
    phases "at once, kernel trace" 16 "$one" "${trace_env[@]}"
    phases "at once, 1 connection" 16 "$one" CUDA_DEVICE_MAX_CONNECTIONS=1
    if [ "${#gpus[@]}" -ge 2 ]; then
        phases "at once" 16 "$one,${gpus[1]}"
    fi
fi

device=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$one" 2> /dev/null | head -n 1)
device=${device:-unknown GPU}
slug=$(echo "$device" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')  # as bench/run.sh names its files
mkdir -p "$BENCH_DIR"
{
    echo "# Process starts on $device"
    echo
    echo "\`LAB=$lab make bench-starts\` (bench/process_starts.sh) on $(date -u +%Y-%m-%d), $(nproc) CPUs, ${#gpus[@]} GPU(s) visible:"
    echo "\`$program ${case_args[*]}\` (a *whole test*: \`${whole_args[*]}\`),"
    echo "K processes started together, $repeat batches each; seconds from a process's start to its exit."
    echo
    echo "| run | K at once | GPUs | median (s) | slowest (s) |"
    echo "|---|---:|---|---:|---:|"
    printf '%s\n' "${rows[@]}"
    if [ "${#phase_rows[@]}" -gt 0 ]; then
        echo
        echo "Where a GPU open goes (\`$open_phases\`, timed inside the process), each phase's"
        echo "median over the processes, in seconds. A phase that grows with K is done for one process at a time."
        echo
        echo "| run | K at once | GPUs | cuInit | context | 64 MiB | first kernel | release |"
        echo "|---|---:|---|---:|---:|---:|---:|---:|"
        printf '%s\n' "${phase_rows[@]}"
    fi
} > "$BENCH_DIR/$slug.starts.md"
echo "bench-starts: wrote $BENCH_DIR/$slug.starts.md"
exit "$failed"
