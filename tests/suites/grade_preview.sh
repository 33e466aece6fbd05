# The grade preview (tools/grade_preview.py, make check LAB=NN), sourced by tests/run_tests.sh;
# alone: bash tests/suites/grade_preview.sh. No GPU needed: fake lab programs stand for one
# without a GPU and for one that passes every row, and fixture results (--json-from) for runs:
# every row passing (full points), rows failing (per_row in proportion, all_or_nothing none),
# the rubric's hidden sizes never shown nor read, a rubric without visible tests; make check of
# a lab that does not exist. The grader's verdict: its build and audit (grading/grade
# --compile-only, with nvcc), and its audit alone (grading/audit, where there is no grader), keep
# the reference's points and zero corpus cases it refuses (the audit alone gives every case of the
# grader's build corpus its verdict); a fake grader stands for its runs on a
# GPU (a test it scores lower previews its score), for one that finds no GPU, and a missing grader
# and audit are said. With a GPU: lab 01's solution (every point), starter
# (none), and a corpus case the grader's runs zero for copies through the host.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# grade_preview_passing TMP NN: TMP/passNN, lab NN's visible correctness tests with every row
# passing (one size, 64), as ./labNN --json writes them, and a description of its variants.
grade_preview_passing() {
    "$py" tests/tools/passing_results.py "grading/rubrics/$2.rubric" "$1/pass$2" --describe --lab "$2"
}

