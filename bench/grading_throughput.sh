#!/usr/bin/env bash
# make bench-grading: how many submissions an hour the grader gets through, on one GPU and on
# every GPU of this machine (grading/grade --gpus all), for labs 01 and 13 (LABS="01 13").
#
# Each lab's class is N copies of its reference solution, so that every test runs in full
# (correctness, sanitizers, the interleaved performance rounds). N is GRADING_BENCH_N, by default
# GRADING_BENCH_PER_GPU (2) x the number of GPUs. The --gpus all run grades the N; the one-GPU run
# (no --gpus) grades as many as each GPU grades in the other, ceil(N / GPUs) (GRADING_BENCH_ONE_N
# overrides it), so that both take about as long; throughput is per submission either way. Both
# use one seed and, like the grading suite, one trial per correctness test (GRADING_BENCH_TRIALS=1;
# "rubric" keeps the rubric's own). The defaults are sized to stay under about 8 minutes on two
# H200s (the results say how long it took).
#
# Timed: the whole run (wall), and its grading phase (from the last build to the end; the builds
# run first, in parallel on the CPUs, and do not depend on the GPUs). Writes
# bench/results/<device>.grading.md and .json (BENCH_DIR overrides the folder): device, GPU count,
# each run's submissions, times and submissions per hour, and the speed-up of --gpus all. On a
# machine of one GPU, --gpus all is that GPU: only the one-GPU run is timed (all_gpus is null).
# Exit: 0 done, 1 a run failed or left a copy of the reference ungraded, 77 no GPU. The runs' folders stay in $BUILD/bench-grading (GRADING_BENCH_DIR).
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
export BUILD=${BUILD:-build}
BENCH_DIR=${BENCH_DIR:-bench/results}
labs=${LABS:-01 13}
work=${GRADING_BENCH_DIR:-$BUILD/bench-grading}
seed=${GRADING_BENCH_SEED:-13579}
trials=${GRADING_BENCH_TRIALS:-1}
run_limit=${GRADING_BENCH_TIMEOUT:-3600}

if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    gpus=$(printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c '[^[:space:]]')
else
    gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
fi
if [ "${gpus:-0}" -lt 1 ]; then
    echo "bench-grading: no GPU here (nvidia-smi -L lists none${CUDA_VISIBLE_DEVICES+, CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES}): nothing to time"
    exit 77
fi
[ -d solutions ] || { echo "bench-grading: this edition has no reference solutions to grade" >&2; exit 2; }
n=${GRADING_BENCH_N:-$(( ${GRADING_BENCH_PER_GPU:-2} * gpus ))}
one_n=${GRADING_BENCH_ONE_N:-$(( (n + gpus - 1) / gpus ))}
[ "$n" -ge 1 ] && [ "$one_n" -ge 1 ] || { echo "bench-grading: GRADING_BENCH_N and GRADING_BENCH_ONE_N must be at least 1" >&2; exit 2; }

