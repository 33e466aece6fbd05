# A class graded in shards and merged (sourced by tests/run_tests.sh; also runs on its own:
# `bash tests/suites/grading_shard.sh`). No GPU needed: lab 01's reference and four corpus cases
# (tests/grading/01/*.patch) are graded with --compile-only and one seed, once whole and once as 3
# shards (grading/grade --shard K/3) merged with grading/grade merge; the merged feedback,
# gradebook and summary must be the single run's, byte for byte, its audit log too but for each
# line's graded_at, and its results/ but for each submission's execution_time (each run's own).
# The merged run is dated by its latest shard, each submission by the shard that graded it, and
# its leaderboard states the newest of those dates however the files' times move. The merge must
# refuse a missing and a duplicated shard.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

shard_dir=$BUILD/test-logs/grading-shard
shard_class_ok=0
grading_class_ready "sharded grading" patch && shard_class_ok=1
shard_subs=$shard_dir/submissions
shard_seed=4242
rm -rf "$shard_dir"
[ "$shard_class_ok" = 1 ] && mkdir -p "$shard_subs/reference" && cp solutions/01-vector-add/vector_add.cu "$shard_subs/reference/"
for shard_case in wrong_answer compile_error defines_main forbidden_cublas; do
    [ "$shard_class_ok" = 1 ] || break
    mkdir -p "$shard_subs/$shard_case"
    cp solutions/01-vector-add/vector_add.cu "$shard_subs/$shard_case/"
    if ! patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$shard_subs/$shard_case/vector_add.cu" \
            < "tests/grading/01/$shard_case.patch" > /dev/null 2>&1; then
        fail "sharded grading: the class" "tests/grading/01/$shard_case.patch no longer applies"
        shard_class_ok=0
    fi
done