# grade_preview_audit TMP [audit]: the suite's section 8, the grader's build and audit of
# reference solutions and of corpus cases it refuses, each previewed from rows that all pass; with
# "audit", by the grader's audit alone (grading/audit), as where there is no grader.
grade_preview_audit() {
    local tmp=$1 nn case file want reason rows sol expected by="the grader's audit" only=()
    [ "${2:-}" = audit ] && { by="the grader's audit alone (grading/audit)"; only=(--grader "$tmp/no-grader"); }
    if ! command -v "${NVCC:-nvcc}" > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        skip "grade preview with the grader's audit" "no nvcc"; return
    fi
    [ -x grading/grade ] && [ -d solutions ] \
        || { skip "grade preview with the grader's audit" "no grader or solutions in this edition"; return; }
    # LAB  CASE  PATCH  pattern of the grader's reason (CASE reference: the solution)
    while read -r nn case file want; do
        sol=$(ls solutions/"$nn"-*/*.cu | grep -v '/driver\.cu$')
        [ -d "$tmp/pass$nn" ] || grade_preview_passing "$tmp" "$nn"
        local gp=("$py" tools/grade_preview.py --lab "$nn" --json-from "$tmp/pass$nn" "${only[@]}")
        if [ "$case" = reference ]; then
            run_capture "grade preview of lab $nn's reference with $by" "${gp[@]}" --file "$sol"
            if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -qE '^Previewed: ([0-9.]+) of \1 points\.$' \
                && printf '%s' "$out" | grep -q "^The grader's audit passed (forbidden libraries and calls, imports, line directives);"; then
                pass "grade preview of lab $nn's reference with $by: every previewed point ($(printf '%s' "$out" | grep '^Previewed'))"
            else fail "grade preview of lab $nn's reference with $by" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 6)"; fi
            continue
        fi
        if [[ $file == tests/grading/build/*.patch ]]; then
            grep -qE "^$case +reject " tests/grading/build/expected.txt \
                || { fail "grade preview of corpus case $case" "tests/grading/build/expected.txt no longer says the grader refuses it"; continue; }
            mkdir -p "$tmp/$case"
            patched_copy "$file" "$(patch_base "$file")" "$tmp/$case/vector_add.cu" > /dev/null \
                || { fail "grade preview of corpus case $case" "$file does not apply"; continue; }
            file=$tmp/$case/vector_add.cu
        elif [[ $file == *.patch ]]; then
            expected="^$case +rejected=yes total=0 " && grep -qE "$expected" "tests/grading/$nn/expected.txt" \
                || { fail "grade preview of corpus case $case" "tests/grading/$nn/expected.txt no longer says the grader refuses it"; continue; }
            mkdir -p "$tmp/$case" && cp "$sol" "$tmp/$case/"
            patch --batch --fuzz=0 -s "$tmp/$case/$(basename "$sol")" < "$file" \
                || { fail "grade preview of corpus case $case" "$file does not apply"; continue; }
            file=$tmp/$case/$(basename "$sol")
        fi
        run_capture "grade preview of corpus case $case" "${gp[@]}" --file "$file"
        reason=$(printf '%s' "$out" | grep '^The grader refuses your file, so each of its tests gives 0: ')
        rows=$(printf '%s' "$out" | grep -E '^(Correctness|Memory safety|Performance)')
        if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -qE '^Previewed: 0 of [0-9.]+ points\.$' \
            && [ -n "$rows" ] && ! printf '%s\n' "$rows" | grep -vqE '  0  \(the grader refuses your file: below\)$' \
            && printf '%s' "$reason" | grep -qE -- "$want"; then
            pass "grade preview of lab $nn's corpus case $case: refused by $by (/$want/), 0 on every visible test, exit 1"
        else fail "grade preview of corpus case $case by $by" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 6)"; fi
    done <<'EOF'
01 reference -
01 forbidden_cublas tests/grading/01/forbidden_cublas.patch 'cublasSaxpy_v2' is not allowed in this lab
01 proc_fd_write tests/grading/01/proc_fd_write.patch uses fopen, which the grader does not allow
01 reject_line_directive_macro tests/grading/build/reject_line_directive_macro.patch a macro of the file writes a line directive
13 reference -
13 cub_dot_slash tests/grading/13/cub_dot_slash.patch 'cub' is not allowed in this lab
EOF
}

# grade_preview_build_corpus TMP: the grader's audit alone (grading/audit) on every case of the
# grader's build corpus (tests/grading/build/, a lab 01 file each): the verdict that
# tests/grading/build/expected.txt gives the grader's own build and audit (accept, or reject with a
# reason matching its pattern), so that the preview's audit where there is no grader refuses what
# the grader refuses, and nothing else. The first case builds what the audit needs; the others are
# audited one per CPU at once (each is an nvcc build of its own, in a folder of its own).
grade_preview_build_corpus() {
    local tmp=$1 name verdict pattern file got wrong="" names=()
    if ! command -v "${NVCC:-nvcc}" > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        skip "the grader's audit alone on the build corpus" "no nvcc"; return
    fi
    [ -x grading/audit ] && [ -f tests/grading/build/expected.txt ] \
        || { skip "the grader's audit alone on the build corpus" "no grading/audit or build corpus in this edition"; return; }
    while read -r name verdict pattern; do
        [[ -z $name || $name == \#* ]] && continue
        names+=("$name")
        mkdir -p "$tmp/corpus/$name"
        if [ -f "tests/grading/build/$name.patch" ]; then
            file=$tmp/corpus/$name/vector_add.cu
            patched_copy "tests/grading/build/$name.patch" "$(patch_base "tests/grading/build/$name.patch")" "$file" > /dev/null \
                || : > "$tmp/corpus/$name/unpatched"
        else
            file=$(ls "tests/grading/build/$name"/*.cu | head -n1)
        fi
        printf '%s\n' "$file" > "$tmp/corpus/$name/file"
    done < tests/grading/build/expected.txt
    # grade_preview_audit_one DIR: DIR/said and DIR/err, the audit of the file DIR/file names.
    grade_preview_audit_one() {
        [ -f "$1/unpatched" ] || grading/audit --lab 01 --rubric grading/rubrics/01.rubric "$(cat "$1/file")" > "$1/said" 2> "$1/err"
    }
    [ "${#names[@]}" -gt 0 ] && grade_preview_audit_one "$tmp/corpus/${names[0]}"
    export -f grade_preview_audit_one
    [ "${#names[@]}" -gt 1 ] && printf '%s\0' "${names[@]:1}" \
        | xargs -0 -n 1 -P "$(nproc)" bash -c 'grade_preview_audit_one "$0/$1"' "$tmp/corpus"
    while read -r name verdict pattern; do
        [[ -z $name || $name == \#* ]] && continue
        [ -f "$tmp/corpus/$name/unpatched" ] && { wrong="$wrong $name (the patch does not apply)"; continue; }
        got=$("$py" -c 'import json, sys; v = json.load(open(sys.argv[1])); print("accept" if v["passed"] else "reject " + v["rejected"])' "$tmp/corpus/$name/said" 2> /dev/null)
        if [ "$verdict" = accept ] && [ "$got" = accept ]; then continue; fi
        if [ "$verdict" = reject ] && [[ $got == reject* ]] && printf '%s' "${got#reject }" | grep -qE -- "$pattern"; then continue; fi
        wrong="$wrong $name (expected $verdict, got ${got:0:120}${got:+; }$(tail -n1 "$tmp/corpus/$name/err" 2> /dev/null | head -c 120))"
    done < tests/grading/build/expected.txt
    if [ "${#names[@]}" -gt 0 ] && [ -z "$wrong" ]; then
        pass "the grader's audit alone (grading/audit) gives all ${#names[@]} cases of the grader's build corpus the grader's verdict and reason"
    else fail "the grader's audit alone on the build corpus" "${wrong:0:600}"; fi
}

# The fixtures in $tmp: lab 01's description, a rubric (hidden sizes 255, 4097, 33333 beside the
# check sizes; one all-or-nothing test; a sanitizer test; a test shown after the due date), and
# results as ./lab01 --json writes them: every row passing in $tmp/pass, rows failing in $tmp/fail.
grade_preview_fixtures() {
    cp tests/fixtures/grade_preview/describe.json tests/fixtures/grade_preview/01.rubric "$tmp/"
    mkdir -p "$tmp/pass" "$tmp/fail"
    cp "$tmp/describe.json" "$tmp/pass/" && cp "$tmp/describe.json" "$tmp/fail/"
    "$py" tests/tools/lab01_results.py "$tmp/pass/correct_host.json" host
    "$py" tests/tools/lab01_results.py "$tmp/pass/correct_simple.json" simple
    "$py" tests/tools/lab01_results.py "$tmp/pass/correct_fast.json" fast
    "$py" tests/tools/lab01_results.py "$tmp/fail/correct_host.json" host
    "$py" tests/tools/lab01_results.py "$tmp/fail/correct_simple.json" simple 997 missing
    "$py" tests/tools/lab01_results.py "$tmp/fail/correct_fast.json" fast 65537
}

# 1. No GPU: what needs none is checked (the build and the grader's audit, the rules named), one
#    sentence says the tests need a GPU, the file to hand in, exit 77; nothing previewed. Here
#    without a grader or its audit, which the output says.
grade_preview_without_gpu() {
    local prog s
    prog=$tmp/fakelab
    printf '#!/bin/sh\n[ "$1" = --describe ] && exec cat "%s"\necho "fakelab: no usable CUDA GPU (test)." >&2\nexit 77\n' "$tmp/describe.json" > "$prog"
    chmod +x "$prog"
    run_capture "grade preview without a GPU" "${gp[@]}" --rubric "$tmp/01.rubric" --program "$prog" \
        --grader "$tmp/no-grader" --auditor "$tmp/no-audit"
    if [ "$rc" -eq 77 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] \
        && [[ $err == *"the tests need a GPU, and there is no usable CUDA GPU here (fakelab: no usable CUDA GPU (test)), so they were not run."* ]] \
        && printf '%s\n' "$out" | grep -q "^Not checked: the build and the grader's audit: this copy of the course has neither" \
        && [ "$(printf '%s\n' "$out" | tail -n1)" = "$hand_in" ]; then
        pass "grade preview without a GPU: the audit it could not run said, one sentence for the tests, the file to hand in, exit 77"
    else fail "grade preview without a GPU" "exit $rc; stdout: ${out:0:300}; stderr: ${err:0:200}"; fi
    for s in lab01 sol01; do
        if [ ! -x "./$s" ] || [ "$gpu" = 1 ]; then continue; fi
        run_capture "grade preview of ./$s without a GPU" "${gp[@]}" --program "./$s"
        if [ "$rc" -eq 77 ] && [[ $err == *"the tests need a GPU"* ]] && [ "$(printf '%s\n' "$out" | tail -n1)" = "$hand_in" ]; then
            pass "grade preview of ./$s without a GPU: exit 77, the file to hand in"
        else fail "grade preview of ./$s without a GPU" "exit $rc: ${err:0:200}"; fi
    done
    grade_preview_without_gpu_audit "$prog"
}

# grade_preview_without_gpu_audit PROGRAM: without a GPU (PROGRAM exits 77), the grader's audit
# alone (grading/audit, nvcc) still judges the file: the starter passes it, the rules it checked
# named, exit 77; a lab 01 file calling cublasSgemm (tests/fixtures/grade_preview/sgemm/) is
# refused, with the call named, exit 1.
grade_preview_without_gpu_audit() {
    local prog=$1 fixture=tests/fixtures/grade_preview/sgemm/vector_add.cu
    if ! command -v "${NVCC:-nvcc}" > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        skip "grade preview without a GPU, the audit" "no nvcc"; return
    fi
    [ -x grading/audit ] || { skip "grade preview without a GPU, the audit" "no grading/audit in this edition"; return; }
    run_capture "grade preview without a GPU, the starter audited" "${gp[@]}" --program "$prog" \
        --grader "$tmp/no-grader" --file labs/01-vector-add/vector_add.cu
    if [ "$rc" -eq 77 ] && printf '%s\n' "$out" | grep -qF "Passed: the build with the lab's driver and the grader's audit (forbidden libraries and calls: cublas*, " \
        && [[ $(printf '%s\n' "$err" | tail -n1) == *"the tests need a GPU"* ]]; then
        pass "grade preview without a GPU: the starter built and audited, the rules named, exit 77"
    else fail "grade preview without a GPU, the starter audited" "exit $rc; stdout: ${out:0:400}; stderr: $(printf '%s' "$err" | tail -n 3)"; fi
    run_capture "grade preview without a GPU, a cublasSgemm call" "${gp[@]}" --program "$prog" \
        --grader "$tmp/no-grader" --file "$fixture"
    if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q "^The build and the grader's audit refuse your file, so each of its tests gives 0: .*cublasSgemm" \
        && [ "$(printf '%s\n' "$out" | tail -n1)" = "$hand_in" ]; then
        pass "grade preview without a GPU refuses a file calling cublasSgemm (the call named), exit 1"
    else fail "grade preview without a GPU, a cublasSgemm call" "exit $rc; stdout: ${out:0:400}; stderr: $(printf '%s' "$err" | tail -n 3)"; fi
}

# 2. Every row passes: every previewed point, the other tests said not previewed.
grade_preview_rows_pass() {
    run_capture "grade preview, all rows pass" "${gp[@]}" --no-audit --rubric "$tmp/01.rubric" --json-from "$tmp/pass"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^Previewed: 73 of 73 points\.$' \
        && printf '%s' "$out" | grep -qE '^Correctness: simple +28  28  \(7 of 7 rows pass\)$' \
        && printf '%s' "$out" | grep -qE '^Memory safety: memcheck +15  not previewed \(the grader runs it\)$' \
        && printf '%s' "$out" | grep -q '^PREVIEW — the grader also uses sizes and seeds it does not show' \
        && printf '%s' "$out" | grep -q "^$hand_in\$" \
        && printf '%s' "$out" | grep -q '^Not shown here: 12 points in 1 test' \
        && ! printf '%s' "$out" | grep -q 'secret'; then
        pass "grade preview, all rows pass: 73 of 73 points, memcheck not previewed, marked PREVIEW, file named"
    else fail "grade preview, all rows pass" "exit $rc: $(printf '%s' "$out" | head -n 12)"; fi
}

# 2b. The same through runs of a program (a fake one, tests/fixtures/grade_preview/passing_lab.py:
#     every row it is asked for passes): each visible correctness test runs it once, at the lab's
#     check sizes only.
grade_preview_through_runs() {
    local prog=$tmp/fakegpu
    cp tests/fixtures/grade_preview/passing_lab.py "$prog"
    chmod +x "$prog"
    run_capture "grade preview through runs of a program" "${gp[@]}" --no-audit --rubric "$tmp/01.rubric" --program "$prog"
    local v runs=0
    for v in host simple fast; do
        grep -qxE -- "--variant $v --size 1,7,997,1000,65537,1000003,16777219 --json [^ ]+ --reps 1 --guard-buffers" \
            "$tmp/args.log" 2> /dev/null && runs=$((runs + 1))
    done
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^Previewed: 73 of 73 points\.$' \
        && [ "$runs" -eq 3 ] && [ "$(wc -l < "$tmp/args.log")" -eq 3 ]; then
        pass "grade preview runs the program once per visible correctness test, at the check sizes: 73 of 73 points"
    else fail "grade preview through runs of a program" "exit $rc: $(head -n 3 "$tmp/args.log" 2> /dev/null) ${err:0:200}"; fi
}

# 3. Failures: per_row in proportion (5 of 7 rows: 20), all_or_nothing nothing; exit 1; and 4,
#    in that preview, the rubric's hidden sizes: never shown, never read.
grade_preview_rows_fail() {
    local leaked s
    run_capture "grade preview, rows fail" "${gp[@]}" --no-audit --rubric "$tmp/01.rubric" --json-from "$tmp/fail"
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q '^Previewed: 40 of 73 points\.$' \
        && printf '%s' "$out" | grep -qE '^Correctness: host +20  20  \(7 of 7 rows pass\)$' \
        && printf '%s' "$out" | grep -qE '^Correctness: simple +28  20  \(5 of 7 rows pass; first failure: simple at 997: element 3 is 0, expected 2\)$' \
        && printf '%s' "$out" | grep -qE '^Correctness: fast +25  0  \(6 of 7 rows pass, all or nothing; first failure: fast at 65537' \
        && printf '%s' "$out" | grep -q "^$hand_in\$"; then
        pass "grade preview, rows fail: per_row 20 of 28 (a missing row fails), all_or_nothing 0 of 25, exit 1"
    else fail "grade preview, rows fail" "exit $rc: $(printf '%s' "$out" | head -n 12)"; fi

    # 4. The rubric's hidden sizes: never shown, never read (the same output without them).
    leaked=""
    for s in 255 4097 33333 257 4099 16777216 3000000; do
        printf '%s\n%s' "$out" "$err" | grep -qw -- "$s" && leaked="$leaked $s"
    done
    sed '/^ *\(sizes\|size\|random_sizes\) *=/d' "$tmp/01.rubric" > "$tmp/nosizes.rubric"
    local with_sizes=$out
    run_capture "grade preview of a rubric without sizes" "${gp[@]}" --no-audit --rubric "$tmp/nosizes.rubric" --json-from "$tmp/fail"
    if [ -z "$leaked" ] && [ "${out//nosizes/01}" = "$with_sizes" ]; then
        pass "grade preview shows none of the rubric's hidden sizes, and gives the same preview without them"
    else fail "grade preview hides the rubric's hidden sizes" "shown:${leaked:- none}; same without sizes: $([ "${out//nosizes/01}" = "$with_sizes" ] && echo yes || echo no)"; fi
}

# 4b. The hidden sizes of the real rubric of lab 01, whatever it holds, are never shown either.
grade_preview_real_rubric() {
    local hidden leaked s
    if [ -f grading/rubrics/01.rubric ]; then
        run_capture "grade preview of grading/rubrics/01.rubric" "${gp[@]}" --json-from "$tmp/pass"
        hidden=$("$py" tests/tools/rubric_hidden_sizes.py grading/rubrics/01.rubric "$tmp/describe.json")
        # Sizes of three digits or more anywhere (1 to 99 could be points); all in the size list.
        leaked=""
        for s in $hidden; do
            if [ ${#s} -ge 3 ] && printf '%s\n%s' "$out" "$err" | grep -qw -- "$s"; then leaked="$leaked $s"; fi
        done
        if { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && [ -n "$hidden" ] && [ -z "$leaked" ] \
            && printf '%s' "$out" | grep -q '^Grade preview of lab 01: .* shows (1, 7, 997, 1000, 65537, 1000003, 16777219)$' \
            && printf '%s' "$out" | grep -q '^Previewed: '; then
            pass "grade preview of grading/rubrics/01.rubric shows only the check sizes, none of its $(echo "$hidden" | wc -w) hidden sizes"
        else fail "grade preview of grading/rubrics/01.rubric hides its hidden sizes" "exit $rc; shown:${leaked:- none}"; fi
    fi
}

# 4b. The answers file (tools/answers_preview.py): each question answered and well-formed or not,
#     from the rubric's questions test, never whether it is right nor the key; a link or a missing
#     file is said; the exit code and the last line (the file to hand in) are the preview's.
grade_preview_answers() {
    local rubric="$tmp/questions.rubric" answers="$tmp/answers.txt" ok=1
    cat "$tmp/01.rubric" > "$rubric"
    printf '\n[test questions]\nkind = questions\npoints = 6\nvisibility = after_due_date\nq1 = number 4\n' >> "$rubric"
    printf 'q2 = choice C of ABC\nq3 = number 0.5 +- 0.1\nq4 = predict correct_simple within 2\n' >> "$rubric"
    printf 'q1 = 7\nq2 = c\nq3 = x\nq4 = -1\nnotes\n' > "$answers"
    run_capture "grade preview of answers.txt" "${gp[@]}" --no-audit --rubric "$rubric" --json-from "$tmp/pass" --answers "$answers"
    printf '%s' "$out" | grep -q '^  q1: answered, well-formed (a number)$' || ok=0
    printf '%s' "$out" | grep -q '^  q2: answered, well-formed (one letter of ABC)$' || ok=0
    printf '%s' "$out" | grep -qx "  q3: 'x' is not a number" || ok=0
    printf '%s' "$out" | grep -qx "  q4: '-1' is not a positive number, your predicted ratio" || ok=0
    printf '%s' "$out" | grep -q '^  1 line(s) are not .qN = ANSWER. (first: line 5)' || ok=0
    printf '%s' "$out" | grep -qx '2 of 4 questions answered and well-formed\.' || ok=0
    printf '%s' "$out" | grep -qiE 'wrong|right \(|choice C|0\.5|answer is' && ok=0
    if [ "$ok" -eq 1 ] && [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n1)" = "$hand_in" ]; then
        pass "grade preview of answers.txt: each question answered and well-formed or not, never the key"
    else fail "grade preview of answers.txt" "exit $rc: $(printf '%s' "$out" | tail -n 9)"; fi
    ln -sf "$answers" "$tmp/linked.txt"
    run_capture "grade preview of a linked answers.txt" "${gp[@]}" --no-audit --rubric "$rubric" --json-from "$tmp/pass" --answers "$tmp/linked.txt"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'linked.txt is a symbolic link: the grader follows no link'; then
        pass "grade preview of answers.txt: a link is said, as the grader would refuse to read it"
    else fail "grade preview of a linked answers.txt" "exit $rc: $(printf '%s' "$out" | tail -n 4)"; fi
    run_capture "grade preview without answers.txt" "${gp[@]}" --no-audit --rubric "$rubric" --json-from "$tmp/pass" --answers "$tmp/none.txt"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'none.txt: write your answers there.*; each of the 4 questions would give 0'; then
        pass "grade preview of answers.txt: a missing file is said"
    else fail "grade preview without answers.txt" "exit $rc: $(printf '%s' "$out" | tail -n 4)"; fi
}

# 5. A rubric with no visible test says so.
grade_preview_no_visible_test() {
    sed 's/^visibility = .*//; /^\[test/a visibility = after_published' "$tmp/01.rubric" > "$tmp/none.rubric"
    run_capture "grade preview, no visible test" "${gp[@]}" --no-audit --rubric "$tmp/none.rubric" --json-from "$tmp/pass"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'has no visible test: nothing to preview\.$' \
        && printf '%s' "$out" | grep -q "^$hand_in\$" && ! printf '%s' "$out" | grep -q 'Previewed'; then
        pass "grade preview of a rubric without visible tests says so, and names the file"
    else fail "grade preview, no visible test" "exit $rc: $(printf '%s' "$out" | head -n 3)"; fi
}

# 6. make check: a lab that does not exist.
grade_preview_make_check() {
    expect "make check LAB=99 names the labs" 2 'make check: no lab 99 \(labs: 01 ' \
        make -s --no-print-directory check LAB=99

    # 6b. Where a student looks first, make check LAB=NN is named: make help, the student
    #     edition's README and the course guide (in the course tree).
    local where missing=""
    make -s --no-print-directory help 2> /dev/null | grep -q '^  make check LAB=NN ' || missing="$missing make-help"
    for where in tools/release/student-README.md handouts/00-course.md; do
        [ -f "$where" ] || continue
        grep -q 'make check LAB=[0-9N][0-9N]' "$where" || missing="$missing $where"
    done
    if [ -z "$missing" ]; then pass "make check LAB=NN is named by make help, the student README and the course guide"
    else fail "make check LAB=NN is named where students look" "not in:$missing"; fi
}

# 8b. With runs, the grader also runs the correctness tests, at the check sizes only, and a
#     test it scores lower previews its score with its reason (a fake grader,
#     tests/fixtures/grade_preview/grader.py, stands for one on a GPU: it zeroes simple for a copy
#     to the host); a grader that finds no GPU builds and audits only; a copy without the grader
#     and its audit says the audit was skipped.
grade_preview_grader_runs() {
    local prog=$tmp/fakegpu
    cp tests/fixtures/grade_preview/grader.py "$tmp/fakegrader"
    chmod +x "$tmp/fakegrader"
    rm -f "$tmp/grader.log"
    run_capture "grade preview with the grader's runs" "${gp[@]}" --rubric "$tmp/01.rubric" --program "$prog" --grader "$tmp/fakegrader"
    local drawn
    drawn=$(grep -cE '^ *(random_sizes|kind *= *(sanitizer|performance))' "$tmp/grader.rubric" 2> /dev/null)
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q '^Previewed: 45 of 73 points\.$' \
        && printf '%s' "$out" | grep -qE "^Correctness: simple +28  0  \(7 of 7 rows pass; the grader's own run at these sizes gives 0: row simple at 997: copied 3988 bytes from the device to the host inside the timed call\)$" \
        && printf '%s' "$out" | grep -qE '^Correctness: host +20  20  \(7 of 7 rows pass\)$' \
        && printf '%s' "$out" | grep -q "^The grader's audit passed .*its own runs at these sizes count above" \
        && [ "$(wc -l < "$tmp/grader.log")" -eq 1 ] && ! grep -q -- '--compile-only' "$tmp/grader.log" \
        && grep -q -- '--isolation unsafe' "$tmp/grader.log" && grep -q "vector_add.cu\$" "$tmp/grader.log" \
        && [ "$(grep -c '^sizes = 1 7 997 1000 65537 1000003 16777219$' "$tmp/grader.rubric")" -eq 3 ] \
        && [ "$(grep -c '^trials = 1$' "$tmp/grader.rubric")" -eq 3 ] && [ "$drawn" -eq 0 ] \
        && ! grep -qwE '255|4097|33333' "$tmp/grader.rubric"; then
        pass "grade preview with the grader's runs: its correctness tests alone at the check sizes, one trial; simple previews its 0 and its reason"
    else fail "grade preview with the grader's runs" "exit $rc: $(printf '%s' "$out" | head -n 9) | $(cat "$tmp/grader.log" 2> /dev/null)"; fi
    rm -f "$tmp/grader.log"
    run_capture "grade preview, the grader finds no GPU" env FAKE_GRADER_GPU=0 "${gp[@]}" --rubric "$tmp/01.rubric" --program "$prog" --grader "$tmp/fakegrader"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^Previewed: 73 of 73 points\.$' \
        && [ "$(wc -l < "$tmp/grader.log")" -eq 2 ] && [ "$(grep -c -- '--compile-only' "$tmp/grader.log")" -eq 1 ] \
        && printf '%s' "$out" | grep -q "^The grader's audit passed .*were not checked: the grader could not run them (exit 77: grade: no usable CUDA GPU (fake))\.$"; then
        pass "grade preview, the grader finds no GPU: it builds and audits only, and the preview says its run-time rules were not checked"
    else fail "grade preview, the grader finds no GPU" "exit $rc: $(printf '%s' "$out" | tail -n 4) | $(cat "$tmp/grader.log" 2> /dev/null)"; fi
    rm -f "$tmp/grader.log"
    run_capture "grade preview, the grader's runs fail" env FAKE_GRADER_ERROR="the GPU fell off the bus" "${gp[@]}" --rubric "$tmp/01.rubric" --program "$prog" --grader "$tmp/fakegrader"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^Previewed: 73 of 73 points\.$' \
        && [ "$(grep -c -- '--compile-only' "$tmp/grader.log")" -eq 1 ] \
        && printf '%s' "$out" | grep -q "^The grader's audit passed .*were not checked: the grader could not run them (the GPU fell off the bus)\.$"; then
        pass "grade preview, the grader's runs end in a grader error: no score capped by it, it builds and audits only, and the preview says why"
    else fail "grade preview, the grader's runs fail" "exit $rc: $(printf '%s' "$out" | tail -n 4) | $(cat "$tmp/grader.log" 2> /dev/null)"; fi
    run_capture "grade preview without the grader" "${gp[@]}" --rubric "$tmp/01.rubric" --json-from "$tmp/pass" --grader "$tmp/no-grader" \
        --auditor "$tmp/no-auditor"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^Previewed: 73 of 73 points\.$' \
        && [ "$(printf '%s' "$out" | grep -cF "The grader's audit was not run: this copy of the course has neither the grader ($tmp/no-grader) nor its audit ($tmp/no-auditor).")" -eq 1 ] \
        && printf '%s' "$out" | grep -q "^PREVIEW — .* The grader's audit was skipped: what your file may call was not checked\.$"; then
        pass "grade preview without the grader: one sentence says the audit was not run and why, and the banner says it was skipped"
    else fail "grade preview without the grader" "exit $rc: $(printf '%s' "$out" | tail -n 4)"; fi
}

# 8c. The rubric the grader's runs get, for every lab's rubric: each correctness test (a test
#     for each rung stays one), with its keys but the sizes; no other test; the rubric's own
#     keys (forbidden symbols, imports) untouched.
grade_preview_grader_rubric() {
    local bad
    bad=$("$py" tests/tools/check_grader_rubric.py)
    if [ -z "$(ls grading/rubrics/[0-9][0-9].rubric 2> /dev/null)" ]; then skip "the rubric of the grader's runs" "no rubrics in this edition"
    elif [ -z "$bad" ]; then pass "the grader's runs get every rubric's correctness tests alone, at the check sizes, one trial, nothing drawn"
    else fail "the rubric of the grader's runs" "wrong for:$bad"; fi
}

# 7. With a GPU: the reference solution earns every previewed point, the starter none.
grade_preview_on_gpu() {
    if [ "$gpu" = 1 ] && [ -x ./sol01 ] && [ -x ./lab01 ]; then
        run_capture "grade preview of ./sol01" "${gp[@]}" --program ./sol01
        if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -qE '^Previewed: ([0-9.]+) of \1 points\.$'; then
            pass "grade preview of ./sol01: every previewed point ($(printf '%s' "$out" | grep '^Previewed'))"
        else fail "grade preview of ./sol01" "exit $rc: $(printf '%s\n%s' "$out" "$err" | head -n 8)"; fi
        run_capture "grade preview of ./lab01" "${gp[@]}" --program ./lab01
        if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -qE '^Previewed: 0 of [0-9.]+ points\.$' \
            && printf '%s' "$out" | grep -q 'TODO(lab01)'; then
            pass "grade preview of the untouched ./lab01: no point, its TODO named"
        else fail "grade preview of ./lab01" "exit $rc: $(printf '%s\n%s' "$out" "$err" | head -n 8)"; fi
        # The grader's own runs: corpus case cpu_empty_kernel (simple and fast compute on the CPU,
        # copying through the host; the grader gives them 0) judged beside ./sol01's runs, which
        # pass every row: simple and fast preview the grader's 0, with its reason.
        if [ -x grading/grade ] && grep -qE '^cpu_empty_kernel +correct_host=20 correct_simple=0 correct_fast=0 ' tests/grading/01/expected.txt; then
            mkdir -p "$tmp/cpu_empty_kernel" && cp solutions/01-vector-add/vector_add.cu "$tmp/cpu_empty_kernel/" \
                && patch --batch --fuzz=0 -s "$tmp/cpu_empty_kernel/vector_add.cu" < tests/grading/01/cpu_empty_kernel.patch
            run_capture "grade preview with the grader's runs of cpu_empty_kernel" "${gp[@]}" --program ./sol01 --file "$tmp/cpu_empty_kernel/vector_add.cu"
            if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -qE '^Previewed: 20 of 70 points\.$' \
                && [ "$(printf '%s' "$out" | grep -cE "^Correctness: vector_add_(simple|fast).*  0  \(7 of 7 rows pass; the grader's own run at these sizes gives 0: ")" -eq 2 ]; then
                pass "grade preview with the grader's runs: cpu_empty_kernel's simple and fast preview the grader's 0"
            else fail "grade preview with the grader's runs of cpu_empty_kernel" "exit $rc: $(printf '%s\n%s' "$out" "$err" | head -n 12)"; fi
        fi
    else
        skip "grade preview of ./sol01 and ./lab01 on a GPU" "no GPU, or ./sol01 and ./lab01 not built"
    fi
}

grade_preview_suite() {
    local py tmp
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "grade preview" "no python3"; return; }
    [ -f tools/grade_preview.py ] || { skip "grade preview" "no tools/grade_preview.py in this edition"; return; }
    tmp=$(mktemp -d)
    local gp=("$py" tools/grade_preview.py --lab 01)
    local hand_in='Hand in: labs/01-vector-add/vector_add.cu'
    grade_preview_fixtures

    expect "grade preview --help" 0 'json-from' "${gp[@]}" --help
    grade_preview_without_gpu
    grade_preview_rows_pass
    grade_preview_through_runs
    grade_preview_rows_fail
    grade_preview_real_rubric
    grade_preview_answers
    grade_preview_no_visible_test
    grade_preview_make_check

    # 8. The grader judges the file, with its own code and rubric. Without runs (--json-from,
    #    here every row passing) it builds and audits it (grading/grade --compile-only, no GPU):
    #    the references of labs 01 and 13 keep every previewed point; corpus cases the grader
    #    refuses -- a cuBLAS call, a forbidden import (fopen), a line marker, CUB in lab 13 --
    #    preview 0 on every visible test, with the grader's reason, exit 1; where the corpus no
    #    longer refuses a case, the test says so.
    grade_preview_audit "$tmp"
    # 8a. The same cases judged by the grader's audit alone (grading/audit), which make check
    #     runs where there is no grader (the student edition, the notebooks): the same verdicts.
    grade_preview_audit "$tmp" audit
    grade_preview_build_corpus "$tmp"
    grade_preview_grader_runs
    grade_preview_grader_rubric
    grade_preview_on_gpu
    rm -rf "$tmp"
}
grade_preview_suite
