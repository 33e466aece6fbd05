# A class graded with a roster (sourced by tests/run_tests.sh; also runs on its own:
# `bash tests/suites/grading_roster.sh`). No GPU needed: lab 01's reference and two corpus cases,
# submitted as students' folders, files named by id, Canvas's download names, a Gradescope folder
# with the autograder's submission_metadata.json and one named in an Export Submissions'
# submission_metadata.yml (a group of two), are graded with --compile-only
# and a Canvas roster export; gradebook.csv, lms-canvas.csv, lms-moodle.csv and roster.txt are
# checked cell by cell; the same class graded as 2 shards and merged, and regraded, must give the
# same files; a bad roster is refused naming its file and line (a header without an id column
# also names the columns it does not read), a roster that matches no submission stops the run
# unless --allow-unmatched-roster; an unknown lab and a missing or empty submissions folder are
# refused before the trusted tree is built.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

roster_dir=$BUILD/test-logs/grading-roster
roster_ok=0
grading_class_ready "roster grading" patch python3 && roster_ok=1
rm -rf "$roster_dir"
roster_subs=$roster_dir/submissions
ref=solutions/01-vector-add/vector_add.cu
# roster_case DEST CASE: DEST is the reference with tests/grading/01/CASE.patch applied.
roster_case() {
    cp "$ref" "$1"
    patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$1" < "tests/grading/01/$2.patch" > /dev/null 2>&1 ||
        { fail "roster grading: the class" "tests/grading/01/$2.patch no longer applies"; roster_ok=0; }
}
if [ "$roster_ok" = 1 ]; then
    mkdir -p "$roster_subs"/{jane_doe,submission_1001,submission_1002,mallory}
    cp "$ref" "$roster_subs/jane_doe/vector_add.cu"                   # the student's name as a folder
    cp "$ref" "$roster_subs/S-18.cu"                                  # a file named by the SIS id
    roster_case "$roster_subs/stonebob_4323_555_vector_add.cu" wrong_answer   # Canvas's download name
    roster_case "$roster_subs/submission_1001/vector_add.cu" compile_error    # Gradescope's export, one user
    cp tests/fixtures/roster/submission_metadata.json "$roster_subs/submission_1001/"
    cp "$ref" "$roster_subs/submission_1002/vector_add.cu"            # Gradescope's export: a group of two, by SID and by email
    cp tests/fixtures/roster/submission_metadata.yml "$roster_subs/"   # Gradescope's Export Submissions: who submitted 1002
    cp "$ref" "$roster_subs/mallory/vector_add.cu"                     # not on the roster
    # Canvas's gradebook export, as it comes: byte-order mark, CR LF, Points Possible, Test Student.
    printf '\xef\xbb\xbfStudent,ID,SIS User ID,SIS Login ID,Section,Lab 1 (5521)\r\n' > "$roster_dir/roster.csv"
    printf '    Points Possible,,,,,10\r\n"Doe, Jane",4321,S-17,jdoe@uni.edu,CS 480 A,\r\n' >> "$roster_dir/roster.csv"
    printf '"Martin, Alice",4322,S-18,amartin@uni.edu,CS 480 A,\r\n"Stone, Bob",4323,S-19,bstone@uni.edu,CS 480 B,\r\n' >> "$roster_dir/roster.csv"
    printf '"King, Carol",4324,S-20,cking@uni.edu,CS 480 B,\r\n"Lee, Dan",4325,S-21,dlee@uni.edu,CS 480 B,\r\n' >> "$roster_dir/roster.csv"
    printf '"Ng, Eve",4326,S-22,eng@uni.edu,CS 480 A,\r\n"Ruiz, Fay",4327,S-23,fruiz@uni.edu,CS 480 A,\r\n' >> "$roster_dir/roster.csv"
    printf '"Student, Test",9999,,,CS 480 A,\r\n' >> "$roster_dir/roster.csv"
fi

