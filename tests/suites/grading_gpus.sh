# Grading on every GPU of a machine (grading/grade --gpus all), against one GPU (sourced by
# tests/run_tests.sh; also runs on its own: `bash tests/suites/grading_gpus.sh`). Needs at least
# two GPUs (CUDA_VISIBLE_DEVICES, when set, says which: it is counted like CUDA counts it);
# otherwise one SKIP line, and on its own exit 77.
#
# A class of lab 01 submissions: the reference, the untouched starter and deterministic cases of
# tests/grading/01/*.patch (wrong answers, crashes, rejections...), one of each (21; GPUS_CLASS=N:
# N students, the cases in turn), each student in a folder of its own. It is graded twice with
# one seed and one trial per correctness test (GRADING_TRIALS, default 1): with --gpus all, and
# with one GPU (no --gpus, as before the option existed). Then:
#   - both runs graded every student once, the gradebook and audit log in the same (class) order;
#   - the correctness scores and the reasons for not grading are the same for every student, and
#     so are the correctness parts of every feedback, byte for byte (performance varies with the
#     timing noise of any run; sanitizer reports quote addresses, which vary too; a run made again
#     after the environment failed says so, and a busy machine decides where);
#   - the --gpus run used at least two GPUs: its summary names them with what each graded, and
#     its audit log names a GPU for every student whose tests ran.
# On a machine of one GPU, GRADING_SHARED_GPUS=1 runs the same checks with two workers sharing
# GPU 0 (--gpus 0,0, which the grader takes only with that variable set): the several-worker path
# whole, but for the speed-up, which one GPU cannot give.
# GRADING_GPUS_DIR keeps the results (default $BUILD/test-logs/grading-gpus). Within `make test`
# it runs where lab 01 is graded (GRADING_ONLY / TEST_LABS without 01: skipped). It takes about
# as long as grading the class once on one GPU and once on all of them.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
    gpus_standalone=1
fi

# gpus_count: the GPUs CUDA shows here (the entries of CUDA_VISIBLE_DEVICES when it is set).
gpus_count() {
    if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
        printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c '[^[:space:]]'
    else
        nvidia-smi -L 2> /dev/null | grep -c '^GPU '
    fi
}

