# What cudalabs hands out (sourced by tests/run_tests.sh; also on its own:
# `bash tests/suites/release.sh`). No GPU needed.
#   1. make release: the student edition and its zip (one top folder, executable bits kept),
#      holding what students need (the grader's audit for make check too) and nothing only
#      instructors get;
#   2. the leak check passes on it, and fails on a release with a solution's line or an
#      instructor handout in it;
#   3. the unzipped edition builds (two labs, ARCH=sm_75 to keep CI short) and its own test
#      suite passes its part that needs no GPU, solution checks skipped; make without nvcc says so;
#      make check's audit there (grading/audit, no grader) refuses a corpus case the grader
#      refuses, with its reason, and passes the reference;
#   4. make gradescope LAB=01: setup.sh and run_autograder at the zip's root; the autograder run
#      on a fake /autograder in compile-only mode writes a results.json that parses and says
#      "not run" for the tests that need a GPU; without a file to grade, or when the grader
#      cannot run, it still writes a results.json that says why. make gradescope LAB=11: a
#      product lab's zip carries labs/products/ too, and its driver builds from the zip alone.
# Tools: tools/deps/handouts.txt and tools/deps/release.txt. Missing tools skip, except in CI.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# release_questions FAKE_LAB: each lab's answers template ships in the student edition $rel, the
# questions' forms in tools/preview/NN.tests but never the key, and the preview (run with FAKE_LAB
# as the lab program) says what is answered.
release_questions() {
    local f keyed no_template=""
    keyed=$(grep -lE '^q[0-9]+ *= *(choice [A-Za-z] of|number +[-+.0-9]|predict )' "$rel"/tools/preview/*.tests 2> /dev/null | tr '\n' ' ')
    for f in labs/[0-9][0-9]-*/answers.txt; do cmp -s "$f" "$rel/$f" || no_template="$no_template $f"; done
    printf 'q1 = 4\nq2 = x\n' > "$rel/labs/01-vector-add/answers.txt"
    run_capture "release: answers preview" bash -c "cd '$rel' && python3 tools/grade_preview.py --lab 01 --program '$1'"
    cp labs/01-vector-add/answers.txt "$rel/labs/01-vector-add/answers.txt"
    if [ -z "$keyed" ] && [ -z "$no_template" ] && [ "$rc" -eq 77 ] && printf '%s' "$out" | grep -q '^  q2: .x. is not a number$' \
        && printf '%s' "$out" | grep -q '^1 of 3 questions answered and well-formed\.$'; then
        pass "the student edition ships every answers template and previews the answers, without the key"
    else fail "the student edition's questions" "key in:$keyed; templates missing:$no_template; exit $rc: $(printf '%s' "$out" | tail -n 6)"; fi
}

# release_contents: what the unzipped student edition $rel holds: executable bits kept; what
# students need (the grader's audit for make check, the scorecard and its reference runs, the
# grade preview and its tests); nothing only instructors get; a README and handouts for students.
release_contents() {
    local f name ext
    local wrong=""
    for f in tests/run_tests.sh tools/install-deps.sh labs/*/profile.sh; do
        [ -x "$f" ] && [ ! -x "$rel/$f" ] && wrong="$wrong $f"
    done
    if [ -z "$wrong" ]; then pass "the release zip keeps executable bits"
    else fail "the release zip keeps executable bits" "not executable after unzip:$wrong"; fi

    local absent="" present=""
    for f in README.md Makefile common/lab.h tests/run_tests.sh handouts/00-course.pdf handouts/00-course.html; do
        [ -f "$rel/$f" ] || absent="$absent $f"
    done
    for f in labs/*/*; do  # the labs and the folders they share (labs/products/)
        [ -f "$rel/$f" ] || absent="$absent $f"
    done
    for f in labs/[0-9][0-9]-*/; do
        name=$(basename "$f")
        for ext in pdf html ipynb; do [ -f "$rel/handouts/$name.$ext" ] || absent="$absent handouts/$name.$ext"; done
    done
    for f in solutions grading/grade grading/rubrics grading/harness tests/grading tests/suites tests/labs bench handouts/filters; do
        [ -e "$rel/$f" ] && present="$present $f"
    done
    # Of grading/, the grader's audit alone (make check's): its files, and nothing else.
    local audit_want audit_have
    audit_want=$(python3 -c 'import sys; sys.path[:0] = ["tools/release", "tools"]; import release; print("\n".join(release.audit_files()))' | sort)
    audit_have=$(cd "$rel" && find grading -type f 2> /dev/null | sort)
    present="$present$(comm -13 <(printf '%s\n' "$audit_want") <(printf '%s\n' "$audit_have") | sed 's/^/ /' | tr -d '\n')"
    if [ -n "$audit_want" ] && [ -z "$(comm -23 <(printf '%s\n' "$audit_want") <(printf '%s\n' "$audit_have"))" ] && [ -x "$rel/grading/audit" ]; then
        pass "the student edition carries the grader's audit for make check ($(printf '%s\n' "$audit_want" | wc -l) files of grading/)"
    else fail "the student edition carries the grader's audit" "missing: $(comm -23 <(printf '%s\n' "$audit_want") <(printf '%s\n' "$audit_have") | tr '\n' ' ')"; fi
    present="$present$(cd "$rel" && find . \( -name '*instructor*' -o -name '*.rubric' -o -name 'test_grading*' -o -name '*.md' -path './handouts/*' \) | sed 's/^/ /' | tr -d '\n')"
    if [ -z "$absent" ]; then pass "the student edition has every lab's files (labs/products/ too), the handouts, README, Makefile and tests"
    else fail "the student edition has what students need" "missing:$absent"; fi
    # The scorecard: its tool and the reference solution's measured runs (reference/), drawn
    # there from a student's results without the course tree's bench/.
    local refs_want refs_have
    refs_want=$(cd bench/results && ls -d *.d/[0-9][0-9].json 2> /dev/null | sort | tr '\n' ' ')
    refs_have=$(cd "$rel/reference" 2> /dev/null && ls -d *.d/[0-9][0-9].json 2> /dev/null | sort | tr '\n' ' ')
    run_capture "release: make scorecard" make -s --no-print-directory -C "$rel" scorecard LAB=12 NVCC=/nonexistent/nvcc \
        RESULTS="$PWD/tests/fixtures/scorecard/12-student.json" BUILD=build
    if [ -f "$rel/tools/scorecard.py" ] && [ -n "$refs_want" ] && [ "$refs_want" = "$refs_have" ] && [ "$rc" -eq 0 ] \
        && grep -q 'Reference solution measured on: NVIDIA H100 80GB HBM3, NVIDIA H200' "$rel/build/scorecard/lab12.svg"; then
        pass "the student edition has the scorecard and every reference run (reference/); make scorecard draws there"
    else fail "the student edition's scorecard" "reference runs: [$refs_have] want [$refs_want]; make scorecard exit $rc: $(printf '%s' "$out$err" | tail -n 2)"; fi
    rm -rf "$rel/build/scorecard"
    # The grade preview (make check): its tool and each lab's tests without sizes (tools/preview/).
    local fake="$tmp/no-gpu-lab" no_tests="" sized
    printf '#!/bin/sh\n[ "$1" = --describe ] && exec "%s" --describe\necho "no usable CUDA GPU" >&2\nexit 77\n' "$PWD/sol01" > "$fake" \
        && chmod +x "$fake"
    for f in grading/rubrics/[0-9][0-9].rubric; do
        [ -f "$rel/tools/preview/$(basename "$f" .rubric).tests" ] || no_tests="$no_tests $(basename "$f")"
    done
    sized=$(grep -lE '^[[:space:]]*(sizes|size|random_sizes)[[:space:]]*=' "$rel"/tools/preview/*.tests 2> /dev/null | tr '\n' ' ')
    run_capture "release: grade preview" bash -c "cd '$rel' && python3 tools/grade_preview.py --lab 01 --program '$fake'"
    if [ -z "$no_tests" ] && [ -z "$sized" ] && [ "$rc" -eq 77 ] && printf '%s' "$out" | grep -q '^Hand in: labs/01-vector-add/vector_add.cu'; then
        pass "the student edition has the grade preview and every lab's tests to preview, without sizes"
    else fail "the student edition's grade preview" "no tests for:$no_tests; sizes in:$sized; exit $rc: $(printf '%s' "$out$err" | tail -n 2)"; fi
    release_questions "$fake"
    if [ -z "$present" ]; then pass "the student edition has no solutions, rubrics, grader (but its audit), corpus, bench notes or instructor handouts"
    else fail "the student edition has nothing only instructors get" "found:$present"; fi
    if grep -qiE 'solutions/|make sol[0-9]|instructor' "$rel/README.md"; then
        fail "the student README" "speaks of solutions or instructors: $(grep -m1 -iE 'solutions/|make sol[0-9]|instructor' "$rel/README.md")"
    else pass "the student README is for students"; fi

    # Benchmark notes reach students as measurements only, in words about the course itself.
    local talk
    talk=$(grep -l -iE 'tuning round|earlier session|\(issue [0-9]+\)|issue [0-9]+\)|the solution kept|instructor edition\.' \
        "$rel"/handouts/*.html "$rel/README.md" 2> /dev/null | sed "s|$rel/||" | tr '\n' ' ')
    if [ -z "$talk" ]; then pass "the student handouts describe measurements only, not how the solutions came about"
    else fail "the student handouts speak of how the course was made" "in: $talk"; fi
}

# 2. The leak check: clean here, and it can fail.
release_leaks() {
    expect "release.py leaks: no solution line anywhere in the student edition" 0 '^no leaks' \
        python3 tools/release/release.py leaks "$rel" "$zip"
    cp -a "$rel" "$tmp/leaky"
    cat solutions/01-vector-add/*.cu >> "$tmp/leaky/README.md"
    run_capture "handouts: an instructor edition" make -s --no-print-directory "$BUILD/handouts/instructor/13-matvec.html" BUILD="$BUILD"
    cp "$BUILD/handouts/instructor/13-matvec.html" "$tmp/leaky/handouts/13-matvec.html"
    run_capture "release.py leaks finds leaks" python3 tools/release/release.py leaks "$tmp/leaky"
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q 'README.md:.*a line of solutions/01-vector-add/' \
        && printf '%s' "$out" | grep -q 'handouts/13-matvec.html:.*a line of solutions/13-matvec/'; then
        pass "release.py leaks finds a solution's lines in a README and in an instructor handout"
    else fail "release.py leaks finds leaks" "exit $rc: $(printf '%s' "$out" | tail -n 2)"; fi
}

# 3. The student edition builds and tests itself (its own build folder, "build").
release_builds_and_tests() {
    local last mk=(make -s --no-print-directory -C "$rel")
    run_capture "release: make lab01 lab13 unit-tests" "${mk[@]}" -j2 ARCH=sm_75 BUILD=build lab01 lab13 unit-tests
    if [ "$rc" -eq 0 ]; then pass "the student edition builds (lab01, lab13, unit tests; ARCH=sm_75)"
    else fail "the student edition builds" "exit $rc: $(printf '%s' "$err" | grep -v '^make' | head -n 3)"; fi
    expect "release: make sol01 says there is no solution" 2 'student edition' "${mk[@]}" BUILD=build sol01
    release_audit "$rel" "$tmp"
    run_capture "release: its test suite (labs 01 and 13, no GPU)" \
        env CUDA_VISIBLE_DEVICES= CUDALABS_GPU=0 TEST_LABS="01 13" BUILD=build LOG_DIR="$rel/build/test-logs" bash "$rel/tests/run_tests.sh"
    last=$(printf '%s\n' "$out" | tail -n 1)
    if [ "$rc" -eq 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed ]] \
        && grep -q '^PASS  lab13 --help' "$rel/build/test-logs/suite.log" && grep -qx "$last" "$rel/build/test-logs/suite.log"; then
        pass "the student edition's suite passes without solutions ($last); its suite.log has every line"
    else fail "the student edition's suite" "exit $rc: $(printf '%s' "$out" | grep -m2 '^FAIL') $last"; fi
    expect "release: make without nvcc says so in one sentence" 2 'nvcc not found.*install the CUDA Toolkit' \
        env -u CUDA_HOME NVCC=/nonexistent/bin/nvcc "${mk[@]}" BUILD=build lab01
    expect "release: make arch names nvcc and its CUDA version" 0 '^nvcc: /.*nvcc \(CUDA [0-9]+\.[0-9]+\)' \
        "${mk[@]}" BUILD=build arch
    expect "release: make arch says when CUDA_HOME comes from the environment" 0 'CUDA_HOME=.*set in the environment' \
        env CUDA_HOME="$("${mk[@]}" BUILD=build arch | sed -n 's/^CUDA_HOME=\([^ ]*\).*/\1/p')" "${mk[@]}" BUILD=build arch
}

release_suite() {
    local tmp zip rel missing="" tool
    for tool in python3 pandoc pdftotext unzip; do
        command -v "$tool" > /dev/null || missing="$missing $tool"
    done
    lacks_tools release "" "$missing" && return
    tmp=$(mktemp -d)

    # 1. The student edition.
    zip=$BUILD/release/cudalabs-student.zip
    run_capture "make release" make -s --no-print-directory release BUILD="$BUILD"
    if [ "$rc" -ne 0 ] || [ ! -s "$zip" ]; then
        fail "make release" "exit $rc: $(printf '%s' "$err" | grep -v '^make' | tail -n 3)"
        rm -rf "$tmp"; return
    fi
    pass "make release builds the student edition and its zip"
    unzip -q "$zip" -d "$tmp/unzipped"
    if [ "$(ls -A "$tmp/unzipped")" = cudalabs-student ]; then pass "the release zip has one top folder, cudalabs-student/"
    else fail "the release zip has one top folder" "found: $(ls -A "$tmp/unzipped" | head -n 5 | tr '\n' ' ')"; fi
    rel=$tmp/unzipped/cudalabs-student
    release_contents
    release_leaks
    release_builds_and_tests

    # 4. Gradescope.
    release_gradescope "$tmp"
    rm -rf "$tmp"
}

# release_audit REL TMP: make check's audit in the unzipped student edition REL, which has no
# grader: the grader's audit alone (grading/audit) judges the file from the edition's files, with
# the settings of tools/preview/01.tests. From lab 01's rows all passing (--json-from, no GPU), a
# corpus case the grader refuses (a cuBLAS call) previews 0 on every visible test with the
# grader's reason, exit 1; the reference solution (copied in: the edition has none) every point,
# its audit passed. Built as step 3 builds lab 01 (ARCH=sm_75, BUILD=build), whose objects it reuses.
release_audit() {
    local rel=$1 tmp=$2 case=forbidden_cublas
    if ! command -v "${NVCC:-nvcc}" > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        skip "release: make check's audit" "no nvcc"; return
    fi
    grep -qE "^$case +rejected=yes total=0 " tests/grading/01/expected.txt \
        || { fail "release: make check's audit of corpus case $case" "tests/grading/01/expected.txt no longer says the grader refuses it"; return; }
    mkdir -p "$tmp/audit/pass" "$tmp/audit/$case" "$tmp/audit/reference"
    cp solutions/01-vector-add/vector_add.cu "$tmp/audit/reference/"
    cp solutions/01-vector-add/vector_add.cu "$tmp/audit/$case/"
    patch --batch --fuzz=0 -s "$tmp/audit/$case/vector_add.cu" < "tests/grading/01/$case.patch" \
        || { fail "release: make check's audit of corpus case $case" "tests/grading/01/$case.patch does not apply"; return; }
    local passing=$PWD/tests/tools/passing_results.py
    (cd "$rel" && python3 "$passing" tools/preview/01.tests "$tmp/audit/pass" --describe)
    local gp=(env ARCH=sm_75 BUILD=build python3 tools/grade_preview.py --lab 01 --json-from "$tmp/audit/pass")
    run_capture "release: make check's audit of corpus case $case" bash -c 'cd "$0" && "$@"' "$rel" "${gp[@]}" --file "$tmp/audit/$case/vector_add.cu"
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -qE '^Previewed: 0 of [0-9.]+ points\.$' \
        && ! printf '%s' "$out" | grep -E '^(Correctness|Memory safety)' | grep -vqE '  0  \(the grader refuses your file: below\)$' \
        && printf '%s' "$out" | grep -qE "^The grader refuses your file, so each of its tests gives 0: .*'cublasSaxpy_v2' is not allowed in this lab"; then
        pass "release: make check's audit (grading/audit, no grader) refuses corpus case $case with the grader's reason: 0 on every visible test, exit 1"
    else fail "release: make check's audit of corpus case $case" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 5)"; fi
    run_capture "release: make check's audit of the reference" bash -c 'cd "$0" && "$@"' "$rel" "${gp[@]}" --file "$tmp/audit/reference/vector_add.cu"
    if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -qE '^Previewed: ([0-9.]+) of \1 points\.$' \
        && printf '%s' "$out" | grep -q "^The grader's audit passed (forbidden libraries and calls, imports, line directives);.*this copy of the course has the grader's audit, not its runs\.$"; then
        pass "release: make check's audit passes the reference solution in the student edition: every previewed point"
    else fail "release: make check's audit of the reference" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 5)"; fi
}

