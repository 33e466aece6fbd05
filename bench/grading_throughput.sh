#!/usr/bin/env bash
# make bench-grading: how many submissions an hour the grader gets through, on one GPU and on
# every GPU of this machine (grading/grade --gpus all), for labs 01, 12 and 13 (LABS="01 12 13"),
# and where the time goes.
#
# Each lab's class is GRADING_BENCH_N (40) submissions: the corpus cases that
# tests/grading/NN/expected.txt gives every correctness and sanitizer point (patched onto the
# reference or the starter, as tests/suites/grading.sh does), then copies of the reference
# solution. The --gpus all run grades as many a GPU (GRADING_BENCH_ALL_N, N times the GPUs: the
# same class on two GPUs would leave the last round of lanes half empty, and the speed-up would
# measure that rather than the GPUs); its first N are the one-GPU run's class (GRADING_BENCH_ONE_N
# grades only the first K on one GPU). Both use one seed and the rubric's own trials, as a class
# is graded (GRADING_BENCH_TRIALS=rubric, the default; a number sets every correctness test's
# trials, GRADING_BENCH_TRIALS=1 as the grading suite does). Every submission is a file of its
# own: a comment line naming its class and folder is added to each, so that no two share a build
# (the grader reuses the build of an identical file; GRADING_BENCH_DISTINCT=0 leaves the copies
# identical, to time that reuse). Both choices are written in the results' header and JSON.
# GRADING_BENCH_OPTIONS is added to every grade command: "--per-gpu 1
# --no-build-reuse --separate-correctness --separate-verifiers" grades one submission at a time,
# compiles every file, runs each correctness trial on its own and starts a verifier for each
# verification, as the grader did before those options, for a before/after on the same machine.
#
# Timed: the whole run (wall), what follows its last build (grading; the grading starts on
# the first submissions built, beside the other builds), and how busy the CPUs were. Each run's
# verdicts are checked: every submission graded without a note and with every correctness and
# sanitizer point (what each gets graded alone), and the two runs' gradebooks equal but for the
# performance columns, for the submissions both graded. Writes bench/results/<device>.grading.md
# and .json (BENCH_DIR overrides the folder), assembled from one section a lab in
# <device>.grading.parts/ (a run of LABS=12 replaces lab 12's section only; not a *.d folder,
# whose NN.json every other tool reads as a lab's benchmark results): device, GPU count, each
# run's submissions, times, submissions an hour against the targets (GRADING_BENCH_TARGETS,
# "01=600 12=300 13=300" an hour on one GPU; 1.9x for --gpus all), and each run's breakdown table
# (OUT/breakdown.txt). On a machine of one GPU only
# the one-GPU run is timed. Exit: 0 done, 1 a run failed or a verdict was not full marks, 77 no
# GPU. The runs' folders stay in $BUILD/bench-grading (GRADING_BENCH_DIR).
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
export BUILD=${BUILD:-build}
BENCH_DIR=${BENCH_DIR:-bench/results}
labs=${LABS:-01 12 13}
work=${GRADING_BENCH_DIR:-$BUILD/bench-grading}
seed=${GRADING_BENCH_SEED:-13579}
trials=${GRADING_BENCH_TRIALS:-rubric}
distinct=${GRADING_BENCH_DISTINCT:-1}
run_limit=${GRADING_BENCH_TIMEOUT:-3600}
targets=${GRADING_BENCH_TARGETS:-01=600 12=300 13=300}
speedup_target=${GRADING_BENCH_SPEEDUP_TARGET:-1.9}
read -r -a extra <<< "${GRADING_BENCH_OPTIONS:-}"

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
command -v patch > /dev/null || { echo "bench-grading: the class's corpus cases need GNU patch (Debian package patch)" >&2; exit 2; }
n=${GRADING_BENCH_N:-40}
one_n=${GRADING_BENCH_ONE_N:-$n}
all_n=${GRADING_BENCH_ALL_N:-$((n * gpus))}
[ "$n" -ge 1 ] && [ "$one_n" -ge 1 ] && [ "$all_n" -ge 1 ] \
    || { echo "bench-grading: GRADING_BENCH_N, GRADING_BENCH_ONE_N and GRADING_BENCH_ALL_N must be at least 1" >&2; exit 2; }

