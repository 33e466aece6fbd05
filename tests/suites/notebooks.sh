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
    local tmp py nb name nn notebooks=() missing="" tool started
    py=""
    for tool in /usr/bin/python3 python3; do
        if "$tool" -c 'import nbformat, nbclient, ipykernel' 2> /dev/null; then py=$tool; break; fi
    done
    [ -n "$py" ] || missing=" python3-nbclient python3-ipykernel"
    for tool in pandoc git; do command -v "$tool" > /dev/null || missing="$missing $tool"; done
    if [ -n "$missing" ]; then
        if [ -n "${CI:-}" ]; then fail "notebooks" "missing tools:$missing (bash tools/install-deps.sh)"
        else skip "notebooks" "missing tools:$missing (sudo bash tools/install-deps.sh)"; fi
        return
    fi
    started=$(date +%s)
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
        run_capture "notebook $name" env CUDA_VISIBLE_DEVICES= ARCH=sm_75 BUILD="$tmp/build" \
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
    # shellcheck disable=SC2046
    cp --parents $("$py" handouts/tools/notebook_setup.py --lab 13 --list) labs/13-matvec/matvec.cu tests/run_tests.sh "$course/"
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
        [ "$rc" -eq 0 ] && run_capture "notebook with REPO_URL ($kind)" env CUDA_VISIBLE_DEVICES= ARCH=sm_75 BUILD="$tmp/build" \
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
    say "notebooks suite: $(($(date +%s) - started)) s"
}
notebooks_suite