# release_gradescope TMP: the autograder zip of lab 01 on a fake /autograder (AUTOGRADER_ROOT).
release_gradescope() {
    local tmp=$1 ag zip=$BUILD/gradescope/lab01-autograder.zip mode
    run_capture "make gradescope LAB=01" make -s --no-print-directory gradescope LAB=01 BUILD="$BUILD"
    if [ "$rc" -ne 0 ] || [ ! -s "$zip" ]; then
        fail "make gradescope LAB=01" "exit $rc: $(printf '%s' "$err" | tail -n 2)"; return
    fi
    mode=$(unzip -Z "$zip" | awk '$NF == "setup.sh" || $NF == "run_autograder" { print $1 }' | sort -u)
    if [ "$mode" = "-rwxr-xr-x" ] && unzip -p "$zip" run_autograder | grep -q 'LAB=${LAB:-01}' \
        && ! unzip -Z1 "$zip" | grep -qvE '^(setup\.sh|run_autograder|Makefile|common/|labs/01-|solutions/01-|grading/|tools/)'; then
        pass "the Gradescope zip: setup.sh and run_autograder (executable) at its root, lab 01 baked in, lab 01 only"
    else fail "the Gradescope zip's layout" "modes '$mode'; $(unzip -Z1 "$zip" | head -n 5 | tr '\n' ' ')"; fi

    # A product lab's zip: the library its files include (labs/products/) and nothing of other labs;
    # its driver builds from the zip alone.
    local pzip=$BUILD/gradescope/lab11-autograder.zip
    run_capture "make gradescope LAB=11" make -s --no-print-directory gradescope LAB=11 BUILD="$BUILD"
    if [ "$rc" -eq 0 ] && unzip -Z1 "$pzip" | grep -qx 'labs/products/matrix_product.h' \
        && ! unzip -Z1 "$pzip" | grep -qvE '^(setup\.sh|run_autograder|Makefile|common/|labs/11-|labs/products/|solutions/11-|grading/|tools/)'; then
        pass "the Gradescope zip of a product lab (11) carries labs/products/ and lab 11 only"
    else fail "the Gradescope zip of lab 11" "exit $rc; $(unzip -Z1 "$pzip" 2> /dev/null | grep '^labs/' | tr '\n' ' ')"; fi
    mkdir -p "$tmp/lab11"
    unzip -q "$pzip" -d "$tmp/lab11"
    run_capture "Gradescope: lab 11's driver builds from its zip" \
        make -s --no-print-directory -C "$tmp/lab11" BUILD=build ARCH=sm_75 build/11/driver.o
    if [ "$rc" -eq 0 ]; then pass "Gradescope: lab 11's driver builds from its zip alone (ARCH=sm_75)"
    else fail "Gradescope: lab 11's driver builds from its zip" "exit $rc: $(printf '%s' "$err" | grep -v '^make' | head -n 3)"; fi

    ag=$tmp/autograder
    mkdir -p "$ag/source" "$ag/submission"
    unzip -q "$zip" -d "$ag/source"
    cp labs/01-vector-add/vector_add.cu "$ag/submission/"
    # Gradescope's submission metadata, beside the submission as Gradescope puts it.
    printf '%s\n' '{"id": 4242, "created_at": "2026-03-01T14:22:32-07:00", "assignment": {"title": "Lab 1"},' \
        '"users": [{"name": "Ada Lovelace", "email": "ada@uni.edu", "sid": "S-1", "id": 7}]}' > "$ag/submission_metadata.json"
    # As on Gradescope's own machines, no ARCH is set: the compile-only build then makes one.
    run_capture "Gradescope: run_autograder, compile only" env -u ARCH AUTOGRADER_ROOT="$ag" CUDALABS_COMPILE_ONLY=1 \
        "$ag/source/run_autograder"
    if printf '%s' "$out" | grep -qF 'submission 4242 of 2026-03-01T14:22:32-07:00 by Ada Lovelace <ada@uni.edu> (SID S-1)' \
        && [ -f "$ag/staged/submission/submission_metadata.json" ]; then
        pass "Gradescope: run_autograder reads submission_metadata.json (the submitters in the instructors' log, the file beside the submission)"
    else fail "Gradescope: run_autograder reads submission_metadata.json" "no submitter line in its output, or the file not staged"; fi
    run_capture "Gradescope: results.json" python3 tests/tools/check_autograder_compile_only.py "$ag/results/results.json"
    if [ "$rc" -eq 0 ]; then pass "Gradescope compile-only: results.json parses, every GPU test 'not run' ($out)"
    else fail "Gradescope compile-only results.json" "$(printf '%s' "$err" | tail -n 1)"; fi

    rm -f "$ag/submission/vector_add.cu"
    run_capture "Gradescope: nothing to grade" env -u ARCH AUTOGRADER_ROOT="$ag" "$ag/source/run_autograder"
    expect "Gradescope: no file to grade still writes a results.json that says why" 0 'no file named vector_add.cu' \
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["score"] == 0; print(r["output"])' "$ag/results/results.json"
    cp labs/01-vector-add/vector_add.cu "$ag/submission/"
    run_capture "Gradescope: the grader cannot run" env -u CUDA_HOME -u ARCH AUTOGRADER_ROOT="$ag" NVCC=/nonexistent/bin/nvcc \
        PATH=/usr/bin:/bin "$ag/source/run_autograder"
    expect "Gradescope: a grader that cannot run still gives a results.json that says so" 0 'could not grade' \
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["score"] == 0; print(r["output"])' "$ag/results/results.json"
}
release_suite
