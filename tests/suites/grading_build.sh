# The grader's build and audit of a submission (sourced by tests/run_tests.sh; also runs on its
# own: `bash tests/suites/grading_build.sh`). No GPU needed: every folder of tests/grading/build/
# is built as a lab 01 submission with `grading/grade --compile-only`, and each must be accepted
# or rejected as tests/grading/build/expected.txt says: styles students write (globals, extern "C"
# and static kernels, templates, cooperative groups, graphs, inline PTX...) are accepted; includes
# outside the lab, host assembly, forbidden calls, unusual sections and main are rejected, with
# a reason that names them.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

build_cases=tests/grading/build
build_out=${GRADING_LOG_DIR:-$BUILD/test-logs/grading}/build-cases
rm -rf "$build_out"
expect "grader builds and audits the build cases" 0 'results: ' \
    grading/grade --lab 01 --compile-only --seed 7 --out "$build_out" "$build_cases"
if [ "$rc" -eq 0 ]; then
    while read -r name verdict pattern; do
        case $name in ''|'#'*) continue ;; esac
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

