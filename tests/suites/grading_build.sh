# The grader's build and audit of a submission (sourced by tests/run_tests.sh; also runs on its
# own: `bash tests/suites/grading_build.sh`). No GPU needed: every case of tests/grading/build/
# is built as a lab 01 submission with `grading/grade --compile-only`, and each must be accepted
# or rejected as tests/grading/build/expected.txt says: styles students write (globals, extern "C"
# and static kernels, templates, cooperative groups, graphs, inline PTX...) are accepted; includes
# outside the lab, host assembly, forbidden calls, unusual sections and main are rejected, with
# a reason that names them.
# A case is a folder of the files as submitted (accept_plain, the plain submission), or CASE.patch,
# a unified diff of accept_plain/vector_add.cu applied to a fresh copy when the suite runs (a
# patch that no longer applies fails, naming the case), so that a case shows only its point.
# To write a case: edit a copy of the plain submission, then
#   diff -u --label tests/grading/build/accept_plain/vector_add.cu --label CASE/vector_add.cu tests/grading/build/accept_plain/vector_add.cu copy.cu > tests/grading/build/CASE.patch

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

build_cases=tests/grading/build
build_plain=$build_cases/accept_plain/vector_add.cu
build_out=${GRADING_LOG_DIR:-$BUILD/test-logs/grading}/build-cases
build_subs=$build_out-submitted
build_broken=" "
rm -rf "$build_out" "$build_subs"
mkdir -p "$build_subs"
command -v patch > /dev/null || fail "build cases" "the build cases need GNU patch (Debian package patch)"
cp -r "$build_cases"/*/ "$build_subs/"
for p in "$build_cases"/*.patch; do
    name=$(basename "$p" .patch)
    if [ "$(patch_base "$p")" != "$build_plain" ]; then
        fail "build case $name" "$p patches '$(patch_base "$p")', not $build_plain"
        build_broken="$build_broken$name "; continue
    fi
    mkdir -p "$build_subs/$name"
    if ! log=$(patched_copy "$p" "$build_plain" "$build_subs/$name/vector_add.cu"); then
        fail "build case $name" "$p no longer applies to $build_plain: $log"
        build_broken="$build_broken$name "; rm -rf "${build_subs:?}/$name"
    fi
done
# Every case has its line in expected.txt (the loop below checks every line's case).
for c in "$build_subs"/*/; do
    c=$(basename "$c")
    grep -q "^$c[[:space:]]" "$build_cases/expected.txt" || fail "build case $c" "no line in $build_cases/expected.txt"
done
expect "grader builds and audits the build cases" 0 'results: ' \
    grading/grade --lab 01 --compile-only --seed 7 --out "$build_out" "$build_subs"
if [ "$rc" -eq 0 ]; then
    while read -r name verdict pattern; do
        case $name in ''|'#'*) continue ;; esac
        [[ "$build_broken" == *" $name "* ]] && continue  # its patch did not apply: failed already
        feedback=$build_out/feedback/$name.md
        if [ ! -f "$feedback" ]; then fail "build case $name" "no feedback written"; continue; fi
        # The reason as the feedback shows it, Markdown escapes taken out.
        reason=$(grep -m1 '^\*\*Not graded' "$feedback" | sed 's/\\//g')
        if [ "$verdict" = accept ]; then
            if [ -z "$reason" ]; then pass "build case $name: accepted"
            else fail "build case $name" "rejected: ${reason:0:300}"; fi
        elif [ -z "$reason" ]; then
            fail "build case $name" "accepted, expected a rejection matching /$pattern/"
        elif ! printf '%s\n' "$reason" | grep -qE -- "$pattern"; then
            fail "build case $name" "the reason does not match /$pattern/: ${reason:0:300}"
        else
            pass "build case $name: rejected"
        fi
    done < "$build_cases/expected.txt"
fi


# Several runs started at once from one clone whose grader is not built yet: each builds what it
# needs in the one build folder, one make at a time, and none starts a program another is still
# writing ("Text file busy"). Four `grading/grade --help` from a fresh build folder: each builds
# the check of the command line, then runs it.
fresh_build=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-fresh-build.XXXXXX")
for k in 1 2 3 4; do
    (BUILD=$fresh_build grading/grade --help > "$fresh_build/help-$k.out" 2>&1; echo $? > "$fresh_build/help-$k.rc") &
done
wait
together=ok
for k in 1 2 3 4; do
    if [ "$(cat "$fresh_build/help-$k.rc")" != 0 ] || ! grep -q -- '--lab' "$fresh_build/help-$k.out"; then
        together="run $k: exit $(cat "$fresh_build/help-$k.rc"): $(tail -c 300 "$fresh_build/help-$k.out")"
    fi
done
if [ "$together" = ok ]; then pass "four runs started at once from a fresh build folder each build and start"
else fail "four runs started at once from a fresh build folder each build and start" "$together"; fi
rm -rf "$fresh_build"
