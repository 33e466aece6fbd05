#!/usr/bin/env bash
# Installs the Debian packages cudalabs needs, listed in tools/deps/*.txt (one file per part of
# the project: core, handouts, grading, release, cluster; student is what a student needs).
# Installs only what is missing. Run it as yourself or as root: it uses sudo only when not root.
#   bash tools/install-deps.sh            every list: the instructor's and the tests' set (CI)
#   bash tools/install-deps.sh student    a student's set: build, the lab's tests, make check
#                                         (with the grader's audit: g++, nlohmann-json, binutils),
#                                         make profileNN and make scorecard (tools/deps/student.txt)
#   bash tools/install-deps.sh core       only tools/deps/core.txt
#   bash tools/install-deps.sh --check core handouts
#                                         installs nothing: prints the missing packages of those
#                                         lists (of the ones this tree has) on one line, exit 1
#                                         if any; exit 0 and nothing printed where there is no
#                                         dpkg (not Debian: nothing to check). make test uses it.
#   bash tools/install-deps.sh --list student
#                                         installs nothing: prints the packages of those lists,
#                                         one per line
# In a list, '#' starts a comment and a word @NAME stands for the packages of NAME.txt.
set -euo pipefail
cd "$(dirname "$0")/deps"
check=0 list=0
[ "${1:-}" = --check ] && { check=1; shift; }
[ "${1:-}" = --list ] && { list=1; shift; }
lists=("$@")
[ ${#lists[@]} -eq 0 ] && lists=(*.txt) || lists=("${lists[@]/%/.txt}")
for l in "${lists[@]}"; do
    if [ ! -f "$l" ] && [ "$check" = 0 ]; then
        known=(*.txt)
        echo "install-deps: no list tools/deps/$l (lists: ${known[*]%.txt})" >&2
        exit 2
    fi
done
if [ "$check" = 1 ]; then
    command -v dpkg-query > /dev/null || exit 0
    present=()
    for l in "${lists[@]}"; do [ -f "$l" ] && present+=("$l"); done
    [ ${#present[@]} -eq 0 ] && exit 0
    lists=("${present[@]}")
fi
# packages_of LIST.txt...: the packages the lists name, one per line.
packages_of() {
    local word
    for word in $(sed 's/#.*//' "$@"); do
        case $word in
            @*) packages_of "${word#@}.txt";;
            *) echo "$word";;
        esac
    done
}
packages=$(packages_of "${lists[@]}" | sort -u)
[ "$list" = 1 ] && { echo "$packages"; exit 0; }
missing=()
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$check" = 1 ] && { echo "${missing[*]}"; exit 1; }
echo "install-deps: installing ${missing[*]}"
# As root (a container, CI), apt-get itself; as a user, through sudo, which asks for the password
# where it needs one and a terminal is there to ask on.
if [ "$(id -u)" -eq 0 ]; then SUDO=""
elif ! command -v sudo > /dev/null; then
    echo "install-deps: installing needs root, and there is no sudo here: run this as root (su -c 'bash tools/install-deps.sh ...')" >&2; exit 1
elif [ -t 0 ] || sudo -n true 2>/dev/null; then SUDO="sudo"
else echo "install-deps: installing needs root, and sudo cannot ask for a password here (no terminal): run it from a terminal, or as root" >&2; exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