# The merged run's dates: its run line's the latest shard's, each submission's its shard's; its
# leaderboard states the newest submission's, after the audit log's file time is moved. (Merged
# again with the first shard, graded first, given first: its date is not the merged run's.)
shard_dates_check() {
    local latest="" k d f student wrong="" newest=""
    grading/grade merge "$shard_dir/merged-dates" "$shard_dir/shard-0" "$shard_dir/shard-1" "$shard_dir/shard-2" > /dev/null 2>&1 ||
        wrong="$wrong merge"
    for k in 0 1 2; do
        d=$(audit_date "$shard_dir/shard-$k/audit.jsonl" run)
        [[ "$d" > "$latest" ]] && latest=$d
    done
    [ -n "$latest" ] && [ "$(audit_date "$shard_dir/merged-dates/audit.jsonl" run)" = "$latest" ] || wrong="$wrong run-line"
    for f in "$shard_dir"/single/feedback/*.md; do
        student=$(basename "$f" .md)
        d=""
        for k in 0 1 2; do
            [ -f "$shard_dir/shard-$k/feedback/$student.md" ] && d=$(audit_date "$shard_dir/shard-$k/audit.jsonl" submission "$student")
        done
        [ -n "$d" ] && [ "$(audit_date "$shard_dir/merged-dates/audit.jsonl" submission "$student")" = "$d" ] || wrong="$wrong $student"
        [[ "$d" > "$newest" ]] && newest=$d
    done
    if [ -z "$wrong" ]; then pass "sharded grading: the merged run is dated by its latest shard, each submission by its own shard"
    else fail "sharded grading: the merged run is dated by its latest shard, each submission by its own shard" "wrong:$wrong"; fi
    leaderboard_states_date "sharded grading: the merged run" "$shard_dir/merged-dates" "$newest"
}

if [ "$shard_class_ok" = 1 ]; then
    expect "sharded grading: --shard without --seed is refused" 2 'needs --seed' \
        grading/grade --lab 01 --compile-only --shard 0/3 --out "$shard_dir/noseed" "$shard_subs"
    expect "sharded grading: a bad --shard is refused" 2 'must be below N' \
        grading/grade --lab 01 --compile-only --seed "$shard_seed" --shard 3/3 --out "$shard_dir/bad" "$shard_subs"
    expect "sharded grading: the whole class in one run" 0 'results: ' \
        grading/grade --lab 01 --compile-only --seed "$shard_seed" --out "$shard_dir/single" "$shard_subs"
    # A compile-only pass is no grade: the reference (it builds and passes the audit) reads as
    # such in every file, with no total a student could take for one.
    if [ -d "$shard_dir/single/feedback" ]; then
        verdict='build and audit passed; tests not run (run the grader on a GPU for the score)'
        wording=""
        grep -qF "Score: **$verdict**" "$shard_dir/single/feedback/reference.md" || wording="$wording feedback"
        grep -qF "$verdict" "$shard_dir/single/summary.txt" || wording="$wording summary"
        grep -E '^reference ' "$shard_dir/single/summary.txt" | grep -qE '[0-9]+/[0-9]+' && wording="$wording summary-total"
        python3 tests/tools/check_compile_only_results.py "$shard_dir/single" "$verdict" || wording="$wording gradebook/results.json"
        if [ -z "$wording" ]; then pass "compile-only: summary, feedback, gradebook and results.json say it is no grade"
        else fail "compile-only: summary, feedback, gradebook and results.json say it is no grade" "wrong in:$wording"; fi
    fi
    shards_ok=1
    for k in 0 1 2; do
        expect "sharded grading: shard $k/3" 0 "shard $k/3: " \
            grading/grade --lab 01 --compile-only --seed "$shard_seed" --shard "$k/3" --out "$shard_dir/shard-$k" "$shard_subs"
        [ "$rc" -eq 0 ] || shards_ok=0
    done
    if [ "$shards_ok" = 1 ] && [ -d "$shard_dir/single/feedback" ]; then
        # Every student in exactly one shard.
        spread=""
        for f in "$shard_dir"/single/feedback/*.md; do
            n=$(ls "$shard_dir"/shard-*/feedback/"$(basename "$f")" 2> /dev/null | wc -l)
            [ "$n" -eq 1 ] || spread="$spread $(basename "$f" .md):$n"
        done
        if [ -z "$spread" ]; then pass "sharded grading: every student is in exactly one shard"
        else fail "sharded grading: every student is in exactly one shard" "student:shards$spread"; fi

        expect "sharded grading: merge names a missing shard" 2 'shard 1 of 3 is missing' \
            grading/grade merge "$shard_dir/merged-missing" "$shard_dir/shard-0" "$shard_dir/shard-2"
        expect "sharded grading: merge refuses a shard given twice" 2 'shard 1/3 is given twice' \
            grading/grade merge "$shard_dir/merged-twice" "$shard_dir/shard-0" "$shard_dir/shard-1" "$shard_dir/shard-1" "$shard_dir/shard-2"
        expect "sharded grading: merge" 0 'results: ' \
            grading/grade merge "$shard_dir/merged" "$shard_dir/shard-2" "$shard_dir/shard-0" "$shard_dir/shard-1"
        if [ "$rc" -eq 0 ]; then
            for f in gradebook.csv summary.txt; do
                if cmp -s "$shard_dir/single/$f" "$shard_dir/merged/$f"; then pass "sharded grading: merged $f is the single run's"
                else fail "sharded grading: merged $f is the single run's" "$(diff "$shard_dir/single/$f" "$shard_dir/merged/$f" | head -n 4 | tr '\n' ' ')"; fi
            done
            # audit.jsonl: the same but for each line's graded_at (when it was written, in whichever run).
            if same_audit_but_dates "$shard_dir/single/audit.jsonl" "$shard_dir/merged/audit.jsonl"; then
                pass "sharded grading: merged audit.jsonl is the single run's (but graded_at)"
            else fail "sharded grading: merged audit.jsonl is the single run's (but graded_at)" \
                "$(diff <(audit_dates_masked "$shard_dir/single/audit.jsonl") <(audit_dates_masked "$shard_dir/merged/audit.jsonl") | head -n 4 | tr '\n' ' ')"; fi
            shard_dates_check
            if d=$(diff -r "$shard_dir/single/feedback" "$shard_dir/merged/feedback"); then pass "sharded grading: merged feedback/ is the single run's"
            else fail "sharded grading: merged feedback/ is the single run's" "$(echo "$d" | head -n 4 | tr '\n' ' ')"; fi
            # results/STUDENT.json: the same but for execution_time (each run's own duration).
            results_diff=""
            for f in "$shard_dir"/single/results/*.json; do
                m=$shard_dir/merged/results/$(basename "$f")
                if [ ! -f "$m" ] || ! diff <(grep -v '"execution_time":' "$f") <(grep -v '"execution_time":' "$m") > /dev/null; then
                    results_diff="$results_diff $(basename "$f")"
                fi
            done
            [ "$(ls "$shard_dir/single/results" | wc -l)" = "$(ls "$shard_dir/merged/results" | wc -l)" ] || results_diff="$results_diff (file count)"
            if [ -z "$results_diff" ]; then pass "sharded grading: merged results/ are the single run's (but execution_time)"
            else fail "sharded grading: merged results/ are the single run's (but execution_time)" "differ:$results_diff"; fi
            if [ -f "$shard_dir/shard-1/shard.json" ] && [ -f "$shard_dir/shard-1/gradebook.csv" ]; then pass "sharded grading: merge leaves the shards' folders"
            else fail "sharded grading: merge leaves the shards' folders" "shard-1 lost its files"; fi
        fi
    fi
fi

