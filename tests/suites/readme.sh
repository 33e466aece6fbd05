# The README's claims about the tree (sourced by tests/run_tests.sh; alone: bash tests/suites/readme.sh).
# No GPU needed: every path the Layout block names exists, and every top-level folder, lab
# support folder (labs/products/) and profile.sh of the tree is named there; every script the
# READMEs and guides tell users to run directly (tools/scorecard.py --help, grading/grade ...),
# and every script of tools/, bench/, handouts/tools/ and grading/, is executable.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

readme_suite() {
    local py bad
    py=$(command -v python3 || true)
    [ -n "$py" ] && [ -f README.md ] || { skip "README layout" "no python3 or README.md"; return; }
    [ -d solutions ] || { skip "README layout" "the student edition has its own README"; return; }
    bad=$("$py" tests/tools/check_readme_layout.py)
    if [ $? -eq 0 ] && [ -z "$bad" ]; then pass "README's Layout names only files of the tree, and its folders, labs/products/, profile.sh, ncu.sh"
    else fail "README's Layout matches the tree" "$(printf '%s' "$bad" | head -n 4 | tr '\n' ';')"; fi

    # make test on a machine that lacks a package the suite needs stops at once, in its first
    # line, with the one command that installs them (a copy of the Makefile, a package list that
    # names a package no machine has).
    local deps
    deps=$(mktemp -d)
    mkdir -p "$deps/tools/deps"
    cp Makefile "$deps/" && cp tools/install-deps.sh "$deps/tools/"
    echo "cudalabs-no-such-package" > "$deps/tools/deps/core.txt"
    if command -v dpkg-query > /dev/null; then
        run_capture "make test without a package" env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
            make -C "$deps" -n --no-print-directory test DEPS_CHECK=1
        if [ "$rc" -ne 0 ] && printf '%s' "$err" | head -n 1 | grep -q 'missing (cudalabs-no-such-package): run  bash tools/install-deps.sh'; then
            pass "make test stops in its first line when a package is missing, naming it and the command that installs it"
        else fail "make test stops when a package is missing" "exit $rc: $(printf '%s' "$out$err" | head -n 2)"; fi
    else skip "make test stops when a package is missing" "no dpkg here: nothing to check"; fi
    rm -rf "$deps"
}

# Scripts run directly must be executable (in git's index, which a clone gets): checked in this
# tree and in the student edition, and the check finds a script that is not
# (tests/fixtures/readme_commands/, copied into a scratch tree).
readme_commands_suite() {
    local py tmp doc docs=() want
    py=$(command -v python3 || true)
    [ -n "$py" ] && [ -f tests/tools/check_commands_executable.py ] || { skip "scripts run directly are executable" "no python3 or no checker in this edition"; return; }
    for doc in README.md grading/README.md grading/DESIGN.md tools/release/student-README.md handouts/README.md handouts/00-course.md; do
        [ -f "$doc" ] && docs+=("$doc")
    done
    run_capture "scripts run directly are executable" "$py" tests/tools/check_commands_executable.py "${docs[@]}"
    if [ "$rc" -eq 0 ]; then pass "every script the READMEs tell users to run directly, and every script of tools/, bench/ and grading/, is executable"
    else fail "scripts run directly are executable" "$(printf '%s' "$out" | head -n 4 | tr '\n' ';') (git update-index --chmod=+x FILE)"; fi
    tmp=$(mktemp -d)
    cp -r tests/fixtures/readme_commands/. "$tmp/"
    want="README.md:4: tells users to run tools/plain.py, which is not executable"
    run_capture "the executable check on a script that is not" "$py" tests/tools/check_commands_executable.py --root "$tmp" README.md
    if [ "$rc" -eq 1 ] && [ "$out" = "$want" ]; then
        pass "the check finds a script named as a command that is not executable, and leaves one run through python3 or only named alone"
    else fail "the executable check finds what it should" "exit $rc: ${out:0:300}"; fi
    rm -rf "$tmp"
}
readme_suite
readme_commands_suite
