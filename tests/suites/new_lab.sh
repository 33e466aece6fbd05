# make new-lab (tools/new-lab/), sourced by tests/run_tests.sh; alone: bash tests/suites/new_lab.sh.
# No GPU needed: make new-lab refuses a number in use and a bad name (exit 2); in a scratch copy
# of the tree (the tracked files, as they are now) it makes lab NN (the first free number), which
# builds (make labNN solNN for $ARCH, else for what make picks here, as the tree was built, so that
# $BUILD's objects serve and the programs run on this machine's GPU), describes itself (--describe)
# and is graded compile-only by the grader ($BUILD/grading/grader, make grader; skipped where it
# is not built): the reference and the untouched starter build and pass the audit. With a GPU:
# the solution passes and the starter fails, pointing at its TODO(labNN). The copy's build starts
# from $BUILD's objects where they were built with the same flags, so only the new lab compiles.
# And a rung is data: in another copy, lab 12 gets a 7th rung from three files alone (starter,
# solution, driver's declaration), which builds, is described, agrees with the lab data and is
# graded compile-only (new_rung_suite).

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# new_lab_free_number: the first lab number no lab has, from 14 on.
new_lab_free_number() {
    local n
    for n in $(seq 14 99); do
        [ -z "$(lab_dir "$n")" ] && { echo "$n"; return; }
    done
}

# new_lab_copy DEST: the tracked files of this tree, as they are now, and $BUILD's objects.
new_lab_copy() {
    local dest=$1 build
    mkdir -p "$dest"
    git ls-files -z | tar --null -T - --ignore-failed-read -cf - 2> /dev/null | tar -xf - -C "$dest" || return 1
    build=$(cd "$BUILD" 2> /dev/null && pwd) || return 0
    # Objects are reused only when their flags match (make compares nvcc-flags.stamp and
    # cxx-flags.stamp); cp -p keeps them newer than the copied sources, so make sees them as up to date.
    mkdir -p "$dest/build"
    cp -p "$build/nvcc-flags.stamp" "$build/cxx-flags.stamp" "$dest/build/" 2> /dev/null
    [ -d "$build/common" ] && cp -pr "$build/common" "$dest/build/"
    [ -d "$build/grading" ] && mkdir -p "$dest/build/grading" \
        && cp -pr "$build/grading/harness" "$build/grading/libkernel_trace.so" "$build/grading/grading_shims.o" \
            "$dest/build/grading/" 2> /dev/null
    return 0
}

# new_lab_grade WHAT COPY NN TMP ARCH: TMP/subs graded compile-only into TMP/graded by the grader
# built here ($BUILD/grading/grader, make grader) on the copy's tree (grading/grade would first
# build a grader there), as `expect` leaves rc; false, with a skip line, where it is not built.
new_lab_grade() {
    local grader
    grader=$(cd "$BUILD" 2> /dev/null && pwd)/grading/grader
    [ -x "$grader" ] || { skip "$1: graded compile-only" "no $BUILD/grading/grader (make grader)"; return 1; }
    expect "$1: grading/grade --lab $3 --compile-only grades it" 0 'results: ' \
        env -u BUILD ARCH="$5" "$grader" --root "$2" --lab "$3" --compile-only --seed 7 --out "$4/graded" "$4/subs"
}

# The ARCH the tree was built with: $ARCH, else what make picks on this machine (make arch).
new_lab_arch() {
    local picked
    picked=$(make -s --no-print-directory arch BUILD="$BUILD" 2> /dev/null | sed -n 's/^ARCH=\(.*\) -> .*/\1/p')
    echo "${ARCH:-${picked:-sm_75}}"
}

