# The handouts' tests, sourced by tests/run_tests.sh (pass/fail/skip/expect/run_capture, $BUILD);
# alone: bash tests/suites/handouts.sh.
# No GPU needed: every lab has a handout; every lab's handout shows a figure, each a well-formed
# SVG, and handouts/figures/ is what handouts/tools/figures.py draws, byte for byte (these need
# Python alone); every code include resolves; each handout builds (PDF, HTML, notebook; student
# and instructor editions) without warnings; each PDF has its pages numbered and a non-blank first
# page, no heading or caption alone at a page's end, and short tables whole; each HTML page loads
# in headless Chromium without errors and its screenshot is not blank; each notebook validates
# (nbformat) and its cells are in order; the instructor handouts' rubric tables are the grader's
# rubrics; each handout's figures are in its HTML page (the SVG file itself, embedded) and in its
# PDF (converted, in the LaTeX source); in print, every figure's text is at least 8 pt
# (tests/tools/figure_fonts.py) and no page but the last is more than half empty (check.py fill).
# HANDOUTS="08-transpose 12-matmul-fast" builds and checks those handouts only.
# The tools: tools/deps/handouts.txt. Missing tools skip these tests, except in CI where they fail.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# rubric_as_graded RUBRIC: its total points, then each test's name a line, as the grader reads it
# (its tests of the lab's rungs expanded from ./solNN --describe, tools/grade_preview.py).
rubric_as_graded() { python3 tests/tools/rubric_as_graded.py "$1"; }

# figures_differ WANT GOT: the SVG files that differ between two folders or are in one only
# (nothing when the folders hold the same files, byte for byte).
figures_differ() {
    diff -rq "$1" "$2" 2> /dev/null | sed -E 's|^Files .*/([^/]+) and .* differ$|\1 differs|; s|^Only in ([^:]+): (.*)$|\2 only in \1|' | tr '\n' ';'
}

# The figures: Python alone, so they are checked where the build tools are missing too.
handouts_figures() {
    local tmp nn md differ
    tmp=$(mktemp -d)
    # handouts/tools/figures.py draws them, the SVG files are committed. Every lab's handout
    # (make list-labs: a new lab joins with its figure) shows one, with a caption; each figure a
    # handout names exists and is a well-formed SVG document; the committed files are what the
    # script draws now, byte for byte (run it after changing it, and after new results in
    # bench/results/, from which lab 06's timeline is drawn). Each check also finds what it is
    # meant to find.
    for nn in $(make -s --no-print-directory list-labs); do
        md=$(ls handouts/"$nn"-*.md 2> /dev/null | head -n 1)
        if [ -z "$md" ]; then fail "lab$nn handout shows a figure" "no handouts/$nn-*.md"; continue; fi
        expect "lab$nn handout shows a figure, a well-formed SVG with a caption" 0 'figures/' \
            python3 handouts/tools/check.py figures "$md"
    done
    mkdir -p "$tmp/fig/figures"
    printf -- '---\nlab: "01"\n---\n\nText without a figure.\n' > "$tmp/fig/none.md"
    expect "handouts: a lab handout without a figure is found" 1 'none.md: shows no figure' \
        python3 handouts/tools/check.py figures "$tmp/fig/none.md"
    printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect></svg>\n' > "$tmp/fig/figures/bad.svg"
    printf -- '![A broken figure.](figures/bad.svg)\n\n![A lost one.](figures/lost.svg)\n\n![](figures/bad.svg)\n' > "$tmp/fig/bad.md"
    expect "handouts: a figure that is not well-formed XML, a missing one, one without a caption are found" 1 \
        'bad.svg: not well-formed XML.*lost.svg: not found.*bad.svg has no caption' \
        bash -c 'python3 handouts/tools/check.py figures "$1" | tr "\n" " "; exit "${PIPESTATUS[0]}"' _ "$tmp/fig/bad.md"
    run_capture "handouts: figures.py draws the figures" python3 handouts/tools/figures.py --out "$tmp/fig/drawn"
    if [ "$rc" -ne 0 ]; then
        fail "handouts/figures/ is what figures.py draws" "figures.py: exit $rc: $(printf '%s' "$err" | tail -n 1)"
    else
        differ=$(figures_differ handouts/figures "$tmp/fig/drawn")
        if [ -z "$differ" ]; then
            pass "handouts/figures/ is what figures.py draws ($(ls "$tmp/fig/drawn" | wc -l) SVG files, byte for byte)"
        else fail "handouts/figures/ is what figures.py draws" "${differ%;} (python3 handouts/tools/figures.py)"; fi
        cp -r "$tmp/fig/drawn" "$tmp/fig/changed"
        printf '<!-- -->\n' >> "$tmp/fig/changed/$(ls "$tmp/fig/changed" | head -n 1)"
        differ=$(figures_differ "$tmp/fig/drawn" "$tmp/fig/changed")
        if [ -n "$differ" ]; then pass "handouts: a figure that differs from figures.py's is found (${differ%;})"
        else fail "handouts: a figure that differs from figures.py's is found" "no difference reported"; fi
    fi
    rm -rf "$tmp"
}

