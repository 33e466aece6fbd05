#!/usr/bin/env bash
# make new-lab NN=14 NAME=topic: a new lab from tools/new-lab/template/ (a vector scale, y = a x,
# to be replaced by the lab's own work). Writes
#   labs/NN-NAME/driver.cu, TOPIC.h, TOPIC.cu (the starter, with its TODO(labNN)), reference.h,
#                                            answers.txt (the answers template)
#   solutions/NN-NAME/TOPIC.cu               the reference solution
#   grading/rubrics/NN.rubric                the grader's tests
#   handouts/NN-NAME.md                      the handout
# where TOPIC is NAME with '-' as '_' (the file and function names). Refuses a number that a lab
# already has, or a bad number or name, with one sentence (exit 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: make new-lab NN=14 NAME=topic (NN: two digits; NAME: lower-case words joined by '-', e.g. vector-scale)"
nn=${1:-}
name=${2:-}
[ -n "$nn" ] && [ -n "$name" ] || { echo "$usage" >&2; exit 2; }
[[ $nn =~ ^[0-9][0-9]$ ]] && [ "$nn" != 00 ] || { echo "make new-lab: NN=$nn is not a lab number (two digits, 01 to 99)" >&2; exit 2; }
[[ $name =~ ^[a-z][a-z0-9]*(-[a-z0-9]+)*$ ]] || {
    echo "make new-lab: NAME=$name is not a lab name (lower-case letters and digits, words joined by '-', starting with a letter)" >&2
    exit 2
}
for taken in labs/"$nn"-* solutions/"$nn"-* grading/rubrics/"$nn".rubric handouts/"$nn"-*.md; do
    [ -e "$taken" ] && { echo "make new-lab: lab $nn exists already ($taken): pick another number" >&2; exit 2; }
done
topic=${name//-/_}
template=tools/new-lab/template
# fill SOURCE DEST: the template file with its placeholders replaced.
fill() {
    mkdir -p "$(dirname "$2")"
    sed -e "s/@NN@/$nn/g" -e "s/@NAME@/$name/g" -e "s/@TOPIC@/$topic/g" "$template/$1" > "$2"
    echo "  $2"
}
echo "make new-lab: lab $nn-$name, from the template (a vector scale: replace it with the lab's work)"
fill lab/driver.cu "labs/$nn-$name/driver.cu"
fill lab/TOPIC.h "labs/$nn-$name/$topic.h"
fill lab/TOPIC.cu "labs/$nn-$name/$topic.cu"
fill lab/reference.h "labs/$nn-$name/reference.h"
fill lab/answers.txt "labs/$nn-$name/answers.txt"
fill solution/TOPIC.cu "solutions/$nn-$name/$topic.cu"
fill rubric "grading/rubrics/$nn.rubric"
fill handout.md "handouts/$nn-$name.md"
echo "Next: make lab$nn sol$nn && ./sol$nn; grading/grade --lab $nn --compile-only DIR (README.md, \"Adding a lab or a rung\")."