new_lab_suite() {
    local tmp copy nn name=vector-scale arch py who
    arch=$(new_lab_arch)
    tmp=$(mktemp -d)
    expect "make new-lab refuses a number in use" 2 'make new-lab: lab 01 exists already \(labs/01-vector-add\)' \
        make -s --no-print-directory new-lab NN=01 NAME=again
    expect "make new-lab refuses a bad name" 2 'make new-lab: NAME=Bad_Name is not a lab name' \
        make -s --no-print-directory new-lab NN=98 NAME=Bad_Name
    expect "make new-lab refuses a bad number" 2 'make new-lab: NN=1x is not a lab number' \
        make -s --no-print-directory new-lab NN=1x NAME=topic
    if [ -n "$(git status --porcelain -- labs/98-* solutions/98-* grading/rubrics/98.rubric 2> /dev/null)" ]; then
        fail "make new-lab writes nothing when it refuses" "$(git status --porcelain -- labs solutions | head -n 2)"
    fi

    nn=$(new_lab_free_number)
    copy=$tmp/tree
    if ! new_lab_copy "$copy"; then
        fail "new lab: a scratch copy of the tree" "git ls-files | tar failed"
        rm -rf "$tmp"; return
    fi
    expect "make new-lab NN=$nn NAME=$name makes the lab's files" 0 "labs/$nn-$name/vector_scale.cu" \
        make -s --no-print-directory -C "$copy" new-lab NN="$nn" NAME="$name"
    local f missing=""
    for f in labs/$nn-$name/driver.cu labs/$nn-$name/vector_scale.h labs/$nn-$name/vector_scale.cu \
        labs/$nn-$name/reference.h labs/$nn-$name/answers.txt solutions/$nn-$name/vector_scale.cu grading/rubrics/$nn.rubric \
        handouts/$nn-$name.md; do
        [ -s "$copy/$f" ] || missing="$missing $f"
    done
    grep -q "TODO(lab$nn) scale" "$copy/labs/$nn-$name/vector_scale.cu" || missing="$missing TODO(lab$nn)-in-starter"
    if [ -z "$missing" ] && ! grep -rq '@[A-Z]*@' "$copy/labs/$nn-$name" "$copy/solutions/$nn-$name" "$copy/grading/rubrics/$nn.rubric"; then
        pass "new lab $nn: starter with its TODO(lab$nn), solution, rubric and handout, every placeholder filled"
    else fail "new lab $nn: every file, every placeholder filled" "missing:${missing:- none}; $(grep -rl '@[A-Z]*@' "$copy/labs/$nn-$name" | head -n 1)"; fi
    expect "make new-lab refuses the number it just used" 2 "lab $nn exists already" \
        make -s --no-print-directory -C "$copy" new-lab NN="$nn" NAME=other

    expect "new lab $nn builds (make ARCH=$arch lab$nn sol$nn)" 0 '' \
        env -u BUILD nice make -s --no-print-directory -C "$copy" -j2 ARCH="$arch" "lab$nn" "sol$nn"
    if [ "$rc" -ne 0 ]; then rm -rf "$tmp"; return; fi

    py=$(command -v python3 || true)
    run_capture "new lab $nn --describe" "$copy/sol$nn" --describe
    if [ "$rc" -eq 0 ] && { [ -z "$py" ] || printf '%s' "$out" | "$py" -c '
import json, sys
d = json.load(sys.stdin)
assert d["lab"] == sys.argv[1] and d["name"] == sys.argv[2], d
assert [v["name"] for v in d["variants"]] == ["scale"], d["variants"]' "$nn" "$nn-$name"; }; then
        pass "new lab $nn describes itself (./sol$nn --describe: lab $nn-$name, variant scale)"
    else fail "new lab $nn describes itself" "exit $rc: $(printf '%s' "$out$err" | head -c 300)"; fi

    if [ "$gpu" = 1 ]; then
        expect "new lab $nn: the solution passes" 0 'Verdict: PASS' "$copy/sol$nn" --quick
        # the hint names the line of the scale variant's first marker, not the file's first line
        # (which names the lab, "vector-scale", before "complete every TODO(lab$nn)")
        local todo_line
        todo_line=$(grep -n "TODO(lab$nn) scale" "$copy/labs/$nn-$name/vector_scale.cu" | head -n 1 | cut -d: -f1)
        expect "new lab $nn: the starter fails at its TODO(lab$nn) scale" 1 \
            "see TODO\\(lab$nn\\) at labs/$nn-$name/vector_scale\\.cu:$todo_line\\b" "$copy/lab$nn" --quick
    else
        expect "new lab $nn: without a GPU the starter says so (exit 77)" 77 '' "$copy/lab$nn" --quick
        skip "new lab $nn: the solution passes, the starter fails at its TODO" "no GPU on this machine"
    fi

    mkdir -p "$tmp/subs"
    cp "$copy/solutions/$nn-$name/vector_scale.cu" "$tmp/subs/reference.cu"
    cp "$copy/labs/$nn-$name/vector_scale.cu" "$tmp/subs/starter.cu"
    if new_lab_grade "new lab $nn" "$copy" "$nn" "$tmp" "$arch"; then
        for who in reference starter; do
            if [ "$rc" -eq 0 ] && [ -f "$tmp/graded/feedback/$who.md" ] && ! grep -q '^\*\*Not graded' "$tmp/graded/feedback/$who.md"; then
                pass "new lab $nn: the $who builds and passes the grader's audit"
            else fail "new lab $nn: the $who builds and passes the grader's audit" \
                "$(grep -m1 'Not graded' "$tmp/graded/feedback/$who.md" 2> /dev/null || echo "no feedback/$who.md")"; fi
        done
    fi
    rm -rf "$tmp"
}

# new_rung_edit COPY: lab 12's 7th rung, `extra` on top of the ladder, warptile under a new name, written
# into three files only: the starter and the solution (its launcher), and the driver's declaration
# (the variant, its launcher's prototype beside it).
new_rung_edit() {
    local lab=$1/labs/12-matmul-fast launcher='void sgemm_extra(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream)'
    printf '\n// The 7th rung: warptile again, under its own name.\n%s { sgemm_warptile(a, b, c, m, n, k, stream); }\n' \
        "$launcher" | tee -a "$lab/matmul_fast.cu" >> "$1/solutions/12-matmul-fast/matmul_fast.cu"
    sed -i "s|^int main(|$launcher;\n\nint main(|" "$lab/driver.cu"
    sed -i 's|^\(.*product_kernel<float>(sgemm_fast)},\)$|\1\n        {"extra", "warptile again, under its own name", product_kernel<float>(sgemm_extra)},|' "$lab/driver.cu"
}

# A rung is data: in a scratch copy, lab 12 gets a 7th rung from its starter, its solution and its
# driver's declaration alone (the test fails where another file must change): it builds,
# --describe lists it, the rubric, bench/targets.json and the hints agree (lab_data.py), the
# profile runs it, and the grader grades its tests compile-only.
new_rung_suite() {
    local tmp copy arch py changed
    arch=$(new_lab_arch)
    py=$(command -v python3 || true)
    [ -n "$py" ] || { skip "new rung of lab 12" "no python3"; return; }
    tmp=$(mktemp -d)
    copy=$tmp/tree
    if ! new_lab_copy "$copy"; then
        fail "new rung: a scratch copy of the tree" "git ls-files | tar failed"
        rm -rf "$tmp"; return
    fi
    (cd "$copy" && find . -path ./build -prune -o -type f -print0 | sort -z | xargs -0 sha1sum) > "$tmp/before"
    new_rung_edit "$copy"
    changed=$(cd "$copy" && sha1sum --quiet -c "$tmp/before" 2> /dev/null | sed 's/: FAILED$//; s|^\./||' | sort | tr '\n' ' ')
    if [ "$changed" = "labs/12-matmul-fast/driver.cu labs/12-matmul-fast/matmul_fast.cu solutions/12-matmul-fast/matmul_fast.cu " ] \
        && grep -q '{"extra",' "$copy/labs/12-matmul-fast/driver.cu"; then
        pass "new rung: lab 12's 7th rung is written in its starter, its solution and its driver's declaration"
    else fail "new rung: three files edited" "changed: ${changed:-nothing}"; rm -rf "$tmp"; return; fi

    expect "new rung: lab 12 builds with it (make ARCH=$arch lab12 sol12)" 0 '' \
        env -u BUILD nice make -s --no-print-directory -C "$copy" -j2 ARCH="$arch" lab12 sol12
    if [ "$rc" -ne 0 ]; then rm -rf "$tmp"; return; fi
    "$copy/sol12" --describe > "$tmp/12.json" 2> "$tmp/12.err"
    if "$py" -c 'import json, sys; v = [x["name"] for x in json.load(open(sys.argv[1]))["variants"]]; sys.exit(v[-2:] != ["fast", "extra"])' "$tmp/12.json"; then
        pass "new rung: ./sol12 --describe lists extra"
    else fail "new rung: ./sol12 --describe lists extra" "$(head -c 300 "$tmp/12.json" "$tmp/12.err")"; fi
    expect "new rung: the rubric, bench/targets.json and the hints agree with it (lab_data.py)" 0 'agree with --describe' \
        "$py" "$copy/tests/tools/lab_data.py" "$tmp/12.json"
    expect "new rung: make profile12 profiles it (profile_hints.py --plan --program ./sol12)" 0 "variants='tiled coarse1d coarse2d vectorized warptile fast extra'" \
        "$py" "$copy/tools/profile_hints.py" --lab 12 --plan --program "$copy/sol12"

    mkdir -p "$tmp/subs"
    cp "$copy/solutions/12-matmul-fast/matmul_fast.cu" "$tmp/subs/reference.cu"
    if new_lab_grade "new rung" "$copy" 12 "$tmp" "$arch"; then
        if [ "$rc" -eq 0 ] && "$py" tests/tools/results_have_test.py "$tmp/graded/results/reference.json" "Correctness: extra"; then
            pass "new rung: the grader grades its correctness test (Correctness: extra)"
        else fail "new rung: the grader grades its tests" "$(ls "$tmp/graded/results" 2> /dev/null | head -n 3)"; fi
    fi
    rm -rf "$tmp"
}

new_lab_suite
new_rung_suite
