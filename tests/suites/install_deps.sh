# The two package sets of tools/install-deps.sh (sourced by tests/run_tests.sh; alone:
# bash tests/suites/install_deps.sh). Installs nothing (--list, --check): the student's set
# (`student`) builds, tests and previews a lab without SLURM, TeX Live or Chromium, and adds
# nothing to the instructor's set (no argument: every list, what CI installs); an unknown list
# is refused in one sentence. Who installs (fake id, sudo, apt-get and dpkg-query of
# tests/fixtures/install_deps/): as root, apt-get itself; as a user, through sudo; a user without
# sudo is told in one sentence. The README's install lines work for both: no bare sudo.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

install_deps_suite() {
    local tool=tools/install-deps.sh student every instructor p missing="" extra=""
    [ -f tools/deps/student.txt ] || { skip "install-deps student" "no tools/deps/student.txt in this edition"; return; }
    student=$(bash "$tool" --list student)
    for p in make g++ python3 doctest-dev nlohmann-json3-dev binutils; do
        grep -qxF "$p" <<< "$student" || missing="$missing $p"
    done
    for p in slurmd slurmctld texlive-luatex chromium pandoc bubblewrap; do
        grep -qxF "$p" <<< "$student" && extra="$extra $p"
    done
    if [ -z "$missing$extra" ]; then pass "install-deps.sh student: make, g++, python3, the unit tests' libraries and binutils (make check's audit), no SLURM, TeX Live, Chromium or grader tools"
    else fail "install-deps.sh student" "lacks:${missing:- nothing}; has:${extra:- nothing}"; fi

    every=$(bash "$tool" --list)
    local others=() f
    for f in tools/deps/*.txt; do [ "$f" = tools/deps/student.txt ] || others+=("$(basename "$f" .txt)"); done
    instructor=$(bash "$tool" --list "${others[@]}")
    if [ -n "$every" ] && [ "$every" = "$instructor" ]; then
        pass "install-deps.sh with no argument installs the instructor's set, unchanged by the student list ($(wc -l <<< "$every") packages)"
    else fail "install-deps.sh with no argument installs the instructor's set" "differs by: $(diff <(echo "$every") <(echo "$instructor") | grep '^[<>]' | tr '\n' ' ')"; fi

    run_capture "install-deps.sh --check student" bash "$tool" --check student
    extra=""
    for p in $out; do grep -qxF "$p" <<< "$student" || extra="$extra $p"; done
    if { [ "$rc" -eq 0 ] && [ -z "$out" ]; } || { [ "$rc" -eq 1 ] && [ -n "$out" ] && [ -z "$extra" ]; }; then
        pass "install-deps.sh --check student names only the student's missing packages (${out:-none})"
    else fail "install-deps.sh --check student" "exit $rc: ${out:0:200}"; fi

    run_capture "install-deps.sh no-such-list" bash "$tool" no-such-list
    if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <<< "$err")" -eq 1 ] && [[ $err == *"no list tools/deps/no-such-list.txt (lists: "*student* ]]; then
        pass "install-deps.sh refuses an unknown list in one sentence that names the lists"
    else fail "install-deps.sh refuses an unknown list" "exit $rc: ${err:0:200}"; fi
    install_deps_who
}

# install_deps_who: install-deps.sh student with a PATH of the fixtures' fake id, dpkg-query
# (everything missing), apt-get and sudo (each call logged), and the real bash, sed, sort, grep,
# dirname and true: root runs apt-get without sudo, a user through sudo, a user without sudo is
# refused in one sentence; the README's and the student README's install lines have no sudo.
install_deps_who() {
    local tmp log t said="" bad
    tmp=$(mktemp -d) log=$tmp/log
    mkdir -p "$tmp/bin" "$tmp/nosudo"
    for t in bash sed sort grep dirname true; do ln -s "$(type -P "$t")" "$tmp/bin/$t"; ln -s "$(type -P "$t")" "$tmp/nosudo/$t"; done
    for t in id dpkg-query apt-get sudo; do ln -s "$PWD/tests/fixtures/install_deps/$t" "$tmp/bin/$t"; done
    for t in id dpkg-query apt-get; do ln -s "$PWD/tests/fixtures/install_deps/$t" "$tmp/nosudo/$t"; done
    : > "$log"
    run_capture "install-deps.sh as root" env PATH="$tmp/bin" FAKE_UID=0 FAKE_LOG="$log" "$tmp/bin/bash" tools/install-deps.sh student
    [ "$rc" -eq 0 ] && grep -q '^apt-get install .* make' "$log" && ! grep -q '^sudo' "$log" || said="$said as root: exit $rc, $(tr '\n' ';' < "$log");"
    : > "$log"
    run_capture "install-deps.sh as a user" env PATH="$tmp/bin" FAKE_UID=1000 FAKE_LOG="$log" "$tmp/bin/bash" tools/install-deps.sh student
    [ "$rc" -eq 0 ] && grep -q '^sudo apt-get install .* make' "$log" || said="$said as a user: exit $rc, $(tr '\n' ';' < "$log");"
    : > "$log"
    run_capture "install-deps.sh as a user without sudo" env PATH="$tmp/nosudo" FAKE_UID=1000 FAKE_LOG="$log" "$tmp/nosudo/bash" tools/install-deps.sh student
    [ "$rc" -eq 1 ] && [ ! -s "$log" ] && [[ $(tail -n1 <<< "$err") == *"there is no sudo here: run this as root"* ]] || said="$said a user without sudo: exit $rc, ${err:0:160};"
    bad=$(cat README.md tools/release/student-README.md 2> /dev/null | tr '\n' ' ' | grep -oE 'sudo +bash +tools/install-deps\.sh' || true)
    [ -z "$bad" ] || said="$said a README runs it through sudo: ${bad:0:160};"
    if [ -z "$said" ]; then
        pass "install-deps.sh: apt-get as root, sudo apt-get as a user, a user without sudo told; the READMEs' install lines without sudo"
    else fail "install-deps.sh as root and as a user" "$said"; fi
    rm -rf "$tmp"
}
install_deps_suite