if [ "$roster_ok" = 1 ]; then
    lms=(--lms-assignment "Lab 1: vector add" --lms-points 10)
    expect "roster grading: a compile-only run with a Canvas roster" 0 'students on the roster without a submission: 1' \
        grading/grade --lab 01 --compile-only --seed 777 --roster "$roster_dir/roster.csv" "${lms[@]}" --out "$roster_dir/single" "$roster_subs"
    if [ "$rc" -eq 0 ]; then
        expect "roster grading: gradebook.csv, lms-canvas.csv, lms-moodle.csv and roster.txt, cell by cell" 0 '^checked' python3 tests/tools/check_roster_files.py "$roster_dir/single"
    fi
    # Sharded: each shard matches the whole class; the merge writes the class's LMS files.
    for k in 0 1; do
        expect "roster grading: shard $k/2 with the roster" 0 "shard $k/2" \
            grading/grade --lab 01 --compile-only --seed 777 --shard "$k/2" --roster "$roster_dir/roster.csv" "${lms[@]}" \
            --out "$roster_dir/shard-$k" "$roster_subs"
    done
    expect "roster grading: merge of the shards" 0 'results: ' grading/grade merge "$roster_dir/merged" "$roster_dir/shard-0" "$roster_dir/shard-1"
    if [ "$rc" -eq 0 ] && [ -d "$roster_dir/single" ]; then
        for f in gradebook.csv lms-canvas.csv lms-moodle.csv roster.txt roster.json; do
            if cmp -s "$roster_dir/single/$f" "$roster_dir/merged/$f"; then pass "roster grading: merged $f is the single run's"
            else fail "roster grading: merged $f is the single run's" "$(diff "$roster_dir/single/$f" "$roster_dir/merged/$f" 2>&1 | head -n 4 | tr '\n' ' ')"; fi
        done
    fi
    # A shard graded without the roster cannot be merged with one graded with it.
    grading/grade --lab 01 --compile-only --seed 777 --shard 1/2 --out "$roster_dir/shard-1-bare" "$roster_subs" > /dev/null 2>&1
    expect "roster grading: merge refuses shards of different rosters" 2 'roster.json differs' \
        grading/grade merge "$roster_dir/merged-mixed" "$roster_dir/shard-0" "$roster_dir/shard-1-bare"
    # A regrade reuses the roster its run was graded with.
    expect "roster grading: a regrade keeps the roster" 0 'identical' \
        grading/grade --lab 01 --compile-only --regrade "$roster_dir/single/audit.jsonl" "${lms[@]}" --out "$roster_dir/regrade" "$roster_subs"
    if [ "$rc" -eq 0 ]; then
        expect "roster grading: the regrade's files, cell by cell" 0 '^checked' python3 tests/tools/check_roster_files.py "$roster_dir/regrade"
    fi
    # Bad rosters: one sentence naming the file and line, exit 2, before anything is built.
    printf 'id,name\ns1,Ann\ns2,Ben\nS1,Cat\n' > "$roster_dir/duplicate.csv"
    expect "roster grading: a roster with an id twice is refused" 2 'duplicate.csv:4: the id .S1. is already on line 2' \
        grading/grade --lab 01 --compile-only --roster "$roster_dir/duplicate.csv" --out "$roster_dir/bad" "$roster_subs"
    expect "roster grading: a missing roster is refused" 2 'no such roster file' \
        grading/grade --lab 01 --compile-only --roster "$roster_dir/none.csv" --out "$roster_dir/bad" "$roster_subs"
    expect "roster grading: --lms-points must be a positive number" 2 'lms-points needs a positive number' \
        grading/grade --lab 01 --compile-only --roster "$roster_dir/roster.csv" --lms-points -3 --out "$roster_dir/bad" "$roster_subs"
    printf 'Stdent,E-mial,Section\nJane Doe,jdoe@uni.edu,A\n' > "$roster_dir/misspelled.csv"
    expect "roster grading: a header without an id column names the columns it does not read" 2 \
        "misspelled.csv:1: the header names no column of student ids, logins or emails, and its columns 'Stdent', 'E-mial' are none" \
        grading/grade --lab 01 --compile-only --roster "$roster_dir/misspelled.csv" --out "$roster_dir/bad" "$roster_subs"
    # A roster that matches none of the submissions (another class's): exit 1 before any is built,
    # unless --allow-unmatched-roster.
    mkdir -p "$roster_dir/strangers"
    cp "$ref" "$roster_dir/strangers/zed.cu"
    expect "roster grading: a roster that matches no submission stops the run" 1 \
        'the roster .*roster.csv matches none of the 1 submissions: .*--allow-unmatched-roster' \
        grading/grade --lab 01 --compile-only --roster "$roster_dir/roster.csv" --out "$roster_dir/strangers-out" "$roster_dir/strangers"
    if printf '%s' "$err" | grep -q '\] built zed'; then fail "roster grading: nothing is built for a roster that matches no one"
    else pass "roster grading: nothing is built for a roster that matches no one"; fi
    expect "roster grading: --allow-unmatched-roster grades them anyway" 0 'results: ' \
        grading/grade --lab 01 --compile-only --allow-unmatched-roster --roster "$roster_dir/roster.csv" --out "$roster_dir/strangers-out" "$roster_dir/strangers"
fi

# An unknown lab, and a submissions folder that is missing or empty: refused at once, before the
# trusted tree is built.
if [ -x grading/grade ]; then
    mkdir -p "$roster_dir/empty" "$roster_dir/one"
    echo '// a submission' > "$roster_dir/one/ann.cu"
    expect "grading: --lab 99 lists the labs there are" 2 'there is no lab 99 \(--lab\): the labs are 01, 02' \
        grading/grade --lab 99 --compile-only --out "$roster_dir/bad" "$roster_dir/one"
    for what in "a missing" "an empty"; do
        case $what in *missing) pattern='no such file or folder: .*/none' dir=$roster_dir/none ;;
                      *empty) pattern='the folder .*/empty is empty' dir=$roster_dir/empty ;; esac
        expect "grading: $what submissions folder is refused" 2 "$pattern" \
            grading/grade --lab 01 --compile-only --out "$roster_dir/bad" "$dir"
        if printf '%s' "$err" | grep -q 'building the trusted tree'; then
            fail "grading: $what submissions folder is refused before the trusted tree is built"
        else
            pass "grading: $what submissions folder is refused before the trusted tree is built"
        fi
    done
fi