# stamp: each line of stdin with the time it arrived.
stamp() { while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
per_hour() { awk -v k="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? k * 3600 / s : 0) }'; }
# speedup K1 S1 K2 S2: (K2 / S2) / (K1 / S1), submissions per second of the second over the first.
speedup() { awk -v k1="$1" -v s1="$2" -v k2="$3" -v s2="$4" 'BEGIN { printf "%.2f", (k1 > 0 && s2 > 0) ? (k2 / s2) / (k1 / s1) : 0 }'; }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
run_json() {  # SUBMISSIONS WALL GRADING PER_HOUR_WALL PER_HOUR_GRADING CPU_BUSY [GPUS]
    printf '{"gpus": %s, "submissions": %s, "wall_s": %s, "grading_s": %s, "per_hour_wall": %s, "per_hour_grading": %s, "cpus_busy_percent": %s}' \
        "${7:-1}" "$1" "$2" "$3" "$4" "$5" "$6"
}
# cpu_ticks: "BUSY TOTAL", the machine's CPU time so far in clock ticks (/proc/stat's cpu line:
# user nice system idle iowait irq softirq steal; idle and iowait are not busy).
cpu_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }
# busy_percent "BUSY TOTAL" "BUSY TOTAL": how busy the machine's CPUs were between the two.
busy_percent() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); d = y[2] - x[2]; printf "%.0f", (d > 0 ? 100 * (y[1] - x[1]) / d : 0) }'; }

# rubric_tests NN: "ID KIND POINTS" for each test of the rubric (kind correctness unless given).
rubric_tests() {
    awk 'function out() { if (t != "") print t, kind, points }
         match($0, /^\[test [A-Za-z0-9_]+\]/) { out(); t = substr($0, 7, RLENGTH - 7); kind = "correctness"; points = 0; next }
         t != "" && $1 == "kind" { kind = $3 } t != "" && $1 == "points" { points = $3 }
         END { out() }' "grading/rubrics/$1.rubric"
}

# full_marks_cases NN: the corpus cases that expected.txt gives every correctness and sanitizer
# point (the performance test may be anything), but the reference and the starter.
full_marks_cases() {
    [ -f "tests/grading/$1/expected.txt" ] || return 0
    awk 'FNR == NR { kind[$1] = $2; points[$1] = $3; order[++n] = $1; next }
         /^#/ || NF == 0 { next }
         { delete got; ok = 1
           for (i = 2; i <= NF && $i ~ /^[a-z_0-9]+=/; i++) { split($i, kv, "="); got[kv[1]] = kv[2] }
           if ("rejected" in got) ok = 0
           for (k = 1; k <= n; k++) {
               u = order[k]
               if (kind[u] == "performance") continue
               if (!(u in got) || got[u] !~ /^[0-9.]+$/ || got[u] + 0 != points[u] + 0) ok = 0
           }
           if (ok && $1 != "reference" && $1 != "starter") print $1 }' <(rubric_tests "$1") "tests/grading/$1/expected.txt"
}

