#!/usr/bin/env bash
# latex.sh FILE.tex OUT.pdf: LuaLaTeX on a handout (run from the repository root, where the
# figure paths start), then the log is checked: a printed page must not show text running into
# the margin (overfull boxes over 1 pt), missing glyphs, or any LaTeX or package warning.
set -u
tex=$1 pdf=$2
dir=$(dirname "$tex") base=$(basename "$tex" .tex)
log=$dir/$base.log
# Up to four passes: longtable settles its column widths one pass after the page references.
for pass in 1 2 3 4; do
    if ! lualatex -interaction=nonstopmode -halt-on-error -output-directory="$dir" "$tex" > /dev/null 2>&1; then
        echo "$tex: lualatex failed:" >&2
        grep -A3 '^!' "$log" | head -n 12 >&2
        exit 1
    fi
    grep -qE 'Rerun to get|Rerun LaTeX' "$log" || break
done
problems=$(
    grep 'Overfull \\hbox' "$log" \
        | awk '{ v = $3; gsub(/[(pt]/, "", v); if (v + 0 > 1.0) print }'
    grep -E 'Missing character|LaTeX Warning|Package [A-Za-z0-9-]+ Warning' "$log" \
        | grep -vE 'Rerun to get|Label\(s\) may have changed'
)
if [ -n "$problems" ]; then
    echo "$tex: warnings (see $log):" >&2
    printf '%s\n' "$problems" | head -n 10 >&2
    exit 1
fi
cp "$dir/$base.pdf" "$pdf"