# 1. Every lab has a handout with the lab's folder name and its number in the metadata.
handouts_every_lab() {
    local lab_dir name nn md
    for lab_dir in labs/[0-9][0-9]-*/; do
        name=$(basename "$lab_dir"); nn=${name%%-*}
        md=handouts/$name.md
        if [ ! -f "$md" ]; then fail "lab$nn has a handout" "no $md"
        elif ! grep -qE "^lab: \"?$nn\"?\$" "$md"; then fail "lab$nn has a handout" "$md lacks 'lab: \"$nn\"'"
        else pass "lab$nn has a handout ($md)"; fi
    done
    # ... and every handout belongs to a lab (or is the course guide).
    for md in handouts/[0-9][0-9]-*.md; do
        name=$(basename "$md" .md)
        [ "${name%%-*}" = 00 ] && continue
        [ -d "labs/$name" ] || fail "handout $md" "no lab folder labs/$name: its includes cannot resolve"
    done
}

# 2. Every code include resolves, in both editions (the filter alone: fast, exact messages;
#    the results sections from an empty benchmark folder).
handouts_includes() {
    local md ed
    mkdir -p "$tmp/nobench"
    python3 handouts/tools/results.py --bench-dir "$tmp/nobench" --out "$tmp/gen-empty" \
        $(ls handouts/[0-9][0-9]-*.md | sed 's|handouts/\([0-9][0-9]\)-.*|\1|' | grep -v '^00$')
    python3 handouts/tools/rubric.py --out "$tmp/gen-empty" \
        $(ls handouts/[0-9][0-9]-*.md | sed 's|handouts/\([0-9][0-9]\)-.*|\1|' | grep -v '^00$')
    for md in handouts/[0-9][0-9]-*.md; do
        for ed in student instructor; do
            run_capture "includes of $md ($ed)" pandoc "$md" --lua-filter handouts/filters/cudalabs.lua \
                -M edition=$ed -M gen_dir="$tmp/gen-empty" -t native -o /dev/null
            if [ "$rc" -eq 0 ]; then
                pass "includes of $md resolve ($ed)"
            else fail "includes of $md resolve ($ed)" "$(printf '%s' "$err" | head -n 3)"; fi
        done
    done
}