# make_class NN LABDIR TOPIC DIR N: the corpus's full-marks cases, then copies of the reference, N in
# all; unless distinct=0, each file ends with a comment line of its own (DIR's name and its folder).
make_class() {
    local nn=$1 labdir=$2 topic=$3 dir=$4 count=$5 k=0 c p base
    rm -rf "$dir" && mkdir -p "$dir"
    for c in $(full_marks_cases "$nn"); do
        [ "$k" -lt "$count" ] || break
        p=tests/grading/$nn/$c.patch
        base=$(head -n1 "$p" | sed -n 's/^--- \([^[:space:]]*\).*/\1/p')
        mkdir -p "$dir/$c" && cp "$base" "$dir/$c/$topic"
        patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$dir/$c/$topic" < "$p" > /dev/null 2>&1 \
            || { echo "  $p no longer applies: left out of the class"; rm -rf "${dir:?}/$c"; continue; }
        [ -d "tests/grading/$nn/$c.files" ] && cp -r "tests/grading/$nn/$c.files/." "$dir/$c/"
        k=$((k + 1))
    done
    cases=$k
    while [ "$k" -lt "$count" ]; do
        mkdir -p "$dir/$(printf 'copy%03d' "$k")" && cp "solutions/$(basename "$labdir")/$topic" "$dir/$(printf 'copy%03d' "$k")/"
        k=$((k + 1))
    done
    [ "${distinct:-1}" = 0 ] && return 0
    for c in "$dir"/*/; do
        printf '// bench-grading: %s/%s, a file of its own (no build shared with another submission)\n' \
            "$(basename "$dir")" "$(basename "$c")" >> "$c/$topic"
    done
}

# full_marks NN OUT: "" when every submission of OUT's gradebook has every correctness and
# sanitizer point and no note, else who lost what.
full_marks() {
    local columns
    columns=$(rubric_tests "$1" | awk '$2 != "performance" { printf "%s%s=%s", (n++ ? " " : ""), $1, $3 }')
    awk -F, -v want="$columns" '
        NR == 1 { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); col[h] = i }; next }
        { who = $1; gsub(/"/, "", who); bad = ""
          if ($NF != "\"\"") bad = bad " note " $NF
          m = split(want, w, " ")
          for (k = 1; k <= m; k++) { split(w[k], kv, "="); v = $(col[kv[1]]); gsub(/"/, "", v); if (v + 0 != kv[2] + 0 || v == "") bad = bad " " kv[1] "=" v }
          if (bad != "") print who ":" bad }' "$2/gradebook.csv"
}

# The gradebook without its performance columns, nor the sha256 (the same files either way).
verdicts() {
    local keep
    keep=$(rubric_tests "$1" | awk '$2 == "performance" { printf "%s ", $1 }')
    awk -F, -v drop="$keep" 'NR == 1 { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); if (index(" " drop, " " h " ") || h == "total") skip[i] = 1 } }
        { line = ""; for (i = 1; i <= NF; i++) if (!skip[i]) line = line $i ","; print line }' "$2/gradebook.csv"
}

# verdicts_of NN OUT OTHER: verdicts of OUT for the submissions OTHER's gradebook has too.
verdicts_of() {
    verdicts "$1" "$2" | awk -F, 'NR == FNR { seen[$1] = 1; next } FNR == 1 || ($1 in seen)' "$3/gradebook.csv" -
}

# grade LAB CLASS_DIR OUT [--gpus all]: one timed run; sets wall, grading, graded, gpus_used
# and cpus_busy (the machine's CPUs over the whole run, in percent: whether they bound it).
grade() {
    local nn=$1 class=$2 out=$3; shift 3
    local t0 t1 rc built lost ticks0
    rm -rf "$out"
    mkdir -p "$out.log"
    ticks0=$(cpu_ticks)
    t0=$EPOCHREALTIME
    timeout --kill-after=30 "$run_limit" grading/grade --lab "$nn" --rubric "$work/$nn/rubric" --seed "$seed" "${extra[@]}" "$@" --out "$out" "$class" \
        2>&1 > "$out.log/stdout.txt" | stamp > "$out.log/stderr.txt"
    rc=${PIPESTATUS[0]}
    t1=$EPOCHREALTIME
    cpus_busy=$(busy_percent "$ticks0" "$(cpu_ticks)")
    wall=$(seconds "$t0" "$t1")
    built=$(grep -E '^[0-9.]+ \[[0-9]+/[0-9]+\] built ' "$out.log/stderr.txt" | tail -n1 | cut -d' ' -f1)
    grading=$(seconds "${built:-$t0}" "$t1")
    graded=0 gpus_used=1
    if [ "$rc" -ne 0 ]; then
        echo "  grading/grade $* failed (exit $rc): see $out.log/stderr.txt"
        tail -n 5 "$out.log/stderr.txt" | sed 's/^[0-9.]* /  | /'
        return 1
    fi
    graded=$(awk 'END { print NR - 1 }' "$out/gradebook.csv")
    gpus_used=$(sed -n 's/^GPUs: \([0-9]*\) (--gpus all).*/\1/p' "$out/summary.txt")
    gpus_used=${gpus_used:-1}
    lost=$(full_marks "$nn" "$out")
    if [ -n "$lost" ]; then
        echo "  not every submission got every correctness and sanitizer point (what each gets graded alone):"
        printf '%s\n' "$lost" | head -n 10 | sed 's/^/  | /'
        return 1
    fi
    return 0
}

# target_text NN PER_HOUR: "600: met" / "600: not met" / "" (no target for the lab)
target_text() {
    local t
    t=$(printf '%s\n' $targets | sed -n "s/^$1=//p")
    [ -n "$t" ] || return 0
    if at_least "$2" "$t"; then echo "$t: met"; else echo "$t: not met"; fi
}

