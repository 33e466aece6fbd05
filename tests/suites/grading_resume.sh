# A grading run cut short and resumed (sourced by tests/run_tests.sh; also runs on its own:
# `bash tests/suites/grading_resume.sh`). No GPU needed: lab 01's reference and two corpus cases
# (tests/grading/01/*.patch), with a roster, are graded with --compile-only and one seed, once
# whole; once killed with SIGKILL right after its first submission's record was written (before
# any file was made from it: GRADING_KILL_AFTER_RECORDS=1), then resumed and killed again with
# kill -9 from outside while it builds, then resumed to the end. The resumed folder's gradebook,
# feedback, LMS files and summary must be the whole run's, byte for byte, its audit log too but for
# each line's graded_at, and its results/ but for execution_time. The resumed run keeps the date
# it began, the submission graded before the cut keeps its own, and its leaderboard states the
# newest submission's date. Meanwhile another run into that folder is refused, and an --out that
# cannot be written stops a run before anything is built.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

resume_dir=$BUILD/test-logs/grading-resume
resume_subs=$resume_dir/submissions
resume_seed=4343
resume_ok=1
if [ ! -f solutions/01-vector-add/vector_add.cu ] || [ ! -x grading/grade ]; then
    skip "resumed grading" "needs the grader and lab 01's reference solution (not in the student edition)"
    resume_ok=0
elif ! command -v patch > /dev/null; then
    fail "resumed grading" "the class is made with GNU patch (Debian package patch)"
    resume_ok=0
fi
rm -rf "$resume_dir"
for resume_case in reference compile_error wrong_answer; do
    [ "$resume_ok" = 1 ] || break
    mkdir -p "$resume_subs/$resume_case"
    cp solutions/01-vector-add/vector_add.cu "$resume_subs/$resume_case/"
    [ "$resume_case" = reference ] && continue
    if ! patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$resume_subs/$resume_case/vector_add.cu" \
            < "tests/grading/01/$resume_case.patch" > /dev/null 2>&1; then
        fail "resumed grading: the class" "tests/grading/01/$resume_case.patch no longer applies"
        resume_ok=0
    fi
done