# 3. The filter's failures are real: a missing region, a solution excerpt outside the
#    instructor part, and the student edition holds no instructor material.
handouts_filter_failures() {
    printf -- '---\nlab: "01"\n---\n\n```{.cuda include=starter region=no_such_region}\n```\n' > "$tmp/bad-region.md"
    expect "handouts: a missing region stops the build" 3 "has no region 'no_such_region'" \
        pandoc "$tmp/bad-region.md" --lua-filter handouts/filters/cudalabs.lua -t native
    printf -- '---\nlab: "01"\n---\n\n```{.cuda include=solution region=simple}\n```\n' > "$tmp/leak.md"
    expect "handouts: a solution excerpt outside ::: instructor stops the build" 3 "would reach students" \
        pandoc "$tmp/leak.md" --lua-filter handouts/filters/cudalabs.lua -t native -M edition=instructor
    printf -- '---\nlab: "99"\n---\n\n```{.cuda include=starter region=x}\n```\n' > "$tmp/nolab.md"
    expect "handouts: a lab without a folder is named" 3 "lab 99 has no folder" \
        pandoc "$tmp/nolab.md" --lua-filter handouts/filters/cudalabs.lua -t native

    printf '%s\n' '\documentclass{article}\begin{document}' \
        'x \texttt{a_very_long_identifier_that_cannot_break_and_runs_into_the_margin_of_the_page_beyond_it}' \
        '\end{document}' | sed 's/_/x/g' > "$tmp/overfull.tex"
    expect "handouts: text in the margin of a PDF is reported" 1 'Overfull' \
        bash handouts/tools/latex.sh "$tmp/overfull.tex" "$tmp/overfull.pdf"
}

# 4. Results from a benchmark file (a fixture in the format of bench/run.sh).
handouts_results() {
    expect "handouts: results.py builds tables, the chart and the book comparison" 0 '' \
        python3 handouts/tools/results.py --bench-dir handouts/tests/bench --out "$tmp/gen" 01 11
    # The reference's numbers once: one table per GPU and one chart (results-NN-chart.svg, a bar
    # per GPU), no chart per GPU and no scorecard.
    if grep -q '| `fast` | 67108864 |' "$tmp/gen/results-01.md" 2> /dev/null \
        && [ "$(ls "$tmp"/gen/results-01-*.svg 2> /dev/null)" = "$tmp/gen/results-01-chart.svg" ] \
        && [ "$(grep -c '!\[' "$tmp/gen/results-01.md")" -eq 1 ] \
        && grep -q 'class="bar"[^>]*data-variant="fast" data-size="67108864"' "$tmp/gen/results-01-chart.svg" \
        && grep -q '`padded16`' "$tmp/gen/results-11.md" && grep -q '| 596.6 |' "$tmp/gen/results-11.md" \
        && grep -q '`padded16` over `unpadded16` | 2048 | 2.67× |' "$tmp/gen/results-11.md"; then
        pass "handouts: results tables hold the fixture's rows, its contrasts and the C2070 figures; one chart, no other"
    else fail "handouts: results tables" "see $tmp/gen"; fi
    # The chart of the committed results: a bar of each GPU for every timed row, with its ratio;
    # and the check finds a bar that is not the results'.
    local nn bad=""
    python3 handouts/tools/results.py --bench-dir bench/results --out "$tmp/gen-bench" 01 06 08 12 13
    for nn in 01 06 08 12 13; do
        python3 tests/tools/check_results_chart.py "$tmp/gen-bench/results-$nn-chart.svg" bench/results "$nn" > /dev/null || bad="$bad $nn"
    done
    sed '0,/data-ratio="[^"]*"/s//data-ratio="9.5"/' "$tmp/gen-bench/results-08-chart.svg" > "$tmp/gen-bench/bad-chart.svg"
    if [ -z "$bad" ] && ! python3 tests/tools/check_results_chart.py "$tmp/gen-bench/bad-chart.svg" bench/results 08 > /dev/null; then
        pass "handouts: the results chart has a bar of every GPU for every timed row of bench/results, with its ratio (labs 01 06 08 12 13), and the check finds a wrong bar"
    else fail "handouts: the results chart's bars are the results'" "wrong in labs:${bad:- none}; or the check missed a wrong bar"; fi
}

# 5. Build everything (make -k: one broken handout does not hide the others).
handouts_build() {
    local what="handouts handouts-instructor" name
    if [ -n "${HANDOUTS:-}" ]; then
        what=""
        for name in $HANDOUTS; do
            what="$what $(printf "$BUILD/handouts/%s/$name.pdf $BUILD/handouts/%s/$name.html " student student instructor instructor)"
            [ "${name%%-*}" = 00 ] || what="$what $BUILD/handouts/student/$name.ipynb $BUILD/handouts/instructor/$name.ipynb"
        done
    fi
    run_capture "make $what" make -k -s --no-print-directory $what BUILD="$BUILD"
    if [ "$rc" -eq 0 ]; then pass "make ${HANDOUTS:-handouts handouts-instructor}"
    else fail "make ${HANDOUTS:-handouts handouts-instructor}" "exit $rc: $(printf '%s' "$err" | grep -v '^make' | head -n 3)"; fi
    if printf '%s' "$err" | grep -qiE '\[WARNING\]|warning:'; then
        fail "handouts build without warnings" "$(printf '%s' "$err" | grep -iE 'warning' | head -n 2)"
    else pass "handouts build without warnings"; fi
}

