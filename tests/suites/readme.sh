# The README's claims about the tree (sourced by tests/run_tests.sh; alone: bash tests/suites/readme.sh).
# No GPU needed: every path the Layout block names exists, and every top-level folder, lab
# support folder (labs/products/) and profile.sh of the tree is named there.

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
        if [ "$rc" -ne 0 ] && printf '%s' "$err" | head -n 1 | grep -q 'missing (cudalabs-no-such-package): run  sudo bash tools/install-deps.sh'; then
            pass "make test stops in its first line when a package is missing, naming it and the command that installs it"
        else fail "make test stops when a package is missing" "exit $rc: $(printf '%s' "$out$err" | head -n 2)"; fi
    else skip "make test stops when a package is missing" "no dpkg here: nothing to check"; fi
    rm -rf "$deps"
}
readme_suite