# publish: the labs timed so far (their sections in $sections) into $BENCH_DIR, after each lab, so
# that a run cut short keeps every lab it finished.
publish() {
    [ -n "$device" ] || device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n1)
    device=${device:-unknown GPU}
    slug=$(echo "$device" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
    local date took trials_text distinct_text parts json_device
    date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    took=$(seconds "$started" "$EPOCHREALTIME")
    trials_text=$([ "$trials" = rubric ] && echo "the rubric's trials" || echo "$trials trial(s) per correctness test")
    distinct_text=$([ "${distinct:-1}" = 0 ] && echo "the reference's copies identical (their builds shared)" \
        || echo "every submission a distinct file (no build shared)")
    parts=$BENCH_DIR/$slug.grading.parts
    mkdir -p "$parts"
    cp "$sections"/* "$parts/"
    json_device=$(printf '%s' "$device" | sed 's/\\/\\\\/g; s/"/\\"/g')
    printf '{"device": "%s", "gpus": %s, "date": "%s", "seed": %s, "trials": "%s", "distinct_files": %s, "options": "%s", "cpus": %s, "labs": [%s]}\n' \
        "$json_device" "$gpus" "$date" "$seed" "$trials" "$([ "${distinct:-1}" = 0 ] && echo false || echo true)" \
        "$(printf '%s' "${GRADING_BENCH_OPTIONS:-}" | sed 's/\\/\\\\/g; s/"/\\"/g')" "$(nproc)" "$(cat "$parts"/*.json | paste -sd, -)" \
        > "$BENCH_DIR/$slug.grading.json"
    {
        echo "# Grading throughput on $device ($gpus GPU$([ "$gpus" = 1 ] || echo s))"
        echo
        echo "Generated by \`make bench-grading\` (bench/grading_throughput.sh): each lab's class graded by \`grading/grade\` on one"
        echo "GPU$([ "$gpus" = 1 ] || echo " and with \`--gpus all\`"), one seed, $trials_text, every other test as the rubric has it,"
        echo "$distinct_text, options: ${GRADING_BENCH_OPTIONS:-none} (GRADING_BENCH_TRIALS=$trials GRADING_BENCH_DISTINCT=${distinct:-1}), on"
        echo "$(nproc) CPUs. *grading* counts from the last build to the end (the grading starts beside the builds), *wall*"
        echo "the whole run; the targets are"
        echo "submissions an hour of the whole run on one GPU ($targets) and ${speedup_target}x for \`--gpus all\`."
        echo "The last invocation ($date, LABS=\"$labs\") took $took s; each lab's section says when it ran."
        echo
        cat "$parts"/*.md
    } > "$BENCH_DIR/$slug.grading.md"
}

make -s --no-print-directory grader BUILD="$BUILD" >&2 || exit 1
status=0 device="" started=$EPOCHREALTIME
sections=$(mktemp -d)
for nn in $labs; do
    labdir=$(ls -d labs/"$nn"-* 2> /dev/null | head -n1)
    rubric=grading/rubrics/$nn.rubric
    [ -n "$labdir" ] && [ -f "$rubric" ] || { echo "lab $nn: no lab or no rubric, skipped"; status=1; continue; }
    topic=$(basename "$(ls "$labdir"/*.cu | grep -v '/driver\.cu$' | head -n1)")
    # The trusted build once, untimed (each run would find it up to date anyway).
    make -s --no-print-directory grading-info LAB="$nn" BUILD="$BUILD" > /dev/null || { echo "  make grading-info LAB=$nn failed"; status=1; continue; }
    rm -rf "${work:?}/$nn"
    mkdir -p "$work/$nn"
    if [ "$trials" = rubric ]; then cp "$rubric" "$work/$nn/rubric"
    else sed -E "s/^trials = [0-9]+/trials = $trials/" "$rubric" > "$work/$nn/rubric"; fi
    make_class "$nn" "$labdir" "$topic" "$work/$nn/class-all" "$all_n"
    make_class "$nn" "$labdir" "$topic" "$work/$nn/class-one" "$one_n"
    echo "Grading throughput of lab $nn: $one_n submissions on one GPU ($cases corpus cases with full marks, the rest copies of the reference)$([ "$gpus" -gt 1 ] && echo ", $all_n on all $gpus GPUs")"

    grade "$nn" "$work/$nn/class-one" "$work/$nn/one" || { status=1; continue; }
    one_wall=$wall one_grading=$grading one_graded=$graded one_cpus=$cpus_busy
    one_h=$(per_hour "$one_graded" "$one_grading") one_hw=$(per_hour "$one_graded" "$one_wall")
    echo "  one GPU:    $one_graded submissions in $one_wall s (grading $one_grading s): $one_hw/hour (whole run), $one_h/hour (grading); CPUs $one_cpus% busy"
    cpu_line="The machine's $(nproc) CPUs were $one_cpus% busy over the one-GPU run"
    rows="| $nn | 1 | $one_graded | $one_wall | $one_grading | $one_hw | $one_h | $(target_text "$nn" "$one_hw") |"
    tables="One GPU:

\`\`\`
$(cat "$work/$nn/one/breakdown.txt")
\`\`\`"
    all_json=null speedup_json=null speedup_wall_json=null speedup_line=""
    if [ "$gpus" -gt 1 ]; then
        if grade "$nn" "$work/$nn/class-all" "$work/$nn/all" --gpus all; then
            all_wall=$wall all_grading=$grading all_graded=$graded all_gpus=$gpus_used all_cpus=$cpus_busy
            cpu_line="$cpu_line and $all_cpus% over the \`--gpus all\` run"
            all_h=$(per_hour "$all_graded" "$all_grading") all_hw=$(per_hour "$all_graded" "$all_wall")
            speedup_json=$(speedup "$one_graded" "$one_grading" "$all_graded" "$all_grading")
            speedup_wall_json=$(speedup "$one_graded" "$one_wall" "$all_graded" "$all_wall")
            met=$(at_least "$speedup_wall_json" "$speedup_target" && echo met || echo "not met")
            echo "  --gpus all: $all_graded submissions in $all_wall s on $all_gpus GPUs: $all_hw/hour; speed-up ${speedup_wall_json}x (whole run), ${speedup_json}x (grading); CPUs $all_cpus% busy"
            rows="$rows
| $nn | $all_gpus (--gpus all) | $all_graded | $all_wall | $all_grading | $all_hw | $all_h | ${speedup_wall_json}x (target ${speedup_target}x: $met) |"
            all_json=$(run_json "$all_graded" "$all_wall" "$all_grading" "$all_hw" "$all_h" "$all_cpus" "$all_gpus")
            speedup_line="Speed-up of \`--gpus all\`: **${speedup_wall_json}x** (whole run), ${speedup_json}x (grading phase)."
            tables="$tables

All $all_gpus GPUs:

\`\`\`
$(cat "$work/$nn/all/breakdown.txt")
\`\`\`"
            [ -n "$device" ] || device=$(sed -n 's/.*"gpus":\[{[^}]*"name":"\([^"]*\)".*/\1/p' "$work/$nn/all/audit.jsonl" | tail -n1)
            if ! cmp -s <(verdicts_of "$nn" "$work/$nn/one" "$work/$nn/all") <(verdicts_of "$nn" "$work/$nn/all" "$work/$nn/one"); then
                echo "  the --gpus all run's correctness and sanitizer verdicts differ from the one-GPU run's: see $work/$nn/{one,all}/gradebook.csv"
                status=1
            fi
        else
            status=1
        fi
    fi
    printf '%s\n' "{\"lab\": \"$nn\", \"submissions\": $n, \"corpus_cases\": $cases, \"options\": \"${GRADING_BENCH_OPTIONS:-}\", \"one_gpu\": $(run_json "$one_graded" "$one_wall" "$one_grading" "$one_hw" "$one_h" "$one_cpus"), \"all_gpus\": $all_json, \"speedup_grading\": $speedup_json, \"speedup_wall\": $speedup_wall_json}" > "$sections/$nn.json"
    {
        echo "## Lab $nn"
        echo
        all_text=""
        [ "$gpus" -gt 1 ] && all_text=", $all_n with \`--gpus all\` (as many a GPU)"
        echo "$one_n submissions on one GPU$all_text: $cases corpus cases with every correctness and sanitizer point, the rest copies of the reference;"
        echo "graded on $(date -u +%Y-%m-%d)${GRADING_BENCH_OPTIONS:+ with \`${GRADING_BENCH_OPTIONS}\`}, each with every correctness and sanitizer point."
        echo
        echo "| lab | GPUs | submissions | wall (s) | grading (s) | per hour (wall) | per hour (grading) | target |"
        echo "|---|---|---:|---:|---:|---:|---:|---|"
        echo "$rows"
        echo
        [ -n "$speedup_line" ] && { echo "$speedup_line"; echo; }
        echo "$cpu_line (/proc/stat: all but idle and I/O wait)."
        echo
        echo "Where the time went (\`OUT/breakdown.txt\`; each submission's line in \`OUT/breakdown.jsonl\`):"
        echo
        echo "$tables"
    } > "$sections/$nn.md"
    publish
done

[ -n "$(ls "$sections")" ] || { echo "bench-grading: no lab was timed"; rm -rf "$sections"; exit 1; }
rm -rf "$sections"
echo "Results: $BENCH_DIR/$slug.grading.md and $BENCH_DIR/$slug.grading.json"
exit $status