# 6. The rubric tables are the grader's rubrics: the instructor handout shows each test's
#    name and the rubric's total; a rubric the table cannot read stops the build.
handouts_rubric_tables() {
    local nn f name
    local rubric total missing_tests page
    for rubric in grading/rubrics/[0-9][0-9].rubric; do
        nn=$(basename "$rubric" .rubric)
        f=$(ls "$out_dir"/instructor/"$nn"-*.html 2> /dev/null | head -n 1)
        [ -n "$f" ] && handouts_chosen "$(basename "$f" .html)" || continue
        total=$(rubric_as_graded "$rubric" | head -n 1)
        page=$(tr -s ' \n' '  ' < "$f")  # the page's text on one line: HTML wraps long cells
        missing_tests=$(rubric_as_graded "$rubric" | tail -n +2 | while IFS= read -r name; do
            [[ $page == *"${name//&/&amp;}"* ]] || printf ' [%s]' "$name"; done)
        if [[ $page == *"Grading rubric ($total points)"* ]] && [ -z "$missing_tests" ]; then
            pass "lab$nn instructor handout: the rubric table is $rubric ($total points)"
        else fail "lab$nn instructor handout's rubric table" "want $total points and every test; missing:$missing_tests"; fi
    done
    # 6b. Every student handout says which file to hand in and how it is graded: the file, the
    #     rubric's total and each of its tests (handin-NN.md, from the same rubric).
    local handin_file
    for rubric in grading/rubrics/[0-9][0-9].rubric; do
        nn=$(basename "$rubric" .rubric)
        f=$(ls "$out_dir"/student/"$nn"-*.html 2> /dev/null | head -n 1)
        [ -n "$f" ] && handouts_chosen "$(basename "$f" .html)" || continue
        handin_file=$(basename "$(ls labs/"$nn"-*/*.cu | grep -v '/driver\.cu$')")
        total=$(rubric_as_graded "$rubric" | head -n 1)
        page=$(tr -s ' \n' '  ' < "$f")
        missing_tests=$(rubric_as_graded "$rubric" | tail -n +2 | while IFS= read -r name; do
            [[ $page == *"${name//&/&amp;}"* ]] || printf ' [%s]' "$name"; done)
        if [[ $page == *"Hand in two files"* ]] && [[ $page == *"<code>$handin_file</code>, the one you completed;"* ]] \
            && [[ $page == *"<code>answers.txt</code>, your answers to the questions"* ]] && [[ $page == *"$total points in all"* ]] \
            && [ -z "$missing_tests" ]; then
            pass "lab$nn student handout: hand in $handin_file; graded by $rubric ($total points, every test)"
        else fail "lab$nn student handout says what to hand in" "want $handin_file, $total points and every test; missing:$missing_tests"; fi
    done
    printf '[test x]\nname = X\nkind = correctness\n' > "$tmp/99.rubric"
    expect "handouts: a rubric test without points stops the rubric table" 1 '99.rubric:1: test .x.: needs points' \
        python3 handouts/tools/rubric.py --rubrics "$tmp" --out "$tmp/gen-bad" 99
}