# The files a run writes, compared with the whole run's: the same bytes, but results/ (each
# submission's execution_time is its own run's) and the audit log's dates (each line's graded_at).
resume_same_files() {
    local name=$1 whole=$2 resumed=$3 differ="" f
    for f in gradebook.csv summary.txt lms-canvas.csv lms-moodle.csv roster.txt; do
        cmp -s "$whole/$f" "$resumed/$f" || differ="$differ $f"
    done
    same_audit_but_dates "$whole/audit.jsonl" "$resumed/audit.jsonl" || differ="$differ audit.jsonl"
    diff -r "$whole/feedback" "$resumed/feedback" > /dev/null || differ="$differ feedback/"
    for f in "$whole"/results/*.json; do
        diff <(grep -v '"execution_time":' "$f") <(grep -v '"execution_time":' "$resumed/results/$(basename "$f")" 2> /dev/null) > /dev/null ||
            differ="$differ results/$(basename "$f")"
    done
    [ "$(ls "$whole/results" | wc -l)" = "$(ls "$resumed/results" | wc -l)" ] || differ="$differ results/(count)"
    if [ -z "$differ" ]; then pass "$name"; else fail "$name" "differ:$differ"; fi
}

# The resumed run's dates: its run line's when the cut run began, the submission recorded before
# the cut its own, the others' later; its leaderboard states the newest, not the audit log's file time.
resume_dates_check() {
    local cut=$resume_dir/cut student d newest="" wrong=""
    [ -n "$resume_began" ] && [ "$(audit_date "$cut/audit.jsonl" run)" = "$resume_began" ] || wrong="$wrong run-line"
    [ -n "$resume_kept_at" ] && [ "$(audit_date "$cut/audit.jsonl" submission "$resume_kept")" = "$resume_kept_at" ] || wrong="$wrong $resume_kept"
    for student in $(ls "$resume_subs"); do
        d=$(audit_date "$cut/audit.jsonl" submission "$student")
        [ "$student" = "$resume_kept" ] || [[ "$d" > "$resume_kept_at" ]] || wrong="$wrong $student"
        [[ "$d" > "$newest" ]] && newest=$d
    done
    if [ -z "$wrong" ]; then pass "resumed grading: the run keeps the date it began and the kept submission its own; the others are later"
    else fail "resumed grading: the run keeps the date it began and the kept submission its own; the others are later" \
        "wrong:$wrong (began $resume_began, $resume_kept at $resume_kept_at)"; fi
    leaderboard_states_date "resumed grading: the resumed run" "$cut" "$newest"
}

if [ "$resume_ok" = 1 ]; then
    printf 'id,name,email,section\nreference,Ada Ref,ada@example.edu,A\ncompile_error,Bo Err,bo@example.edu,A\nwrong_answer,Cy Wrong,cy@example.edu,B\n' \
        > "$resume_dir/roster.csv"
    resume_grade=(grading/grade --lab 01 --compile-only --seed "$resume_seed" --roster "$resume_dir/roster.csv" --jobs 2)

    # Unwritable --out: one sentence, before anything is built (no make, no compiler).
    touch "$resume_dir/a-file"
    expect "resumed grading: an --out under a file is refused before any build" 2 'give --out a folder you can write to' \
        "${resume_grade[@]}" --out "$resume_dir/a-file/out" "$resume_subs"
    printf '%s\n' "$err" | grep -q 'building the trusted tree' && fail "resumed grading: nothing is built for an unwritable --out" "it built first"
    expect "resumed grading: an --out that is a file is refused" 2 'give --out a folder you can write to' \
        "${resume_grade[@]}" --out "$resume_dir/a-file" "$resume_subs"
    expect "resumed grading: --resume of a folder that holds no run is refused" 2 'nothing to resume' \
        grading/grade --resume "$resume_dir/nothing"
    expect "resumed grading: --resume takes no other option" 2 'give only --resume OUT' \
        grading/grade --resume "$resume_dir/cut" --seed 5

    expect "resumed grading: the whole run" 0 'results: ' "${resume_grade[@]}" --out "$resume_dir/whole" "$resume_subs"
    whole_ok=$([ "$rc" -eq 0 ] && echo 1 || echo 0)

    # Killed right after the first record: the record is there, none of its files.
    run_capture "resumed grading: killed after its first record" env GRADING_KILL_AFTER_RECORDS=1 \
        "${resume_grade[@]}" --out "$resume_dir/cut" "$resume_subs"
    records=$(ls "$resume_dir/cut/.resume/submissions" 2> /dev/null | grep -c '\.json$')
    if [ "$rc" -eq 137 ] && [ "$records" -eq 1 ]; then pass "resumed grading: killed (SIGKILL) with one submission recorded"
    else fail "resumed grading: killed (SIGKILL) with one submission recorded" "exit $rc, $records records"; fi
    # When the cut run began grading, and when its one submission was graded: a resume keeps both.
    resume_began=$(audit_date "$resume_dir/cut/audit.jsonl" run)
    resume_kept=$(ls "$resume_dir/cut/.resume/submissions" 2> /dev/null | sed -n 's/\.json$//p' | head -n 1)
    resume_kept_at=$(python3 -c 'import json, sys; print(json.loads(json.load(open(sys.argv[1]))["audit_line"]).get("graded_at", ""))' \
        "$resume_dir/cut/.resume/submissions/$resume_kept.json" 2> /dev/null)
    sleep 1  # a run line made anew would have a later date

    expect "resumed grading: another seed into the unfinished folder is refused" 2 'holds the unfinished results of another run' \
        grading/grade --lab 01 --compile-only --seed 999 --roster "$resume_dir/roster.csv" --out "$resume_dir/cut" "$resume_subs"
    expect "resumed grading: --resume OUT with other options is refused" 2 'give only --resume OUT' \
        grading/grade --resume "$resume_dir/cut" --lab 02

    # kill -9 from outside while the resumed run builds what was not recorded: one build at a
    # time, killed once the first has ended (the other takes seconds). The grading goes on beside
    # the builds, so the submission just built may be recorded by then too, never the last.
    grading/grade --resume "$resume_dir/cut" --jobs 1 > "$resume_dir/killed.out" 2> "$resume_dir/killed.err" < /dev/null &
    resume_pid=$!
    for _ in $(seq 1 1200); do
        grep -qE 'built .*: ok' "$resume_dir/killed.err" 2> /dev/null && break
        kill -0 "$resume_pid" 2> /dev/null || break
        sleep 0.1
    done
    kill -9 "$resume_pid" 2> /dev/null
    wait "$resume_pid" 2> /dev/null
    records=$(ls "$resume_dir/cut/.resume/submissions" | grep -c '\.json$') class_size=$(ls "$resume_subs" | grep -c .)
    if ! grep -q 'results: ' "$resume_dir/killed.out" && [ "$records" -ge 1 ] && [ "$records" -lt "$class_size" ]; then
        pass "resumed grading: the resumed run killed (kill -9) while it builds, its records kept ($records of $class_size)"
    else fail "resumed grading: the resumed run killed (kill -9) while it builds, its records kept" "it was not cut midway ($records records)"; fi
    if grep -q "with its seed $resume_seed (recorded when it began); 1 submission graded before it stopped is kept" "$resume_dir/killed.err"; then
        pass "resumed grading: the resumed run says it reuses the recorded seed and keeps the recorded submission"
    else fail "resumed grading: the resumed run says it reuses the recorded seed and keeps the recorded submission" "$(tail -n 2 "$resume_dir/killed.err" | tr '\n' ' ')"; fi

    expect "resumed grading: --resume finishes the run" 0 "resuming the run begun in .* with its seed $resume_seed" \
        grading/grade --resume "$resume_dir/cut"
    if [ "$rc" -eq 0 ] && [ "$whole_ok" = 1 ]; then
        resume_same_files "resumed grading: the resumed run's files are the whole run's" "$resume_dir/whole" "$resume_dir/cut"
        resume_dates_check
        expect "resumed grading: a finished run has nothing to resume" 2 'has finished: there is nothing to resume' \
            grading/grade --resume "$resume_dir/cut"
    fi
fi