# stamp: each line of stdin with the time it arrived.
stamp() { while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
per_hour() { awk -v k="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? k * 3600 / s : 0) }'; }
# speedup K1 S1 K2 S2: (K2 / S2) / (K1 / S1), submissions per second of the second over the first.
speedup() { awk -v k1="$1" -v s1="$2" -v k2="$3" -v s2="$4" 'BEGIN { printf "%.2f", (k1 > 0 && s2 > 0) ? (k2 / s2) / (k1 / s1) : 0 }'; }
run_json() {  # SUBMISSIONS WALL GRADING PER_HOUR_WALL PER_HOUR_GRADING [GPUS]
    printf '{"gpus": %s, "submissions": %s, "wall_s": %s, "grading_s": %s, "per_hour_wall": %s, "per_hour_grading": %s}' \
        "${6:-1}" "$1" "$2" "$3" "$4" "$5"
}

# grade LAB CLASS_DIR OUT [--gpus all]: one timed run; sets wall, grading, graded, gpus_used.
grade() {
    local nn=$1 class=$2 out=$3; shift 3
    local t0 t1 rc built
    rm -rf "$out"
    mkdir -p "$out.log"
    t0=$EPOCHREALTIME
    timeout --kill-after=30 "$run_limit" grading/grade --lab "$nn" --rubric "$work/$nn/rubric" --seed "$seed" "$@" --out "$out" "$class" \
        2>&1 > "$out.log/stdout.txt" | stamp > "$out.log/stderr.txt"
    rc=${PIPESTATUS[0]}
    t1=$EPOCHREALTIME
    wall=$(seconds "$t0" "$t1")
    built=$(grep -E '^[0-9.]+ \[[0-9]+/[0-9]+\] built ' "$out.log/stderr.txt" | tail -n1 | cut -d' ' -f1)
    grading=$(seconds "${built:-$t0}" "$t1")
    graded=0 gpus_used=1
    if [ "$rc" -ne 0 ]; then
        echo "  grading/grade $* failed (exit $rc): see $out.log/stderr.txt"
        tail -n 5 "$out.log/stderr.txt" | sed 's/^[0-9.]* /  | /'
        return 1
    fi
    # Every copy of the reference graded: no note (not rejected, no grader error).
    graded=$(awk -F, 'NR > 1 && $NF == "\"\"" { n++ } END { print n + 0 }' "$out/gradebook.csv")
    gpus_used=$(sed -n 's/^GPUs: \([0-9]*\) (--gpus all).*/\1/p' "$out/summary.txt")
    gpus_used=${gpus_used:-1}
    if [ "$graded" -ne "$(ls "$class" | wc -l)" ]; then
        echo "  only $graded of $(ls "$class" | wc -l) copies of the reference were graded without a note: see $out/summary.txt"
        return 1
    fi
    return 0
}

make -s --no-print-directory grader BUILD="$BUILD" >&2 || exit 1
status=0
device="" rows_md="" labs_json="" speedups="" started=$EPOCHREALTIME
for nn in $labs; do
    labdir=$(ls -d labs/"$nn"-* 2> /dev/null | head -n1)
    rubric=grading/rubrics/$nn.rubric
    [ -n "$labdir" ] && [ -f "$rubric" ] || { echo "lab $nn: no lab or no rubric, skipped"; status=1; continue; }
    topic=$(basename "$(ls "$labdir"/*.cu | grep -v '/driver\.cu$' | head -n1)")
    echo "Grading throughput of lab $nn: $n copies of the reference on $gpus GPU(s), $one_n on one"
    # The trusted build once, untimed (each run would find it up to date anyway).
    make -s --no-print-directory grading-info LAB="$nn" BUILD="$BUILD" > /dev/null || { echo "  make grading-info LAB=$nn failed"; status=1; continue; }
    rm -rf "${work:?}/$nn"
    mkdir -p "$work/$nn/class-all" "$work/$nn/class-one"
    if [ "$trials" = rubric ]; then cp "$rubric" "$work/$nn/rubric"
    else sed -E "s/^trials = [0-9]+/trials = $trials/" "$rubric" > "$work/$nn/rubric"; fi
    for ((i = 1; i <= n; i++)); do
        name=$(printf 'copy%03d' "$i")
        mkdir -p "$work/$nn/class-all/$name"
        cp "solutions/$(basename "$labdir")/$topic" "$work/$nn/class-all/$name/"
        [ "$i" -le "$one_n" ] && cp -r "$work/$nn/class-all/$name" "$work/$nn/class-one/"
    done

    grade "$nn" "$work/$nn/class-one" "$work/$nn/one" || { status=1; continue; }
    one_wall=$wall one_grading=$grading one_graded=$graded
    echo "  one GPU:    $one_graded submissions in $one_wall s (grading $one_grading s): $(per_hour "$one_graded" "$one_grading")/hour"
    one_h=$(per_hour "$one_graded" "$one_grading") one_hw=$(per_hour "$one_graded" "$one_wall")
    one_row="| $nn | 1 | $one_graded | $one_wall | $one_grading | $one_hw | $one_h |"
    if [ "$gpus" = 1 ]; then
        echo "  --gpus all: one GPU here, the run above: no speed-up to measure"
        rows_md="$rows_md$one_row
"
        labs_json="$labs_json${labs_json:+, }{\"lab\": \"$nn\", \"one_gpu\": $(run_json "$one_graded" "$one_wall" "$one_grading" "$one_hw" "$one_h"), \"all_gpus\": null, \"speedup_grading\": null, \"speedup_wall\": null}"
        continue
    fi
    grade "$nn" "$work/$nn/class-all" "$work/$nn/all" --gpus all || { status=1; continue; }
    all_wall=$wall all_grading=$grading all_graded=$graded all_gpus=$gpus_used
    echo "  --gpus all: $all_graded submissions in $all_wall s (grading $all_grading s) on $all_gpus GPUs: $(per_hour "$all_graded" "$all_grading")/hour"
    [ -n "$device" ] || device=$(sed -n 's/.*"gpus":\[{[^}]*"name":"\([^"]*\)".*/\1/p' "$work/$nn/all/audit.jsonl" | tail -n1)

    all_h=$(per_hour "$all_graded" "$all_grading") all_hw=$(per_hour "$all_graded" "$all_wall")
    speedup=$(speedup "$one_graded" "$one_grading" "$all_graded" "$all_grading")
    speedup_wall=$(speedup "$one_graded" "$one_wall" "$all_graded" "$all_wall")
    echo "  speed-up of --gpus all: ${speedup}x (grading phase), ${speedup_wall}x (whole run)"
    speedups="$speedups${speedups:+; }lab $nn: **${speedup}x** (grading), ${speedup_wall}x (whole run)"
    rows_md="$rows_md$one_row
| $nn | $all_gpus (--gpus all) | $all_graded | $all_wall | $all_grading | $all_hw | $all_h |
"
    labs_json="$labs_json${labs_json:+, }{\"lab\": \"$nn\", \"one_gpu\": $(run_json "$one_graded" "$one_wall" "$one_grading" "$one_hw" "$one_h"), \"all_gpus\": $(run_json "$all_graded" "$all_wall" "$all_grading" "$all_hw" "$all_h" "$all_gpus"), \"speedup_grading\": $speedup, \"speedup_wall\": $speedup_wall}"
done

[ -n "$labs_json" ] || { echo "bench-grading: no lab was timed"; exit 1; }
[ -n "$device" ] || device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n1)
device=${device:-unknown GPU}
slug=$(echo "$device" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
took=$(seconds "$started" "$EPOCHREALTIME")
trials_text=$([ "$trials" = rubric ] && echo "the rubric's trials" || echo "$trials trial(s) per correctness test")
mkdir -p "$BENCH_DIR"
json_device=$(printf '%s' "$device" | sed 's/\\/\\\\/g; s/"/\\"/g')
printf '{"device": "%s", "gpus": %s, "date": "%s", "seed": %s, "trials": "%s", "cpus": %s, "took_s": %s, "labs": [%s]}\n' \
    "$json_device" "$gpus" "$date" "$seed" "$trials" "$(nproc)" "$took" "$labs_json" > "$BENCH_DIR/$slug.grading.json"
{
    echo "# Grading throughput on $device ($gpus GPU$([ "$gpus" = 1 ] || echo s))"
    echo
    echo "Generated by \`make bench-grading\` (bench/grading_throughput.sh) on ${date%T*}: classes of copies of each"
    echo "lab's reference solution graded by \`grading/grade\` on one GPU$([ "$gpus" = 1 ] || echo " and with \`--gpus all\`"), one seed,"
    echo "$trials_text, every other test as the rubric has it. The builds run first, in parallel on the"
    echo "$(nproc) CPUs; *grading* counts from the last build to the end, *wall* the whole run."
    echo
    echo "| lab | GPUs | submissions | wall (s) | grading (s) | per hour (wall) | per hour (grading) |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    printf '%s' "$rows_md"
    echo
    if [ -n "$speedups" ]; then echo "Speed-up of \`--gpus all\` over one GPU: $speedups. The benchmark took $took s."
    else echo "This machine has one GPU, so \`--gpus all\` is the one-GPU run: no speed-up to measure. The benchmark took $took s."; fi
} > "$BENCH_DIR/$slug.grading.md"
echo "Results: $BENCH_DIR/$slug.grading.md and $BENCH_DIR/$slug.grading.json"
exit $status