# gpus_correctness_feedback FILE: a feedback without what timing or addresses change: the score
# line (its total holds the performance points) and the sections of lab 01's performance and
# sanitizer tests (headings outside the quoted blocks, whose fences are runs of backticks), and
# the notes of runs made again after a failure of the environment (a busy machine's doing).
gpus_correctness_feedback() {
    awk '
        BEGIN { keep = 1 }
        {
            if ($0 ~ /\(the environment.s failure, not yours\)$/) next
            if (fence != "") { if ($0 == fence) fence = ""; if (keep) print; next }
            if (match($0, /^```+/)) { fence = substr($0, 1, RLENGTH); if (keep) print; next }
            if ($0 ~ /^## /) keep = ($0 !~ /^## (Performance|Memory safety)/)
            if ($0 ~ /^Score: /) next
            if (keep) print
        }' "$1"
}

# gpus_students AUDIT: the students of an audit log's last run, in the order of its lines.
gpus_students() {
    awk '/"event":"run"/ { n = 0; split("", s) } /"event":"submission"/ { s[++n] = $0 } END { for (i = 1; i <= n; i++) print s[i] }' "$1" \
        | sed -n 's/.*"student":"\([^"]*\)".*/\1/p'
}

# gpus_ready: whether this machine can run the suite (lab 01 among GRADING_ONLY, a GPU, the grader
# and lab 01's reference, two GPUs or GRADING_SHARED_GPUS=1 on one, GNU patch); sets the suite's
# n_gpus, workers and gpus_arg. Returns 77 after a SKIP line, 1 after a FAIL line.
gpus_ready() {
    if [ -n "${GRADING_ONLY:-}" ] && [[ " $GRADING_ONLY " != *" 01 "* ]]; then
        skip "grading on every GPU (--gpus all)" "it grades lab 01, not among GRADING_ONLY=$GRADING_ONLY"; return 77
    fi
    if [ "${gpu:-0}" != 1 ]; then
        skip "grading on every GPU (--gpus all)" "no GPU on this machine"; return 77
    fi
    if [ ! -f solutions/01-vector-add/vector_add.cu ] || [ ! -x grading/grade ]; then
        skip "grading on every GPU (--gpus all)" "needs the grader and lab 01's reference solution (not in the student edition)"; return 77
    fi
    n_gpus=$(gpus_count)
    workers=${n_gpus:-0}
    if [ "${n_gpus:-0}" = 1 ] && [ "${GRADING_SHARED_GPUS:-}" = 1 ]; then
        gpus_arg=0,0 workers=2
        say "    one GPU and GRADING_SHARED_GPUS=1: two workers share GPU 0 (--gpus 0,0)"
    elif [ "${n_gpus:-0}" -lt 2 ]; then
        skip "grading on every GPU (--gpus all)" "needs at least 2 GPUs, this machine shows ${n_gpus:-0}${CUDA_VISIBLE_DEVICES+ (CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES)} (GRADING_SHARED_GPUS=1: two workers on one)"
        return 77
    fi
    if ! command -v patch > /dev/null; then
        fail "grading on every GPU: the class" "the class is made with GNU patch (Debian package patch)"; return 1
    fi
}

# gpus_class: the class in the suite's $subs (GPUS_CLASS students, the cases in turn), a folder
# each; sets the suite's count (the number of cases). Returns 1 where a patch no longer applies.
gpus_class() {
    local cases c base i name p broken=0
    # Cases whose correctness scores do not depend on timing (no race, no time-out).
    cases="reference starter wrong_answer oob_write oob_host host_crash alt_correct compile_error defines_main
           forbidden_cublas timed_reps_skipped cpu_empty_kernel cpu_only fake_output early_exit weak_libc
           long_kernel_name anon_namespace templates host_lambda unused_cublas_include"
    set -- $cases
    count=$#
    for ((i = 0; i < ${GPUS_CLASS:-$count}; i++)); do
        set -- $cases
        shift $((i % count))
        c=$1
        name=$(printf 's%02d-%s' "$i" "$c")
        mkdir -p "$subs/$name"
        case $c in
            reference) cp solutions/01-vector-add/vector_add.cu "$subs/$name/" ;;
            starter) cp labs/01-vector-add/vector_add.cu "$subs/$name/" ;;
            *)
                p=tests/grading/01/$c.patch
                base=$(head -n1 "$p" | sed -n 's/^--- \([^[:space:]]*\).*/\1/p')
                cp "$base" "$subs/$name/vector_add.cu"
                if ! patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$subs/$name/vector_add.cu" \
                        < "$p" > /dev/null 2>&1; then
                    fail "grading on every GPU: the class" "$p no longer applies to $base"
                    broken=1
                fi
                [ -d "tests/grading/01/$c.files" ] && cp -r "tests/grading/01/$c.files/." "$subs/$name/"
                ;;
        esac
    done
    [ "$broken" = 0 ] || return 1
}

# gpus_grade_twice: the class graded with --gpus $gpus_arg (into $dir/all) and on one GPU (into
# $dir/one), one seed and GRADING_TRIALS trials; sets the suite's used, correctness, t_all and
# t_one. Returns 1 where a run wrote no gradebook.
gpus_grade_twice() {
    local t0 t1
    rubric=grading/rubrics/01.rubric
    used=$dir/01.rubric
    sed -E "s/^trials = [0-9]+/trials = ${GRADING_TRIALS:-1}/" "$rubric" > "$used"
    correctness=$(awk '
        /^\[test / { if (id != "" && kind == "correctness") print id; id = $2; sub(/\]$/, "", id); kind = "correctness"; next }
        /^kind[ \t]*=/ { kind = $3 }
        END { if (id != "" && kind == "correctness") print id }' "$used" | tr '\n' ' ')

    local saved_timeout=${RUN_TIMEOUT:-600}
    RUN_TIMEOUT=${GRADING_RUN_TIMEOUT:-3600}
    t0=$(date +%s)
    expect "grading on every GPU: --gpus $gpus_arg grades the class of ${GPUS_CLASS:-$count}" 0 'results: ' \
        grading/grade --lab 01 --rubric "$used" --seed "$seed" --gpus "$gpus_arg" --out "$dir/all" "$subs"
    t1=$(date +%s); t_all=$((t1 - t0))
    printf '%s\n' "$err" | grep -E '^grade: (GPU|grading on|GRADING_SHARED_GPUS)' | sed 's/^/    /' | tee -a "$LOG"
    t0=$(date +%s)
    expect "grading on every GPU: one GPU grades the same class" 0 'results: ' \
        grading/grade --lab 01 --rubric "$used" --seed "$seed" --out "$dir/one" "$subs"
    t1=$(date +%s); t_one=$((t1 - t0))
    RUN_TIMEOUT=$saved_timeout
    say "    wall time: --gpus $gpus_arg ${t_all} s, one GPU ${t_one} s"
    [ -f "$dir/all/gradebook.csv" ] && [ -f "$dir/one/gradebook.csv" ] || return 1
    [ -f "$dir/all/summary.txt" ] && sed 's/^/    /' "$dir/all/summary.txt" | grep -A20 '^    GPUs: ' | tee -a "$LOG"
}

# gpus_same_students: every student once, in class order, in both runs; sets the suite's ids.
gpus_same_students() {
    ids=$(ls "$subs" | sort)
    local d bad=""
    for d in all one; do
        [ "$(gpus_students "$dir/$d/audit.jsonl" | sort)" = "$ids" ] || bad="$bad $d/audit.jsonl"
        [ "$(gradebook_cells "$dir/$d/gradebook.csv" | cut -d'|' -f1 | sort)" = "$ids" ] || bad="$bad $d/gradebook.csv"
        [ "$(cd "$dir/$d/feedback" && ls -- *.md | sed 's/\.md$//' | sort)" = "$ids" ] || bad="$bad $d/feedback"
    done
    if [ -z "$bad" ]; then pass "grading on every GPU: every student graded exactly once in both runs"
    else fail "grading on every GPU: every student graded exactly once in both runs" "not so in:$bad"; fi
    if [ "$(gpus_students "$dir/all/audit.jsonl")" = "$(gpus_students "$dir/one/audit.jsonl")" ] \
        && [ "$(gradebook_cells "$dir/all/gradebook.csv" | cut -d'|' -f1)" = "$(gradebook_cells "$dir/one/gradebook.csv" | cut -d'|' -f1)" ]; then
        pass "grading on every GPU: gradebook and audit log in the one-GPU run's order"
    else
        fail "grading on every GPU: gradebook and audit log in the one-GPU run's order" "see $dir/all and $dir/one"
    fi
}

# gpus_same_correctness: the same correctness scores and reasons, per student, and the same
# feedback but for performance and the sanitizers.
gpus_same_correctness() {
    local bad
    local diffs
    diffs=$(diff <(gradebook_cells "$dir/one/gradebook.csv" sha256 $correctness note) <(gradebook_cells "$dir/all/gradebook.csv" sha256 $correctness note))
    if [ -z "$diffs" ]; then pass "grading on every GPU: the same correctness scores for all $(echo "$ids" | wc -l) students ($correctness)"
    else fail "grading on every GPU: the same correctness scores per student" "$(echo "$diffs" | head -n 6 | tr '\n' ' ')"; fi
    local f g first_diff=""
    bad=""
    for f in "$dir"/one/feedback/*.md; do
        g=$dir/all/feedback/$(basename "$f")
        cmp -s <(gpus_correctness_feedback "$f") <(gpus_correctness_feedback "$g") && continue
        bad="$bad $(basename "$f" .md)"
        [ -n "$first_diff" ] || first_diff=$(diff <(gpus_correctness_feedback "$f") <(gpus_correctness_feedback "$g") | head -n 8)
    done
    if [ -z "$bad" ]; then pass "grading on every GPU: every feedback is the one-GPU run's, byte for byte, but performance and sanitizer"
    else fail "grading on every GPU: every feedback is the one-GPU run's but performance and sanitizer" "differ:$(echo "$bad" | cut -c1-300); the first (one GPU <, all >): $first_diff"; fi
}

# gpus_every_worker_used: both workers (at least two: one per GPU, or two sharing one) were used,
# and said so; every student whose tests ran names its GPU, the one-GPU run none.
gpus_every_worker_used() {
    local used_workers graded_lines ran unnamed
    used_workers=$(grep '"event":"submission"' "$dir/all/audit.jsonl" | sed -n 's/.*"gpu":{[^}]*"worker":\([0-9]*\).*/\1/p' | sort -u | wc -l)
    graded_lines=$(grep -cE '^  GPU [0-9]+.*: [1-9][0-9]* submissions? graded$' "$dir/all/summary.txt")
    if [ "$used_workers" -ge 2 ] && [ "$graded_lines" -ge 2 ] && grep -q "^GPUs: $workers (--gpus $gpus_arg" "$dir/all/summary.txt"; then
        pass "grading on every GPU: $used_workers workers graded students, the summary names all $workers"
    else
        fail "grading on every GPU: every worker was used" "workers in the audit log: $used_workers; summary lines with a count: $graded_lines (see $dir/all/summary.txt)"
    fi
    ran=$(grep '"event":"submission"' "$dir/all/audit.jsonl" | grep -c '"rejected":""')
    unnamed=$(grep '"event":"submission"' "$dir/all/audit.jsonl" | grep '"rejected":""' | grep -vc '"gpu":{')
    if [ "$ran" -gt 0 ] && [ "$unnamed" -eq 0 ] && ! grep -q '"gpu":{' "$dir/one/audit.jsonl"; then
        pass "grading on every GPU: the audit log names the GPU of each of the $ran students whose tests ran"
    else
        fail "grading on every GPU: the audit log names each student's GPU" "$unnamed of $ran without one"
    fi
    [ "$t_one" -gt 0 ] && [ "$gpus_arg" = all ] && say "    speed-up of --gpus all over one GPU (whole runs, builds included): $(awk -v a="$t_one" -v b="$t_all" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')x"
}

gpus_suite() {
    local n_gpus dir subs seed rubric used count correctness ids t_all t_one gpus_arg=all workers
    gpus_ready || return

    dir=${GRADING_GPUS_DIR:-$BUILD/test-logs/grading-gpus}
    subs=$dir/submissions
    seed=2468
    rm -rf "$dir"
    mkdir -p "$subs"
    gpus_class || return 1
    gpus_grade_twice || return 1
    gpus_same_students
    gpus_same_correctness
    gpus_every_worker_used
    return 0
}

gpus_suite
gpus_rc=$?
if [ "${gpus_standalone:-0}" = 1 ] && [ "$gpus_rc" = 77 ]; then
    trap - EXIT
    standalone_summary
    exit 77
fi
