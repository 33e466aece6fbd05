# Grading under load loses no point of a correct submission (sourced by tests/run_tests.sh, where
# it runs only with GRADING_STRESS=1; on its own: `bash tests/suites/grading_stress.sh`). Needs a
# GPU, root (the sandbox's users) and a working bubblewrap; otherwise one SKIP line.
#
# A class of STRESS_CLASS (40) correct lab 01 submissions -- the correct-style cases of
# tests/grading/01 (another block size, anonymous namespaces, templates, a host lambda, weak libc
# names, a 4 KiB kernel name, a harness name redefined, an unused cuBLAS include) and copies of
# the reference -- graded with the correctness and sanitizer tests of lab 01's rubric (one trial
# each: STRESS_TRIALS), all of these at the same time:
#   A. one grade run with --gpus all (two GPUs or more; with one GPU, skipped);
#   B. three grade runs on the first GPU, each a third of the class (three sections graded at once);
#   C. one grade run of STRESS_PRIVATE (20) of them from a copy of the tree, with --out and the
#      submissions, under a folder of mode 0700 (as /root is), on the last GPU.
# The GPUs are those CUDA_VISIBLE_DEVICES shows when it is set (so that the suite can share a
# machine with other GPU work), else every GPU nvidia-smi lists.
# Every run must end well (exit 0) with no grader error, every submission must get every point
# of every test (what a run of it alone gets: it is correct), and every run must report the same
# isolation. It reports how many correct submissions were graded
# with no point lost, which must reach STRESS_MIN: by default every submission of the runs that
# ran (100 with the default sizes on two GPUs or more, 60 on one, where run A is skipped).
# STRESS_DIR keeps everything (default $BUILD/test-logs/grading-stress). GRADING_OPTIONS
# ("--separate-correctness") is added to every grade run.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
    stress_standalone=1
fi

stress_dir=${STRESS_DIR:-$BUILD/test-logs/grading-stress}
stress_n=${STRESS_CLASS:-40}
stress_private_n=${STRESS_PRIVATE:-20}
stress_trials=${STRESS_TRIALS:-1}
stress_cases="alt_correct anon_namespace templates host_lambda weak_libc long_kernel_name redefine_harness unused_cublas_include"

stress_skip=""
if [ -z "${stress_standalone:-}" ] && [ "${GRADING_STRESS:-0}" != 1 ]; then stress_skip="runs with GRADING_STRESS=1 (about 10 minutes on two H100s)"
elif [ "$gpu" != 1 ]; then stress_skip="needs a GPU"
elif [ "$(id -u)" != 0 ]; then stress_skip="needs root (each grading run's own sandbox user)"
elif ! command -v bwrap > /dev/null; then stress_skip="needs bubblewrap (tools/deps/grading.txt)"
elif [ ! -f solutions/01-vector-add/vector_add.cu ]; then stress_skip="needs lab 01's reference solution"
elif ! command -v patch > /dev/null; then stress_skip="needs GNU patch"
fi

# stress_class DIR N: N correct submissions, one folder each.
stress_class() {
    local dir=$1 n=$2 k=0 c
    rm -rf "$dir" && mkdir -p "$dir"
    for c in $stress_cases; do
        [ "$k" -lt "$n" ] || break
        mkdir -p "$dir/$c" && cp solutions/01-vector-add/vector_add.cu "$dir/$c/"
        patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$dir/$c/vector_add.cu" \
            < "tests/grading/01/$c.patch" > /dev/null 2>&1 || { echo "tests/grading/01/$c.patch no longer applies"; return 1; }
        k=$((k + 1))
    done
    while [ "$k" -lt "$n" ]; do
        mkdir -p "$dir/reference$k" && cp solutions/01-vector-add/vector_add.cu "$dir/reference$k/"
        k=$((k + 1))
    done
}

# stress_full_marks OUT: "ok N" when every submission in OUT's gradebook got every point of every
# test and nothing is a grader error, else what was lost.
stress_full_marks() { python3 tests/tools/stress_full_marks.py "$1" "$stress_rubric"; }

if [ -n "$stress_skip" ]; then
    skip "grading under load" "$stress_skip"
