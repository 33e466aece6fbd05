#!/usr/bin/env python3
"""The files of a compile-only run of the grading_roster suite's class with its Canvas roster,
cell by cell: gradebook.csv, lms-canvas.csv, lms-moodle.csv and roster.txt.

  check_roster_files.py OUT

Prints one line per problem and "checked" (exit 0) or "N problems" (exit 1).
Called by the grading_roster suite.
"""
import csv, sys
out = sys.argv[1]
def rows(name):
    with open(f"{out}/{name}", newline="", encoding="utf-8") as f:
        return list(csv.reader(f))
problems = []
def same(what, got, want):
    if got != want:
        problems.append(f"{what}: {got!r}, expected {want!r}")

g = rows("gradebook.csv")
tests = ["correct_host", "correct_simple", "correct_fast", "memcheck", "perf_fast", "questions"]
same("gradebook header", g[0], ["student", "submitted_as", "roster_id", "name", "email", "section", "sha256"] + tests + ["total", "max", "note"])
book = {r[0]: r for r in g[1:]}
same("gradebook students", sorted(book), sorted(["S-18", "jane_doe", "mallory", "stonebob_4323_555_vector_add", "submission_1001", "submission_1002"]))
want = {
    "jane_doe": ["S-17", "Doe, Jane", "jdoe@uni.edu", "CS 480 A"],
    "S-18": ["S-18", "Martin, Alice", "amartin@uni.edu", "CS 480 A"],
    "stonebob_4323_555_vector_add": ["S-19", "Stone, Bob", "bstone@uni.edu", "CS 480 B"],
    "submission_1001": ["S-20", "King, Carol", "cking@uni.edu", "CS 480 B"],
    "submission_1002": ["S-21; S-22", "Lee, Dan; Ng, Eve", "dlee@uni.edu; eng@uni.edu", "CS 480 B; CS 480 A"],
    "mallory": ["", "", "", ""],
}
for student, cells in want.items():
    row = book.get(student)
    if row is None:
        continue
    same(f"gradebook {student} roster cells", row[2:6], cells)
    same(f"gradebook {student} sha256", len(row[6]), 64)
    same(f"gradebook {student} max", row[14], "106")
    if student == "submission_1001":   # the compile error: rejected, 0 everywhere
        same(f"gradebook {student} scores", row[7:14], ["0"] * 7)
        if "compil" not in row[15]:
            problems.append(f"gradebook {student} note: {row[15]!r} does not say it did not compile")
    else:                              # built and audited, not run: empty cells and total, not zeros
        same(f"gradebook {student} scores", row[7:14], [""] * 7)
        same(f"gradebook {student} note", row[15], "build and audit passed; tests not run (run the grader on a GPU for the score)")

c = rows("lms-canvas.csv")
same("lms-canvas header", c[0], ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1: vector add"])
same("lms-canvas points", c[1], ["Points Possible", "", "", "", "", "10"])
same("lms-canvas rows", c[2:], [
    ["Doe, Jane", "4321", "S-17", "jdoe@uni.edu", "CS 480 A", ""],
    ["Martin, Alice", "4322", "S-18", "amartin@uni.edu", "CS 480 A", ""],
    ["Stone, Bob", "4323", "S-19", "bstone@uni.edu", "CS 480 B", ""],
    ["King, Carol", "4324", "S-20", "cking@uni.edu", "CS 480 B", "0"],
    ["Lee, Dan", "4325", "S-21", "dlee@uni.edu", "CS 480 B", ""],
    ["Ng, Eve", "4326", "S-22", "eng@uni.edu", "CS 480 A", ""],
])
m = rows("lms-moodle.csv")
same("lms-moodle header", m[0], ["ID number", "Email address", "Username", "Full name", "Lab 1: vector add"])
same("lms-moodle rows", [r[0] for r in m[1:]], ["S-17", "S-18", "S-19", "S-20", "S-21", "S-22"])
same("lms-moodle King", m[4], ["S-20", "cking@uni.edu", "cking@uni.edu", "King, Carol", "0"])

report = open(f"{out}/roster.txt", encoding="utf-8").read()
for needle in ["7 students, 6 with a submission", "  mallory: 'mallory' is no id, email, login or name on the roster",
               "students on the roster without a submission: 1", "line 9: S-23, Ruiz, Fay, fruiz@uni.edu, CS 480 A"]:
    if needle not in report:
        problems.append(f"roster.txt lacks {needle!r}")
if "Test" in report:
    problems.append("roster.txt names Canvas's Test Student")
for p in problems:
    print("FAIL:", p)
print("checked" if not problems else f"{len(problems)} problems")
sys.exit(1 if problems else 0)
