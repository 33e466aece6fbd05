# Open in Colab links (tools/colab.py, handouts/colab.conf), sourced by tests/run_tests.sh; alone:
# bash tests/suites/colab.sh. No GPU needed. The form of a base address is checked (and make
# refuses a bad one); with a base, a lab handout (web page and notebook) links its own notebook
# and the course guide every lab's, each https://colab.research.google.com/github/OWNER/REPO/
# blob/BRANCH/FOLDER/NN-topic.ipynb; without one, no link and the guide says to upload; the
# README's table is the one of the configured base.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

colab_suite() {
    local py tmp base bad="" b n want got
    py=$(command -v python3 || true)
    [ -n "$py" ] && [ -f tools/colab.py ] || { skip "colab links" "no python3 or no tools/colab.py in this edition"; return; }
    base=https://colab.research.google.com/github/course-org/cudalabs-student/blob/main/handouts
    # 1. The form of a base address.
    "$py" tools/colab.py check "$base" > /dev/null || bad="$bad rejected:$base"
    for b in http://colab.research.google.com/github/a/b/blob/main/handouts \
             https://colab.research.google.com/github/a/b/tree/main/handouts \
             https://colab.research.google.com/github/a/b/blob/main/handouts/ \
             https://colab.research.google.com/github/a/b/blob/main/handouts/01-vector-add.ipynb \
             "https://colab.research.google.com/github/a/b/blob/main/hand'outs" \
             https://github.com/a/b/blob/main/handouts; do
        "$py" tools/colab.py check "$b" > /dev/null && bad="$bad accepted:$b"
    done
    if [ -z "$bad" ]; then pass "colab.py check: Colab's GitHub form accepted, six malformed bases refused"
    else fail "colab.py check" "$bad"; fi
    run_capture "make refuses a malformed COLAB_BASE" make -n --no-print-directory handouts COLAB_BASE=https://github.com/a/b/blob/main/handouts
    if [ "$rc" -ne 0 ] && printf '%s' "$err" | grep -q 'COLAB_BASE not of the form https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/FOLDER'; then
        pass "make handouts refuses a malformed COLAB_BASE, saying the form"
    else fail "make handouts refuses a malformed COLAB_BASE" "exit $rc: $(printf '%s' "$err" | head -n 2)"; fi
    command -v pandoc > /dev/null || { skip "colab links in the handouts" "no pandoc"; return; }
    # 2. The links in the handouts.
    tmp=$(mktemp -d)
    mkdir -p "$tmp/nobench"
    "$py" handouts/tools/results.py --bench-dir "$tmp/nobench" --out "$tmp/gen" 01 > /dev/null
    "$py" handouts/tools/rubric.py --out "$tmp/gen" 01 > /dev/null
    local flags=(--lua-filter handouts/filters/cudalabs.lua --resource-path=.:handouts -M edition=student -M gen_dir="$tmp/gen" -M python="$py")
    pandoc handouts/01-vector-add.md "${flags[@]}" -M colab_base="$base" -t html -o "$tmp/01.html" \
        && pandoc handouts/01-vector-add.md "${flags[@]}" -M colab_base="$base" -t ipynb -o "$tmp/01.ipynb" \
        && pandoc handouts/00-course.md "${flags[@]}" -M colab_base="$base" -t html -o "$tmp/00.html" \
        && pandoc handouts/01-vector-add.md "${flags[@]}" -t html -o "$tmp/01-none.html" \
        && pandoc handouts/00-course.md "${flags[@]}" -t html -o "$tmp/00-none.html"
    rc=$?
    n=$(ls -d labs/[0-9][0-9]-*/ | wc -l)
    want=$(for d in labs/[0-9][0-9]-*/; do echo "$base/$(basename "$d").ipynb"; done)
    got=$(grep -o 'href="https://colab[^"]*"' "$tmp/00.html" | sed 's/^href="//; s/"$//')
    if [ "$rc" -eq 0 ] && grep -q "href=\"$base/01-vector-add.ipynb\"" "$tmp/01.html" \
        && grep -q "($base/01-vector-add.ipynb)" "$tmp/01.ipynb" \
        && [ "$(grep -o 'https://colab[^")]*' "$tmp/01.html" | sort -u | wc -l)" -eq 1 ] \
        && [ "$got" = "$want" ]; then
        pass "with COLAB_BASE: lab 01's page and notebook link $base/01-vector-add.ipynb; the course guide links all $n labs"
    else fail "Open in Colab links in the handouts" "exit $rc; guide has $(printf '%s\n' "$got" | grep -c .) of $n; lab 01: $(grep -o 'https://colab[^"]*' "$tmp/01.html" | head -n 1)"; fi
    if ! grep -q 'colab.research.google.com' "$tmp/01-none.html" "$tmp/00-none.html" \
        && grep -q 'upload a lab.s notebook' "$tmp/00-none.html"; then
        pass "without COLAB_BASE: no Colab link, and the course guide says to upload the notebook"
    else fail "without COLAB_BASE" "a link, or no word about uploading"; fi
    # 3. The README's table is the configured base's.
    run_capture "README's Colab table" "$py" tools/colab.py readme README.md --check
    if [ "$rc" -eq 0 ]; then pass "README's Open in Colab block is the one of handouts/colab.conf's COLAB_BASE"
    else fail "README's Open in Colab block" "$out"; fi
    cp README.md "$tmp/README.md"
    "$py" tools/colab.py readme "$tmp/README.md" --base "$base"
    if [ "$(grep -c "^| [0-9][0-9] | \[[0-9][0-9]-[a-z0-9-]*\.ipynb, Open in Colab\]($base/[0-9][0-9]-[a-z0-9-]*\.ipynb) |\$" "$tmp/README.md")" -eq "$n" ]; then
        pass "colab.py readme: one link per lab, of the form $base/NN-topic.ipynb"
    else fail "colab.py readme" "$(grep -m2 'Open in Colab' "$tmp/README.md")"; fi
    colab_rebuild "$tmp" "$base"
    rm -rf "$tmp"
}

# colab_rebuild TMP BASE: lab 01's notebook built by make (BUILD=TMP/build) with BASE, then with
# another base, then with none: each build links that base's notebook, and the last none. A
# notebook that make leaves as it was (COLAB_BASE not among its dependencies) fails.
colab_rebuild() {
    local tmp=$1 base=$2 other nb said="" b
    other=${base/course-org/another-org}
    nb=$tmp/build/handouts/student/01-vector-add.ipynb
    for b in "$base" "$other" ""; do
        if ! make -s --no-print-directory BUILD="$tmp/build" "$nb" COLAB_BASE="$b" > "$tmp/make.log" 2>&1; then
            said="$said make with COLAB_BASE='$b' failed: $(tail -n 2 "$tmp/make.log");"; continue
        fi
        if [ -n "$b" ]; then
            grep -q "($b/01-vector-add.ipynb)" "$nb" || said="$said no link to $b/01-vector-add.ipynb after a build with it;"
            [ "$b" = "$base" ] || ! grep -q "$base" "$nb" || said="$said the link to $base stayed;"
        else
            ! grep -q 'colab.research.google.com' "$nb" || said="$said a Colab link without COLAB_BASE;"
        fi
    done
    if [ -z "$said" ]; then
        pass "make rebuilds the notebooks when COLAB_BASE changes: one base's links, then another's, then none"
    else fail "COLAB_BASE rebuilds the notebooks" "$said"; fi
}
colab_suite