else
    rm -rf "$stress_dir" && mkdir -p "$stress_dir"
    stress_dir=$(cd "$stress_dir" && pwd)
    stress_rubric=$stress_dir/01-stress.rubric
    # Lab 01's rubric without its performance tests (their scores vary with timing) and its
    # questions (no answers.txt here), STRESS_TRIALS trials.
    awk -v trials="$stress_trials" '
        /^\[test / { skipping = ($0 ~ /^\[test (perf|questions)/) }
        skipping { next }
        /^trials *=/ { print "trials = " trials; next }
        { print }' grading/rubrics/01.rubric > "$stress_rubric"
    if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then read -r -a visible <<< "${CUDA_VISIBLE_DEVICES//,/ }"
    else read -r -a visible <<< "$(seq -s ' ' 0 $(($(nvidia-smi -L 2> /dev/null | grep -c '^GPU ') - 1)))"; fi
    gpus=${#visible[@]} first_gpu=${visible[0]} last_gpu=${visible[$((${#visible[@]} - 1))]}
    # Runs B and C always run; run A only where there are two GPUs or more.
    stress_min=${STRESS_MIN:-$(( (gpus >= 2 ? stress_n : 0) + stress_n + stress_private_n ))}
    make -s --no-print-directory grader grading-info LAB=01 > "$stress_dir/build.log" 2>&1 || fail "grading under load: build" "$(tail -n 3 "$stress_dir/build.log")"
    seed=$((RANDOM + 1))
    read -r -a stress_more <<< "${GRADING_OPTIONS:-}"
    common=(--lab 01 --rubric "$stress_rubric" --seed "$seed" --jobs 8 "${stress_more[@]}")
    pids=() names=()
    if problem=$(stress_class "$stress_dir/class" "$stress_n"); then :; else fail "grading under load: the class" "$problem"; fi
    # A: every GPU, one run.
    if [ "$gpus" -ge 2 ]; then
        grading/grade "${common[@]}" --gpus all --out "$stress_dir/A" "$stress_dir/class" > "$stress_dir/A.log" 2>&1 &
        pids+=($!) names+=(A)
    else
        skip "grading under load: --gpus all" "one GPU here"
    fi
    # B: three runs on the first GPU, a third of the class each.
    for part in 0 1 2; do
        mkdir -p "$stress_dir/B-class-$part"
        ls "$stress_dir/class" | awk -v p="$part" 'NR % 3 == p' | while read -r s; do cp -r "$stress_dir/class/$s" "$stress_dir/B-class-$part/"; done
        CUDA_VISIBLE_DEVICES=$first_gpu grading/grade "${common[@]}" --out "$stress_dir/B$part" "$stress_dir/B-class-$part" > "$stress_dir/B$part.log" 2>&1 &
        pids+=($!) names+=(B$part)
    done
    # C: the tree, the submissions and the results under a private (0700) folder (outside the
    # tree: make reads the dependency files under build/).
    private=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-stress-private.XXXXXX")
    chmod 700 "$private"
    mkdir -p "$private/tree"
    tar --exclude=./build/test-logs --exclude=./.git -cf - . | tar -xf - -C "$private/tree"
    stress_class "$private/class" "$stress_private_n" > /dev/null
    (cd "$private/tree" && CUDA_VISIBLE_DEVICES=$last_gpu grading/grade "${common[@]}" --out "$private/C" "$private/class") > "$stress_dir/C.log" 2>&1 &
    pids+=($!) names+=(C)

    total_ok=0 isolations=""
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}"
        rc=$?
        name=${names[$i]}
        out=$stress_dir/$name
        [ "$name" = C ] && out=$private/C
        if [ "$rc" -ne 0 ] || [ ! -f "$out/gradebook.csv" ]; then
            fail "grading under load: run $name ends well" "exit $rc: $(grep -E 'error|grader error' "$stress_dir/$name.log" | tail -n 3)"
            continue
        fi
        verdict=$(stress_full_marks "$out")
        if [ "${verdict%% *}" = ok ]; then
            pass "grading under load: run $name: every one of ${verdict#ok } correct submissions got every point, no grader error"
            total_ok=$((total_ok + ${verdict#ok }))
        else
            fail "grading under load: run $name: no point lost" "${verdict#lost }"
        fi
        isolations="$isolations$(python3 -c 'import json, re, sys; l = json.loads(open(sys.argv[1]).readline()); print(l["isolation"])' "$out/audit.jsonl")"$'\n'
        grep -h 'sandbox uid\|isolation:' "$out/summary.txt" | head -n 3 >> "$stress_dir/isolations.txt"
    done
    if [ "$(printf '%s' "$isolations" | sort -u | grep -c .)" = 1 ]; then pass "grading under load: every run reports the same isolation ($(printf '%s' "$isolations" | head -n 1 | cut -c1-60)...)"
    else fail "grading under load: every run reports the same isolation" "$(printf '%s' "$isolations" | sort -u | cut -c1-120 | tr '\n' '|')"; fi
    say "grading under load: $total_ok correct submissions graded with no point lost (seed $seed, $gpus GPU(s), $(date -u +%Y-%m-%dT%H:%MZ))"
    if [ "$total_ok" -ge "$stress_min" ]; then pass "grading under load: at least $stress_min correct submissions graded with no point lost ($total_ok)"
    else fail "grading under load: at least $stress_min correct submissions graded with no point lost" "$total_ok"; fi
fi
