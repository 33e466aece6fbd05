# The notebooks run as a student runs them (sourced by tests/run_tests.sh; also on its own:
# `bash tests/suites/notebooks.sh`). Every lab's student notebook is executed top to bottom in a
# real Jupyter kernel, in a fresh folder, with only Colab's own module (google.colab) replaced:
# its setup cell writes the course files it carries, the %%writefile cell the student's file,
# and `!make labNN && ./labNN` builds with the project's Makefile and runs the lab. On a machine
# without a GPU the run must end in the one-sentence "no usable CUDA GPU" and exit 77, never in
# a Python error, and then its scorecard cell must show a card of the lab inline, drawn from a
# reference run the notebook carries, saying so (handouts/tools/run_notebook.py). Also: a notebook pointed at the course by
# REPO_URL, as a zip with a top folder and as a git repository, keeps executable bits.
# To keep CI short the builds use ARCH=sm_75 (Colab's T4) and share one build folder, so the
# harness is compiled once; each notebook still builds its own lab.
# Tools: tools/deps/handouts.txt and tools/deps/release.txt. Missing tools skip, except in CI.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

notebooks_suite() {
    local tmp py nb name nn notebooks=() missing="" tool
    py=""
    for tool in /usr/bin/python3 python3; do
        if "$tool" -c 'import nbformat, nbclient, ipykernel' 2> /dev/null; then py=$tool; break; fi
    done
    [ -n "$py" ] || missing=" python3-nbclient python3-ipykernel"
    for tool in pandoc git; do command -v "$tool" > /dev/null || missing="$missing $tool"; done
    lacks_tools notebooks "" "$missing" && return
    tmp=$(mktemp -d)
    for nb in labs/[0-9][0-9]-*/; do
        name=$(basename "$nb")
        notebooks+=("$BUILD/handouts/student/$name.ipynb")
    done
    run_capture "make the student notebooks" make -s --no-print-directory "${notebooks[@]}" BUILD="$BUILD"
    if [ "$rc" -ne 0 ]; then
        fail "notebooks build" "exit $rc: $(printf '%s' "$err" | head -n 3)"
        rm -rf "$tmp"; return
    fi

    # 1. Every lab's notebook, as it is, until its lab runs.
    for nb in "${notebooks[@]}"; do
        name=$(basename "$nb" .ipynb); nn=${name%%-*}
        run_capture "notebook $name" env CUDA_VISIBLE_DEVICES= ARCH=sm_75 BUILD="$NOTEBOOK_BUILD" \
            "$py" handouts/tools/run_notebook.py "$nb" "$tmp/$name"
        if [ "$rc" -eq 0 ]; then
            pass "notebook $name runs top to bottom to its lab run (no GPU: one sentence, exit 77), then shows its scorecard"
        else
            fail "notebook $name runs to its lab run" "$(printf '%s' "$out" | grep -v 'cells run in' | head -n 2)"
        fi
    done

    # 2. REPO_URL: the course fetched instead of carried. A zip with a top folder (as GitHub's
    #    "Download ZIP" makes) and a git repository; tests/run_tests.sh must stay executable.
    local course=$tmp/course url kind mode
    mkdir -p "$course"
    "$py" handouts/tools/notebook_setup.py --lab 13 --unpack "$course"
    cp --parents labs/13-matvec/matvec.cu tests/run_tests.sh "$course/"
    "$py" tools/release/release.py zip "$course" "$tmp/course.zip" --top cudalabs-main
    git -C "$course" init -q && git -C "$course" add -A \
        && git -C "$course" -c user.name=ci -c user.email=ci@localhost commit -q -m course
    for kind in zip git; do
        [ "$kind" = zip ] && url="file://$tmp/course.zip" || url="file://$course"
        nb=$tmp/repo-$kind/13-matvec.ipynb
        mkdir -p "$(dirname "$nb")"
        run_capture "notebook with REPO_URL ($kind)" pandoc handouts/13-matvec.md \
            --lua-filter handouts/filters/cudalabs.lua --resource-path=.:handouts -M edition=student -M gen_dir="$BUILD/handouts/gen" \
            -M python="$py" -M repo_url="$url" -t ipynb -o "$nb"
        [ "$rc" -eq 0 ] && run_capture "notebook with REPO_URL ($kind)" env CUDA_VISIBLE_DEVICES= ARCH=sm_75 BUILD="$NOTEBOOK_BUILD" \
            "$py" handouts/tools/run_notebook.py "$nb" "$tmp/run-$kind"
        mode=$(stat -c %A "$tmp/run-$kind/content/cudalabs/tests/run_tests.sh" 2> /dev/null)
        if [ "$rc" -ne 0 ]; then
            fail "notebook with REPO_URL ($kind) runs to its lab run" "$(printf '%s\n%s' "$out" "$err" | grep -v 'cells run in' | head -n 2)"
        elif ! grep -q "$url" "$nb" || grep -q 'COURSE_FILES = \\"[A-Za-z]' "$nb"; then
            fail "notebook with REPO_URL ($kind)" "the setup cell does not fetch $url instead of carrying the files"
        elif [[ $mode != -rwx* ]]; then
            fail "notebook with REPO_URL ($kind) keeps executable bits" "tests/run_tests.sh is ${mode:-missing}"
        else
            pass "notebook with REPO_URL ($kind): fetched, top folder handled, executable bits kept, lab run reached"
        fi
    done
    rm -rf "$tmp"
}