# 7. Print: a short table is not split across pages (30 lines of filler put this one's start
#    near the end of page 1), and the page check finds a heading left alone at a page's end.
handouts_print() {
    local f
    { printf -- '---\ntitle: "Keep together"\n---\n\n```cpp\nint x = 0;\n```\n\n'
      for f in $(seq 1 30); do printf 'Filler paragraph %s, one line of text on the page.\n\n' "$f"; done
      printf '| variant | time |\n|---|---:|\n'; for f in $(seq 1 16); do printf '| row%s | %s |\n' "$f" "$f"; done
    } > "$tmp/keep.md"
    run_capture "handouts: a short table near a page's end" pandoc "$tmp/keep.md" --from markdown \
        --lua-filter handouts/filters/cudalabs.lua -M gen_dir="$tmp" --standalone -t latex -V papersize=a4 \
        -V geometry:margin=1.8cm -V fontsize=10pt -V 'mainfont=DejaVu Serif' -V 'monofont=DejaVu Sans Mono' \
        -H handouts/style/header.tex -o "$tmp/keep.tex"
    [ "$rc" -eq 0 ] && run_capture "handouts: a short table near a page's end (PDF)" bash handouts/tools/latex.sh "$tmp/keep.tex" "$tmp/keep-table.pdf"
    local pages_of_rows
    pages_of_rows=$(pdftotext -layout "$tmp/keep-table.pdf" - 2> /dev/null | awk 'BEGIN { RS = "\f" } /row1 / { a = NR } /row16 / { b = NR } END { print a "-" b }')
    if [ "$rc" -eq 0 ] && [[ $pages_of_rows =~ ^([0-9]+)-([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
        pass "handouts: a short table is not split across pages"
    else fail "handouts: a short table is not split across pages" "exit $rc, rows on pages $pages_of_rows"; fi
    printf '%s\n' '\documentclass{article}\begin{document}' '\section{First part}\label{a}' 'Text.' \
        '\section{A heading left alone}\label{b}' '\newpage' 'Its text.' '\newpage' 'The end.' '\end{document}' > "$tmp/alone.tex"
    (cd "$tmp" && lualatex -interaction=nonstopmode alone.tex > /dev/null 2>&1)
    expect "handouts: the page check finds a heading alone at a page's end" 1 "page 1 ends with the heading 'A heading left alone'" \
        python3 handouts/tools/check.py pages "$tmp/alone.pdf" "$tmp/alone.tex"
    # Inline code broken at a hyphen is found; the prose word "device" hyphenated on a page that
    # also shows `__device__` is not.
    expect "handouts: the page check finds inline code broken at a hyphen, not a prose word inside a code word" 0 '^found 2, prose 0$' \
        python3 -c 'import sys; sys.path.insert(0, "handouts/tools"); import check
code = {"__device__", "cudaMemcpyToSymbol(c_limit,"}
found = check.hyphenated_code(["with cudaMemcpy-", "ToSymbol(c_limit, then a __de-", "vice__ variable"], code)
prose = check.hyphenated_code(["a copy from de-", "vice to device"], code)
print(f"found {len(found)}, prose {len(prose)}")'
    # A page half empty before a page break (a float or a block kept together would leave the
    # same), and a figure whose text prints below 8 pt, are found.
    printf '%s\n' '\documentclass{article}\usepackage[margin=1.8cm,a4paper]{geometry}\begin{document}' \
        'A few lines.\par More.\newpage' "$(for f in $(seq 1 60); do printf 'Line %s.\\par ' "$f"; done)" \
        '\newpage The end.' '\end{document}' > "$tmp/empty.tex"
    (cd "$tmp" && lualatex -interaction=nonstopmode empty.tex > /dev/null 2>&1)
    expect "handouts: the fill check finds a half-empty page" 1 "page 1 is [0-9]+% empty below its last line" \
        python3 handouts/tools/check.py fill "$tmp/empty.pdf"
    expect "handouts: the fill check passes full pages and an empty last one" 0 "no page but the last" \
        python3 handouts/tools/check.py fill "$tmp/empty.pdf" 0.999
    mkdir -p "$tmp/fonts/gen/pdf"
    printf '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="100" font-size="12"><text x="4" y="40">wide</text><g font-size="9"><text x="4" y="80">small</text></g></svg>\n' > "$tmp/fonts/gen/small.svg"
    printf '%s\n' '\usepackage[margin=1.8cm,a4paper]{geometry}' \
        "\\includegraphics[width=0.9\\textwidth,height=\\textheight]{$tmp/fonts/gen/pdf/x_md-student-$(printf '%s' "$tmp/fonts/gen/small.svg" | tr '/.' '__').pdf}" > "$tmp/fonts/x.tex"
    expect "handouts: figure text printed below 8 pt is found (9 units at 444 pt for 1000: 4.0 pt)" 1 \
        "small.svg: 2 of 2 texts print below 8 pt, the smallest at 4.0 pt" python3 tests/tools/figure_fonts.py "$tmp/fonts/x.tex"
}

# handouts_pdf NAME ED F: the PDF F.pdf has at least two pages, numbered (the last page's footer
# is the page count), no heading or caption alone at a page's end, and a first page with ink on it.
handouts_pdf() {
    local name=$1 ed=$2 f=$3
    if [ ! -s "$f.pdf" ]; then fail "$name.pdf ($ed)" "not built"
    else
        local pages last
        pages=$(pdfinfo "$f.pdf" 2> /dev/null | sed -n 's/^Pages: *//p')
        last=$(pdftotext -f "$pages" -l "$pages" -layout "$f.pdf" - 2> /dev/null | sed '/^[[:space:]]*$/d' | tail -n 1 | tr -d ' \f')
        if [ "${pages:-0}" -lt 2 ] || [ "$last" != "$pages" ]; then
            fail "$name.pdf ($ed) pages" "$pages pages, last page footer '$last'"
        else pass "$name.pdf ($ed): $pages numbered pages"; fi
        expect "$name.pdf ($ed): no heading or caption alone at a page's end" 0 'no heading' \
            python3 handouts/tools/check.py pages "$f.pdf" "$out_dir/tex/$ed/$name.tex"
        run_capture "$name.pdf ($ed): no page but the last half empty" python3 handouts/tools/check.py fill "$f.pdf"
        if [ "$rc" -eq 0 ]; then pass "$name.pdf ($ed): no page but the last half empty"
        else fail "$name.pdf ($ed): no page but the last half empty" "$(printf '%s' "$out" | head -n 2)"; fi
        run_capture "$name.pdf ($ed): figure text at 8 pt or more" python3 tests/tools/figure_fonts.py "$out_dir/tex/$ed/$name.tex"
        if [ "$rc" -eq 0 ]; then pass "$name.pdf ($ed): every figure's text prints at 8 pt or more"
        else fail "$name.pdf ($ed): every figure's text prints at 8 pt or more" "$(printf '%s' "$out" | head -n 3)"; fi
        pdftoppm -r 40 -gray -f 1 -l 1 "$f.pdf" "$tmp/page" > /dev/null 2>&1
        expect "$name.pdf ($ed): first page is not blank" 0 'not background' \
            "$py" handouts/tools/check.py nonblank "$(ls "$tmp"/page*.pgm | head -n 1)"
        rm -f "$tmp"/page*.pgm
    fi
}

# handouts_html NAME ED F: the page F.html loads in headless Chromium without console errors and
# its screenshot has ink; the student edition shows no solution and no instructor notes.
handouts_html() {
    local name=$1 ed=$2 f=$3
    if [ ! -s "$f.html" ]; then fail "$name.html ($ed)" "not built"
    else
        run_capture "$name.html ($ed) in chromium" chromium --headless --no-sandbox --disable-gpu \
            --hide-scrollbars --window-size=1000,1400 --enable-logging=stderr --v=0 \
            --user-data-dir="$tmp/chromium" --screenshot="$tmp/shot.png" "file://$(realpath "$f.html")"
        if [ "$rc" -ne 0 ] || [ ! -s "$tmp/shot.png" ]; then
            fail "$name.html ($ed) loads in chromium" "exit $rc, no screenshot"
        elif printf '%s' "$err" | grep -E 'CONSOLE|Uncaught|Failed to load|net::ERR_' | grep -v 'dbus' | grep -q .; then
            fail "$name.html ($ed) loads in chromium" "$(printf '%s' "$err" | grep -E 'CONSOLE|Uncaught|Failed|ERR_' | head -n 2)"
        else
            expect "$name.html ($ed) loads in chromium, screenshot not blank" 0 'not background' \
                "$py" handouts/tools/check.py nonblank "$tmp/shot.png"
        fi
        rm -f "$tmp/shot.png"
    fi
    # The student edition shows no solution and no instructor notes.
    if [ "$ed" = student ] && [ -s "$f.html" ]; then
        if grep -qE 'Instructor edition\.|Solution, ' "$f.html" "$f.ipynb" 2> /dev/null; then
            fail "$name ($ed) holds no instructor material"
        else pass "$name ($ed) holds no instructor material"; fi
    fi
}

# handouts_figures_shown MD NAME ED F: the handout's figures are on its pages: in the HTML the SVG
# file itself, embedded; in the PDF each figure converted by the filter and included by the LaTeX
# source.
handouts_figures_shown() {
    local md=$1 name=$2 ed=$3 f=$4
    local fig figs missing_figs
    figs=$(grep -oE '\]\(figures/[^)]+\.svg\)' "$md" | sed -E 's|^\]\(figures/||; s|\.svg\)$||' | sort -u)
    if [ -n "$figs" ] && [ -s "$f.html" ] && [ -s "$out_dir/tex/$ed/$name.tex" ]; then
        missing_figs=""
        for fig in $figs; do
            grep -qF "$(base64 -w0 "handouts/figures/$fig.svg")" "$f.html" || missing_figs="$missing_figs $fig.svg (HTML)"
            grep -qF "figures_${fig}_svg.pdf" "$out_dir/tex/$ed/$name.tex" || missing_figs="$missing_figs $fig.svg (PDF)"
        done
        if [ -z "$missing_figs" ]; then pass "$name ($ed): its figures in the HTML and the PDF: $(echo $figs)"
        else fail "$name ($ed): its figures in the HTML and the PDF" "missing:$missing_figs"; fi
    fi
}

# handouts_chosen NAME: whether the handout NAME is among those checked ($HANDOUTS, else all).
handouts_chosen() { [ -z "${HANDOUTS:-}" ] || [[ " $HANDOUTS " == *" $1 "* ]]; }

# handouts_each_output: every handout's PDF, HTML page and (labs only) notebook, in both editions.
handouts_each_output() {
    local md name nn ed f starter
    for md in handouts/[0-9][0-9]-*.md; do
        name=$(basename "$md" .md); nn=${name%%-*}
        handouts_chosen "$name" || continue
        for ed in student instructor; do
            f=$out_dir/$ed/$name
            handouts_pdf "$name" "$ed" "$f"
            handouts_html "$name" "$ed" "$f"
            handouts_figures_shown "$md" "$name" "$ed" "$f"
            # Notebook (labs only): valid, and the cells in the order a student runs them.
            [ "$nn" = 00 ] && continue
            if [ ! -s "$f.ipynb" ]; then fail "$name.ipynb ($ed)" "not built"; continue; fi
            starter=$(ls "labs/$name"/*.cu 2> /dev/null | grep -v '/driver\.cu$' | head -n 1)
            expect "$name.ipynb ($ed): valid, cells in order" 0 'cells in order' \
                "$py" handouts/tools/check.py notebook "$f.ipynb" "$starter" "$nn"
        done
    done
}

handouts_suite() {
    local out_dir=$BUILD/handouts tmp missing="" tool py
    handouts_figures
    for tool in pandoc lualatex rsvg-convert pdfinfo pdftoppm pdftotext chromium; do
        command -v "$tool" > /dev/null || missing="$missing $tool"
    done
    py=""
    for tool in /usr/bin/python3 python3; do
        if "$tool" -c 'import nbformat' 2> /dev/null; then py=$tool; break; fi
    done
    [ -n "$py" ] || missing="$missing python3-nbformat"
    lacks_tools handouts handouts "$missing" && return
    tmp=$(mktemp -d)
    handouts_every_lab
    handouts_includes
    handouts_filter_failures
    handouts_results
    handouts_build
    handouts_rubric_tables
    handouts_print
    handouts_each_output
    rm -rf "$tmp"
}
handouts_suite