# The student's loop in a notebook's course folder: every file that make check LAB=NN (the grade
# preview and the lab's visible tests, never its rubric), make profileNN (the lab's profile.sh,
# common/ncu.sh, the hints' table) and make scorecard (the tool, the reference runs) read is
# carried, for every lab, and each tool works from the carried files alone; for lab 01 the
# notebook's files and the starter alone, in an empty folder, build and run make check LAB=01 and
# make profile01 up to the one-sentence "no usable CUDA GPU" (exit 77 of their recipe), make
# check's audit there refuses a corpus case the grader refuses (notebook_audit), and
# make profile01 without the hints' table names it (not python3, which is there).
# Tools: python3; nvcc for lab 01's run (its harness is built once with the notebooks above).
notebook_loop_suite() {
    local py tmp nn dir names want missing bad="" goal said make_errors
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "notebook loop files" "no python3"; return; }
    tmp=$(mktemp -d)
    printf '{"check_sizes": ["1"]}\n' > "$tmp/describe.json"
    mkdir -p "$tmp/no-results"
    # Of grading/, a notebook carries the grader's audit alone (make check's), as the student edition.
    local audit
    audit=$("$py" -c 'import sys; sys.path[:0] = ["tools/release", "tools"]; import release; print("\n".join(release.audit_files()))')
    for dir in labs/[0-9][0-9]-*/; do
        nn=$(basename "$dir"); nn=${nn%%-*}
        names=$("$py" handouts/tools/notebook_setup.py --lab "$nn" --list)
        want="Makefile tools/grade_preview.py tools/answers_preview.py tools/profile_hints.py tools/scorecard.py common/ncu.sh"
        [ -f "grading/rubrics/$nn.rubric" ] && want="$want tools/preview/$nn.tests"
        [ -f "${dir}profile.sh" ] && want="$want ${dir}profile.sh"
        missing=""
        for f in $want; do grep -qxF "$f" <<< "$names" || missing="$missing $f"; done
        ls bench/results/*.d/"$nn".json > /dev/null 2>&1 && ! grep -qE "^reference/.*\.d/$nn\.json$" <<< "$names" \
            && missing="$missing reference/*.d/$nn.json"
        for f in $audit; do grep -qxF "$f" <<< "$names" || missing="$missing $f"; done
        grep -E '\.rubric$|^grading/|^solutions/' <<< "$names" | grep -qvxF "$audit" \
            && missing="$missing (and carries $(grep -E '\.rubric$|^grading/|^solutions/' <<< "$names" | grep -vxF "$audit" | head -n1))"
        # The tools from the carried files alone: the preview reads the visible tests, the hints
        # their plan.
        rm -rf "$tmp/lab" && "$py" handouts/tools/notebook_setup.py --lab "$nn" --unpack "$tmp/lab"
        if [ -f "grading/rubrics/$nn.rubric" ] && ! (cd "$tmp/lab" && "$py" tools/grade_preview.py --lab "$nn" \
                --describe "$tmp/describe.json" --json-from "$tmp/no-results") 2>&1 \
                | grep "^Grade preview of lab $nn: .*tools/preview/$nn.tests" > /dev/null; then
            missing="$missing (grade_preview.py does not preview from the carried tests)"
        fi
        if "$py" tools/profile_hints.py --list 2> /dev/null | grep -q "^$nn\b" \
            && ! (cd "$tmp/lab" && "$py" tools/profile_hints.py --lab "$nn" --plan > /dev/null 2>&1); then
            missing="$missing (profile_hints.py --plan fails there)"
        fi
        [ -z "$missing" ] || bad="$bad lab $nn lacks$missing;"
    done
    if [ -z "$bad" ]; then pass "every lab's notebook carries what make check, make profileNN and make scorecard read (visible tests, no rubric), and the tools work from it"
    else fail "every lab's notebook carries what make check, make profileNN and make scorecard read" "${bad:0:400}"; fi

    # Lab 01 in full: the notebook's files and the starter, nothing else.
    if ! command -v "${NVCC:-nvcc}" > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        skip "make check and make profile01 in lab 01's notebook folder" "no nvcc"; rm -rf "$tmp"; return
    fi
    rm -rf "$tmp/lab" && "$py" handouts/tools/notebook_setup.py --lab 01 --unpack "$tmp/lab"
    cp -p "$(student_file 01)" "$tmp/lab/labs/01-vector-add/"
    for goal in "check LAB=01" profile01; do
        # shellcheck disable=SC2086
        run_capture "make $goal in lab 01's notebook folder" env CUDA_VISIBLE_DEVICES= \
            make -s --no-print-directory -C "$tmp/lab" $goal ARCH=sm_75 BUILD="$NOTEBOOK_BUILD"
        # make's own line gives the recipe's exit status ("Error 77"); make itself exits 2.
        said=$(printf '%s\n' "$err" | grep -vE '^make(\[[0-9]+\])?: \*\*\* ')
        make_errors=$(printf '%s\n' "$err" | grep -cE '^make(\[[0-9]+\])?: \*\*\* ')
        if [ "$rc" -ne 0 ] && [ "$make_errors" -eq 1 ] && [[ $err == *"] Error 77"* ]] \
            && [ "$(printf '%s\n' "$said" | wc -l)" -eq 1 ] && [[ $said == *"no usable CUDA GPU"* ]]; then
            pass "make $goal in an empty folder with lab 01's notebook files and the starter: built, then one sentence (no usable CUDA GPU), exit 77"
        else
            fail "make $goal in lab 01's notebook folder" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 3 | head -c 400)"
        fi
    done
    # make check's audit from the notebook's files (no grader there): from rows all passing, a
    # corpus case the grader refuses (a cuBLAS call) previews 0 with the grader's reason.
    notebook_audit "$tmp"
    # A copy without the hints' table says so, not "install python3" (python3 is there).
    rm "$tmp/lab/tools/profile_hints.py"
    run_capture "make profile01 without tools/profile_hints.py" make -s --no-print-directory -C "$tmp/lab" profile01 ARCH=sm_75 BUILD="$NOTEBOOK_BUILD"
    if [ "$rc" -ne 0 ] && [[ $err == *"make profile01: this copy of the course has no tools/profile_hints.py"* ]] && [[ $err != *"install python3"* ]]; then
        pass "make profile01 in a copy without tools/profile_hints.py names the missing file, not python3"
    else fail "make profile01 without tools/profile_hints.py" "exit $rc: ${err:0:300}"; fi
    rm -rf "$tmp"
}

# notebook_audit TMP: in TMP/lab (lab 01's notebook files and the starter), the grade preview from
# rows that all pass (--json-from) judges corpus case forbidden_cublas with the grader's audit
# alone (grading/audit, carried): 0 on every visible test, with the grader's reason, exit 1.
notebook_audit() {
    local tmp=$1 case=forbidden_cublas
    grep -qE "^$case +rejected=yes total=0 " tests/grading/01/expected.txt \
        || { fail "notebook: make check's audit of corpus case $case" "tests/grading/01/expected.txt no longer says the grader refuses it"; return; }
    mkdir -p "$tmp/audit/pass" && cp solutions/01-vector-add/vector_add.cu "$tmp/audit/" \
        && patch --batch --fuzz=0 -s "$tmp/audit/vector_add.cu" < "tests/grading/01/$case.patch" \
        || { fail "notebook: make check's audit of corpus case $case" "tests/grading/01/$case.patch does not apply"; return; }
    local passing=$PWD/tests/tools/passing_results.py
    (cd "$tmp/lab" && "$py" "$passing" tools/preview/01.tests "$tmp/audit/pass" --size 1)
    run_capture "notebook: make check's audit of corpus case $case" bash -c 'cd "$0" && "$@"' "$tmp/lab" \
        env ARCH=sm_75 BUILD="$NOTEBOOK_BUILD" "$py" tools/grade_preview.py --lab 01 --describe "$tmp/describe.json" \
        --json-from "$tmp/audit/pass" --file "$tmp/audit/vector_add.cu"
    if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -qE '^Previewed: 0 of [0-9.]+ points\.$' \
        && printf '%s' "$out" | grep -qE "^The grader refuses your file, so each of its tests gives 0: .*'cublasSaxpy_v2' is not allowed in this lab"; then
        pass "notebook: make check's audit (grading/audit from lab 01's notebook files) refuses corpus case $case with the grader's reason, exit 1"
    else fail "notebook: make check's audit of corpus case $case" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 5)"; fi
}

NOTEBOOK_BUILD=$(mktemp -d)
notebooks_suite
notebook_loop_suite
rm -rf "$NOTEBOOK_BUILD"
