#!/usr/bin/env python3
"""The grader against the mess of a real class (tests/suites/grading_bad_inputs.sh runs it).

Lab 01 is graded --compile-only, under the grader's default isolation, with one seed. A run of
the honest students alone (the reference solution and the untouched starter) is the baseline;
then, from the tables below:

  cli/     command lines that must be refused (exit 2, one "grade: error:" line) in seconds,
           before anything is built: missing, empty or misplaced folders, a FIFO or a device
           where a file is wanted (--roster, --rubric, --regrade, the leaderboard's secret),
           paths that cannot be written; once with an empty BUILD;
  row/     one class holding every odd entry (names, encodings, links, special files, sizes,
           layouts) beside the honest students, graded once: each entry's row says what it must;
  class/   that class as a whole: exit 0, the honest rows as in the baseline, no phantom row,
           valid UTF-8 everywhere, no byte of a link's root-only target anywhere in --out;
  roster/  rosters in every encoding and form against a class refused at intake (no compile);
  lock/, at-once/  two runs into one --out, and two into two --outs, at once;
  resume/  a run killed after its first record, that record damaged, or its class folder or
           roster named in Latin-1, then --resume;
  disk/    --out on a small tmpfs that fills up mid-class, then --resume once there is space.

Every case checks its exit code and message; where rows are written, that the honest students'
rows (gradebook row, feedback, results.json but for execution_time, audit line but for
graded_at) are byte for byte the baseline's; and that nothing changed outside --out (the inputs,
rosters, a root-only folder and a sentinel folder: paths, types, sizes, modes, contents).

Prints one line per case: "PASS name: what", "FAIL name: what -- why" or "SKIP name: what --
why". Exit 0 when it ran to its end (whatever the verdicts), 2 on a bad command line.

  bad_inputs.py --work DIR [--only PREFIX[,PREFIX]]
  (internal, under `unshare -m`: bad_inputs.py disk ...; bad_inputs.py read-only DIR -- CMD...)
"""
import argparse
import csv
import hashlib
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRADE = str(ROOT / "grading" / "grade")
REFERENCE = ROOT / "solutions" / "01-vector-add" / "vector_add.cu"
STARTER = ROOT / "labs" / "01-vector-add" / "vector_add.cu"
SEED = "4242"
MIB = 1 << 20

# The honest students: every class holds them, and their rows must never change.
HONEST = {"alice": "reference", "bob": "starter"}

BUILT = r"^build and audit passed; tests not run"
COMPILE_ERROR = r"^compile error \(exit \d+\)$"
INTEGRITY = r"^integrity check failed: "
LINK = r"is a symbolic link: the grader follows no link; submit the file itself$"
NO_CU = r"^no vector_add\.cu in the submission$"
TOO_BIG = r"^the file is larger than 1 MiB$"
NOT_REGULAR = r"is not a regular file \({}\): submit the file itself$"

REF = {"vector_add.cu": "reference"}


# ---- what a submission holds ------------------------------------------------------------------

def contents():
    """The bytes of each kind of file the tables name."""
    ref, starter = REFERENCE.read_bytes(), STARTER.read_bytes()

    def failing_literal(raw):  # a string literal in a line that does not compile
        return ref + b'const char* broken = "' + raw + b'" + ;\n'

    def padded(size):  # the reference, a comment filling it to exactly `size` bytes
        return ref + b"/*" + b"x" * (size - len(ref) - 4) + b"*/"

    rng = random.Random(20260101)
    return {
        "reference": ref,
        "starter": starter,
        "utf8_bom": b"\xef\xbb\xbf" + ref,
        "utf16le": b"\xff\xfe" + ref.decode("utf-8").encode("utf-16-le"),
        "utf16be": b"\xfe\xff" + ref.decode("utf-8").encode("utf-16-be"),
        "latin1_comment": ref + b"// caf\xe9, na\xefve: Latin-1 in a comment\n",
        "latin1_literal": failing_literal(b"caf\xe9"),
        "crlf": ref.replace(b"\n", b"\r\n"),
        "cr": ref.replace(b"\n", b"\r"),
        "nul_comment": ref + b"// a NUL \x00 in a comment\n",
        "binary": bytes(rng.getrandbits(8) for _ in range(4096)),
        "empty": b"",
        "exactly_1mib": padded(MIB),
        "over_1mib": padded(MIB + 1),
        "emoji_comment": ref + "// \U0001F680 fast\n".encode(),
        "emoji_literal": failing_literal("\U0001F680".encode()),
        "terminal_escapes": failing_literal(b"\x1b[31mred\x1b]0;title\x07\x1b[2J\x07bell"),
        "overlong_utf8": failing_literal(b"\xc0\xaf and \xed\xa0\x80"),
        "error_directive": ref + b"#error caf\xe9 \xff\n",
        "include_dev_zero": b"#include </dev/zero>\n" + ref,
        "big_array": ref + b"__device__ char big_array[80 << 20] = {1};\n"
                     b"void* keep_big_array() { void* p = nullptr; cudaGetSymbolAddress(&p, big_array); return p; }\n",
        "junk": b"\x00\xff{ not json \x81",
        "notes": b"my notes\n",
        "answers_ok": b"q1 = 4\nq2 = 24\nq3 = 12\n",
        "answers_odd": b"q1 = four\nQ2=24\nq2 = 25\nq3 = 1/0\nq4 = 9\n\x1b[31mred = \x07\n",
        "answers_escapes": b"q1 = \x1b]0;title\x07\x1b[2J4\nq2 = 24\r\nq3 = \xe2\x80\xae12\n",
    }


# ---- the messy class: one row per case ----------------------------------------------------------
# (case, entry, node, expected note, what it is, extras). `entry` is its name in the class folder,
# or "+name": made beside it and given on the command line. A node is a content name (a regular
# file), a dict (a folder: name -> node) or a tuple: ("link", target), ("fifo",), ("chr",),
# ("blk",), ("sock",), ("sparse", size), ("deep", depth), ("many", count). The expected note is a
# regex of the gradebook's note, or None: no row at all (not a student). extras: "id" (else the
# documented rule; "long": at most 100 bytes with "~" and a hash, found by the name recorded),
# "shows" (text the feedback must quote), "clean" (no control character anywhere in its row,
# feedback or results), "fast" (its compile must end within these seconds).

NAMES = [  # (label, raw name, id, built, what) -- id None: the documented rule. built: the folder holds
    # the reference (built and audited), else nothing (refused at intake: no compile, same id rules).
    ("space", b"a b", "a%20b", True, "a space is %20 ..."),
    ("underscore", b"a_b", "a_b", False, "... and 'a_b' stays itself: the two keep their own rows"),
    ("percent-20", b"a%20b", "a%2520b", False, "a literal '%20' is not taken for an escape"),
    ("percent", b"%", "%25", False, "a lone '%'"),
    ("newline", b"new\nline", "new%0Aline", True, "a line break in a name"),
    ("tab", b"tab\there", "tab%09here", False, "a tab in a name"),
    ("carriage-return", b"cr\rname", "cr%0Dname", False, "a carriage return in a name"),
    ("double-quote", b'say "hi"', "say%20%22hi%22", True, "double quotes"),
    ("single-quote", b"o'brien", "o%27brien", False, "an apostrophe"),
    ("comma", b"last,first", "last%2Cfirst", True, "a comma (a CSV separator)"),
    ("semicolon", b"a;b", "a%3Bb", False, "a semicolon"),
    ("formula-eq", b"=SUM(A1:A9)", "%3DSUM%28A1%3AA9%29", True, "a spreadsheet formula"),
    ("formula-plus", b"+1+2", "%2B1%2B2", False, "a formula starting with +"),
    ("formula-at", b"@cmd", "%40cmd", False, "a formula starting with @"),
    ("formula-hyperlink", b'=HYPERLINK("http:evil","x")', None, False, "a HYPERLINK formula"),
    ("leading-dash", b"-rf", "-rf", True, "a leading dash (an option to a shell)"),
    ("leading-dot", b".hidden", "%2Ehidden", True, "a hidden folder"),
    ("dots", b"...", "%2E..", False, "only dots"),
    ("leading-space", b" lead", "%20lead", False, "a leading space"),
    ("trailing-space", b"alice ", "alice%20", False, "an honest student's name and a space"),
    ("upper-case", b"ALICE", "ALICE", False, "an honest student's name in capitals"),
    ("backslash", b"a\\b", "a%5Cb", False, "a backslash"),
    ("emoji", "\U0001F600 grin".encode(), "%F0%9F%98%80%20grin", True, "an emoji"),
    ("latin1", b"caf\xe9", "caf%E9", True, "a Latin-1 byte (not UTF-8)"),
    ("nfc", "caf\u00e9".encode(), "caf%C3%A9", False, "'cafe' with a composed accent ..."),
    ("nfd", "cafe\u0301".encode(), "cafe%CC%81", True, "... and with a combining accent: looks the same, another id"),
    ("bad-utf8", b"\xff\xfe", "%FF%FE", False, "bytes that are no UTF-8"),
    ("overlong-utf8", b"\xc0\xaf", "%C0%AF", False, "an overlong UTF-8 '/'"),
    ("surrogate-utf8", b"\xed\xa0\x80x", "%ED%A0%80x", False, "a UTF-8-encoded surrogate"),
    ("bom-name", "\ufeffbom".encode(), "%EF%BB%BFbom", False, "a byte-order mark in a name"),
    ("bidi-override", "\u202egnp.cu".encode(), "%E2%80%AEgnp.cu", False, "a right-to-left override"),
    ("escape-sequence", b"\x1b[31mred", "%1B%5B31mred", False, "a terminal escape sequence"),
    ("html", b"<img src=x onerror=alert(1)>", None, False, "HTML"),
    ("markdown", b"# **bold** `tick` [x](y)", None, False, "Markdown"),
    ("tilde-two", b"dup~2", "dup%7E2", False, "a name like a duplicate's id"),
    ("long-ascii-a", b"n" * 250, "long", True, "a 250-byte name ..."),
    ("long-ascii-b", b"n" * 249 + b"m", "long", False, "... and one that differs only in its last byte"),
    ("long-utf8", "\u00e9".encode() * 125, "long", False, "a 250-byte name of 125 accented letters"),
    ("grader-gradebook", b"gradebook.csv", "gradebook.csv", False, "named like the grader's gradebook"),
    ("grader-feedback", b"feedback", "feedback", False, "named like the grader's feedback folder"),
    ("grader-resume", b".resume", "%2Eresume", False, "named like the grader's record folder"),
    ("grader-lock", b".lock", "%2Elock", False, "named like the grader's lock"),
    ("folder-named-cu", b"x.cu", "x.cu", True, "a student folder named x.cu"),
]

ROWS = [
    # links: no byte of a target is read
    ("link/file-absolute", "lnk_abs", {"vector_add.cu": ("link", "{outside}/vector_add.cu")}, LINK, "the file is a link to a correct file (absolute)", {}),
    ("link/file-relative", "lnk_rel", {"vector_add.cu": ("link", "../../outside/vector_add.cu")}, LINK, "the file is a relative link to a correct file", {}),
    ("link/other-student", "lnk_other", {"vector_add.cu": ("link", "../alice/vector_add.cu")}, LINK, "the file is a link to another student's file", {}),
    ("link/dangling", "lnk_dangling", {"vector_add.cu": ("link", "/nonexistent/vector_add.cu")}, LINK, "the file is a dangling link", {}),
    ("link/loop-self", "lnk_loop", {"vector_add.cu": ("link", "vector_add.cu")}, LINK, "the file is a link to itself", {}),
    ("link/loop-pair", "lnk_loop2", {"vector_add.cu": ("link", "other.cu"), "other.cu": ("link", "vector_add.cu")}, LINK, "two links to each other", {}),
    ("link/dev-zero", "lnk_zero", {"vector_add.cu": ("link", "/dev/zero")}, LINK, "the file is a link to /dev/zero", {}),
    ("link/proc-environ", "lnk_environ", {"vector_add.cu": ("link", "/proc/self/environ")}, LINK, "the file is a link to the grader's environment", {}),
    ("link/root-only-file", "lnk_secret", {"vector_add.cu": ("link", "{secret}/secret.cu")}, LINK, "the file is a link to a root-only file", {}),
    ("link/root-only-folder", "lnk_secret_dir", ("link", "{secret}/student"), LINK, "the student folder is a link to a root-only folder", {}),
    ("link/student-folder", "lnk_student", ("link", "alice"), LINK, "the student folder is a link to another student's folder", {}),
    ("link/parent-folder", "lnk_up", ("link", ".."), LINK, "the student folder is a link to the class's parent", {}),
    ("link/class-itself", "lnk_dot", ("link", "."), LINK, "the student folder is a link to the class folder", {}),
    ("link/cu-in-class", "lnk_class.cu", ("link", "{secret}/secret.cu"), LINK, "a student file in the class folder is a link to a root-only file", {}),
    ("link/plain-in-class", "lnk_plain", ("link", "{outside}/vector_add.cu"), LINK, "a link without .cu in the class folder", {}),
    ("link/file-to-folder", "lnk_to_dir", {"vector_add.cu": ("link", "{outside}")}, LINK, "the file is a link to a folder", {}),
    ("link/only-other-cu", "lnk_mine", {"mine.cu": ("link", "{secret}/secret.cu")}, LINK, "the only .cu (another name) is a link to a root-only file", {}),
    ("link/helper-beside", "lnk_helper", {"vector_add.cu": "reference", "helper.cu": ("link", "{secret}/secret.cu")}, BUILT, "a correct file beside a link to a root-only file", {}),
    ("link/metadata", "lnk_meta", {"vector_add.cu": "reference", "submission_metadata.json": ("link", "{secret}/secret.cu")}, BUILT, "Gradescope's metadata is a link to a root-only file", {}),
    ("link/input-file", "+linked.cu", ("link", "{secret}/secret.cu"), LINK, "a link to a root-only file given on the command line", {}),
    ("link/input-folder", "+linkdir", ("link", "{secret}/student"), LINK, "a link to a root-only folder given on the command line", {}),
    # files that are not regular files
    ("special/fifo", "fifo", {"vector_add.cu": ("fifo",)}, NOT_REGULAR.format("a FIFO"), "the file is a FIFO", {}),
    ("special/fifo-in-class", "fifo_class.cu", ("fifo",), NOT_REGULAR.format("a FIFO"), "a student file in the class folder is a FIFO", {}),
    ("special/fifo-input", "+pipe.cu", ("fifo",), NOT_REGULAR.format("a FIFO"), "a FIFO given on the command line", {}),
    ("special/char-device", "chardev", {"vector_add.cu": ("chr",)}, NOT_REGULAR.format("a device"), "the file is a character device (/dev/zero's)", {}),
    ("special/block-device", "blockdev", {"vector_add.cu": ("blk",)}, NOT_REGULAR.format("a device"), "the file is a block device", {}),
    ("special/socket", "sock", {"vector_add.cu": ("sock",)}, NOT_REGULAR.format("a socket"), "the file is a socket", {}),
    ("special/folder", "cu_is_dir", {"vector_add.cu": {"notes.txt": "notes"}}, NOT_REGULAR.format("a folder"), "vector_add.cu is a folder", {}),
    ("special/fifo-beside", "fifo_beside", {"vector_add.cu": "reference", "extra.cu": ("fifo",)}, BUILT, "a correct file beside a FIFO named .cu", {}),
    ("special/fifo-metadata", "fifo_meta", {"vector_add.cu": "reference", "submission_metadata.json": ("fifo",)}, BUILT, "Gradescope's metadata is a FIFO", {}),
    # sizes
    ("size/exactly-1mib", "mib", {"vector_add.cu": "exactly_1mib"}, BUILT, "a correct file of exactly 1 MiB", {}),
    ("size/1mib-plus-1", "mib_plus", {"vector_add.cu": "over_1mib"}, TOO_BIG, "a correct file of 1 MiB + 1 byte", {}),
    ("size/sparse-8gib", "sparse", {"vector_add.cu": ("sparse", 8 << 30)}, TOO_BIG, "a sparse 8 GiB file (refused unread)", {}),
    ("size/empty", "empty", {"vector_add.cu": "empty"}, INTEGRITY, "an empty file", {}),
    # encodings and bytes the compiler sees
    ("encoding/utf8-bom", "bom", {"vector_add.cu": "utf8_bom"}, BUILT, "a correct file with a UTF-8 byte-order mark", {}),
    ("encoding/utf16le", "utf16le", {"vector_add.cu": "utf16le"}, COMPILE_ERROR, "a correct file saved as UTF-16LE", {"clean": True}),
    ("encoding/utf16be", "utf16be", {"vector_add.cu": "utf16be"}, COMPILE_ERROR, "a correct file saved as UTF-16BE", {"clean": True}),
    ("encoding/latin1-comment", "latin1_comment", {"vector_add.cu": "latin1_comment"}, BUILT, "Latin-1 in a comment", {}),
    ("encoding/latin1-literal", "latin1_literal", {"vector_add.cu": "latin1_literal"}, COMPILE_ERROR, "Latin-1 'é' in a literal that fails to compile", {"shows": "caf\\xe9", "clean": True}),
    ("encoding/crlf", "crlf", {"vector_add.cu": "crlf"}, BUILT, "Windows line ends", {}),
    ("encoding/cr", "cr", {"vector_add.cu": "cr"}, BUILT, "old Mac line ends (CR only)", {}),
    ("encoding/nul", "nul", {"vector_add.cu": "nul_comment"}, BUILT, "a NUL byte in a comment", {}),
    ("encoding/binary", "binary", {"vector_add.cu": "binary"}, COMPILE_ERROR, "4 KiB of random bytes", {"clean": True}),
    ("encoding/emoji-comment", "emoji_comment", {"vector_add.cu": "emoji_comment"}, BUILT, "an emoji in a comment", {}),
    ("encoding/emoji-literal", "emoji_literal", {"vector_add.cu": "emoji_literal"}, COMPILE_ERROR, "an emoji in a literal that fails to compile", {"clean": True}),
    ("encoding/terminal-escapes", "escapes", {"vector_add.cu": "terminal_escapes"}, COMPILE_ERROR, "terminal escapes and BEL in the compiler's output", {"clean": True}),
    ("encoding/overlong", "overlong", {"vector_add.cu": "overlong_utf8"}, COMPILE_ERROR, "overlong UTF-8 and a surrogate in the compiler's output", {"shows": "\\xc0\\xaf", "clean": True}),
    ("encoding/error-directive", "error_directive", {"vector_add.cu": "error_directive"}, COMPILE_ERROR, "#error with Latin-1 and 0xff bytes", {"shows": "caf\\xe9 \\xff", "clean": True}),
    ("encoding/file-name", "latin1_file", {b"m\xe9.cu": "reference"}, BUILT, "the only .cu has a Latin-1 name", {}),
    # builds that must be bounded
    ("build/include-dev-zero", "dev_zero", {"vector_add.cu": "include_dev_zero"}, COMPILE_ERROR, "#include </dev/zero> ends at the memory limit", {"fast": 60}),
    ("build/huge-array", "huge_array", {"vector_add.cu": "big_array"}, r"reached the 64 MiB a build may write in one file", "an 80 MiB initialised __device__ array", {"fast": 150}),
    # the answers file beside a correct file (answers.txt, intake/questions.h): under --compile-only
    # its form is said, never its key; an odd one is that line, never a refusal of the code
    ("answers/well-formed", "ans_ok", {**REF, "answers.txt": "answers_ok"}, BUILT, "answers.txt with every answer well-formed", {"shows": "3 of 3 questions of answers.txt answered and well-formed"}),
    ("answers/none", "ans_none", REF, BUILT, "no answers.txt beside the file", {"shows": "answers.txt not read: no answers.txt beside vector_add.cu"}),
    ("answers/malformed", "ans_odd", {**REF, "answers.txt": "answers_odd"}, BUILT, "answers not numbers, one twice, strays", {"shows": "q1: 'four' is not a number"}),
    ("answers/escapes", "ans_esc", {**REF, "answers.txt": "answers_escapes"}, BUILT, "terminal escapes and a direction override in the answers", {"clean": True}),
    ("answers/empty", "ans_empty", {**REF, "answers.txt": "empty"}, BUILT, "an empty answers.txt", {"shows": "q1: not answered"}),
    ("answers/garbage", "ans_notes", {**REF, "answers.txt": "notes"}, BUILT, "answers.txt of notes, no qN = line", {"shows": "0 of 3 questions"}),
    ("answers/not-utf8", "ans_binary", {**REF, "answers.txt": "binary"}, BUILT, "4 KiB of random bytes as answers.txt", {"shows": "that is not UTF-8", "clean": True}),
    ("answers/huge", "ans_sparse", {**REF, "answers.txt": ("sparse", 8 << 30)}, BUILT, "a sparse 8 GiB answers.txt (refused unread)", {"shows": "answers.txt: the file is larger than 1 MiB"}),
    ("answers/link", "ans_link", {**REF, "answers.txt": ("link", "{secret}/secret.cu")}, BUILT, "answers.txt is a link to a root-only file", {"shows": "answers.txt is a symbolic link"}),
    ("answers/fifo", "ans_fifo", {**REF, "answers.txt": ("fifo",)}, BUILT, "answers.txt is a FIFO", {"shows": "answers.txt is not a regular file (a FIFO)"}),
    ("answers/folder", "ans_dir", {**REF, "answers.txt": {"q1": "notes"}}, BUILT, "answers.txt is a folder", {"shows": "answers.txt is not a regular file (a folder)"}),
    ("answers/refused-code", "ans_refused", {"answers.txt": "answers_ok"}, NO_CU, "answers.txt without the code", {}),
    # layouts
    ("layout/empty-folder", "empty_folder", {}, NO_CU, "an empty student folder", {}),
    ("layout/nested", "nested", {"sub": REF}, NO_CU, "the file one folder down", {}),
    ("layout/deep", "deep", ("deep", 40), NO_CU, "the file 40 folders down", {}),
    ("layout/several-cu", "several", {"a.cu": "reference", "b.cu": "starter"}, r"^several \.cu files and none named vector_add\.cu", "two .cu files, neither vector_add.cu", {}),
    ("layout/helper-cu", "helper", {"vector_add.cu": "reference", "helper.cu": "binary"}, BUILT, "vector_add.cu beside another .cu", {}),
    ("layout/other-name", "other_name", {"mine.cu": "reference"}, BUILT, "the only .cu has another name", {}),
    ("layout/folder-named-cu", "dir_cu", {"x.cu": REF}, NO_CU, "only a folder named x.cu", {}),
    ("layout/not-cu", "not_cu", {"notes.txt": "notes", "vector_add.cpp": "reference", "VECTOR_ADD.CU": "reference"}, NO_CU, "only files that are not .cu", {}),
    ("layout/hidden-only", "hidden_only", {".vector_add.cu": "reference"}, BUILT, "the only .cu is hidden", {}),
    ("layout/appledouble", "appledouble", {"vector_add.cu": "reference", "._vector_add.cu": "junk"}, BUILT, "macOS's ._ file beside the file", {}),
    ("layout/audit-jsonl", "auditor", {"vector_add.cu": "reference", "audit.jsonl": "junk"}, BUILT, "a file named audit.jsonl beside the file", {}),
    ("layout/grader-files", "mimic", {"vector_add.cu": "reference", "gradebook.csv": "junk", ".resume": {"run.json": "junk"}, "feedback": {}}, BUILT, "the grader's own files beside the file", {}),
    ("layout/junk-metadata", "junk_meta", {"vector_add.cu": "reference", "submission_metadata.json": "junk"}, BUILT, "junk Gradescope metadata (no roster)", {}),
    ("layout/many-files", "many", ("many", 3000), BUILT, "the file among 3000 others", {}),
    ("layout/file-in-class", "carol.cu", "reference", BUILT, "a student file in the class folder", {}),
    ("layout/duplicate-folder", "dup", REF, BUILT, "a folder 'dup' ...", {"id": "dup"}),
    ("layout/duplicate-file", "dup.cu", "reference", BUILT, "... and a file 'dup.cu' beside it: ~2", {"id": "dup~2"}),
    ("layout/twin-in-class", "twin", REF, BUILT, "a folder 'twin' in the class ...", {"id": "twin"}),
    ("layout/twin-input", "+twin", REF, BUILT, "... and a folder 'twin' given on the command line: ~2", {"id": "twin~2"}),
    ("layout/input-file", "+dave/vector_add.cu", "reference", BUILT, "a student's vector_add.cu given on the command line", {"id": "dave"}),
    ("layout/class-readme", "README.txt", "notes", None, "a file of the class folder that is no student's", {}),
    ("layout/class-export-junk", "submission_metadata.yml", "junk", None, "junk Gradescope export list in the class folder", {}),
    ("layout/class-fifo", "queue", ("fifo",), None, "a FIFO without .cu in the class folder", {}),
] + [("name/" + label, raw, REF if built else {}, BUILT if built else NO_CU, what, {"id": ident})
      for label, raw, ident, built, what in NAMES]


# ---- command lines that must be refused -------------------------------------------------------
# (case, arguments, expected exit, regex of stderr, what). {out} is the case's own --out; the
# other names are fixtures (Fixtures.names): {victim} is a copy of the honest class, so that a
# grader that writes into its submissions spoils no other case. A case with "ro:" first runs
# with {ro} mounted read-only (root and `unshare -m` needed).
CLI = [
    ("cli/missing-folder", ["--lab", "01", "--compile-only", "--out", "{out}", "{missing}"], 2, r"no such file or folder: .*: give the folder of the submissions", "a submissions folder that does not exist"),
    ("cli/empty-folder", ["--lab", "01", "--compile-only", "--out", "{out}", "{empty}"], 2, r"the folder .* is empty: put the submissions in it", "an empty submissions folder"),
    ("cli/empty-string-input", ["--lab", "01", "--compile-only", "--out", "{out}", ""], 2, r"no such file or folder", "an empty string as a submission"),
    ("cli/lab-99", ["--lab", "99", "--compile-only", "--out", "{out}", "{honest}"], 2, r"there is no lab 99", "a lab that does not exist"),
    ("cli/lab-junk", ["--lab", "1a", "--compile-only", "--out", "{out}", "{honest}"], 2, r"--lab NN is required", "a lab that is no number"),
    ("cli/out-is-class", ["--lab", "01", "--compile-only", "--out", "{victim}", "{victim}"], 2, r"lies inside the submissions folder", "--out equal to the submissions folder"),
    ("cli/out-in-class", ["--lab", "01", "--compile-only", "--out", "{victim}/results", "{victim}"], 2, r"lies inside the submissions folder", "--out inside the submissions folder"),
    ("cli/out-link-to-class", ["--lab", "01", "--compile-only", "--out", "{outlink}", "{victim}"], 2, r"lies inside the submissions folder", "--out a link to the submissions folder"),
    ("cli/class-in-out", ["--lab", "01", "--compile-only", "--out", "{outer}", "{outer}/class"], 2, r"lie inside --out", "the submissions inside --out"),
    ("cli/out-fifo", ["--lab", "01", "--compile-only", "--out", "{fifo}", "{honest}"], 2, r"give --out a folder you can write to", "--out a FIFO"),
    ("cli/out-dev-null", ["--lab", "01", "--compile-only", "--out", "/dev/null", "{honest}"], 2, r"give --out a folder you can write to", "--out /dev/null"),
    ("cli/roster-fifo", ["--lab", "01", "--compile-only", "--roster", "{fifo}", "--out", "{out}", "{honest}"], 2, r"roster .* is not a regular file \(a FIFO\)", "--roster a FIFO (no hang)"),
    ("cli/roster-dev-zero", ["--lab", "01", "--compile-only", "--roster", "/dev/zero", "--out", "{out}", "{honest}"], 2, r"/dev/zero is not a regular file", "--roster /dev/zero"),
    ("cli/roster-link-to-fifo", ["--lab", "01", "--compile-only", "--roster", "{fifolink}", "--out", "{out}", "{honest}"], 2, r"is not a regular file \(a FIFO\)", "--roster a link to a FIFO"),
    ("cli/roster-folder", ["--lab", "01", "--compile-only", "--roster", "{dir}", "--out", "{out}", "{honest}"], 2, r"roster .* is not a regular file \(a folder\)", "--roster a folder"),
    ("cli/roster-missing", ["--lab", "01", "--compile-only", "--roster", "{missing}", "--out", "{out}", "{honest}"], 2, r"no such roster", "--roster missing"),
    ("cli/roster-17mib", ["--lab", "01", "--compile-only", "--roster", "{big}", "--out", "{out}", "{honest}"], 2, r"roster .* is larger than 16 MiB", "--roster over 16 MiB"),
    ("cli/regrade-fifo", ["--lab", "01", "--compile-only", "--regrade", "{fifo}", "--out", "{out}", "{honest}"], 2, r"regrade .* is not a regular file \(a FIFO\)", "--regrade a FIFO (no hang)"),
    ("cli/regrade-missing", ["--lab", "01", "--compile-only", "--regrade", "{missing}", "--out", "{out}", "{honest}"], 2, r"no such audit log of --regrade", "--regrade missing"),
    ("cli/regrade-dev-zero", ["--lab", "01", "--compile-only", "--regrade", "/dev/zero", "--out", "{out}", "{honest}"], 2, r"is not a regular file", "--regrade /dev/zero"),
    ("cli/rubric-fifo", ["--lab", "01", "--compile-only", "--rubric", "{fifo}", "--out", "{out}", "{honest}"], 2, r"rubric .* is not a regular file \(a FIFO\)", "--rubric a FIFO (no hang)"),
    ("cli/rubric-missing", ["--lab", "01", "--compile-only", "--rubric", "{missing}", "--out", "{out}", "{honest}"], 2, r"no such rubric", "--rubric missing"),
    ("cli/rubric-dev-zero", ["--lab", "01", "--compile-only", "--rubric", "/dev/zero", "--out", "{out}", "{honest}"], 2, r"/dev/zero is not a regular file", "--rubric /dev/zero"),
    ("cli/rubric-latin1", ["--lab", "01", "--compile-only", "--rubric", "{latin1_rubric}", "--out", "{out}", "{honest}"], 2, r"{latin1_rubric}:3: a byte that is not UTF-8", "a rubric with a Latin-1 byte on line 3 (FILE:LINE)"),
    ("cli/gradescope-no-folder", ["--lab", "01", "--compile-only", "--gradescope", "{missing}/results.json", "--out", "{out}", "{honest}"], 2, r"--gradescope .*: there is no folder", "--gradescope in a folder that does not exist"),
    ("cli/gradescope-folder", ["--lab", "01", "--compile-only", "--gradescope", "{dir}", "--out", "{out}", "{honest}"], 2, r"--gradescope .* is not a regular file", "--gradescope a folder"),
    ("cli/gradescope-read-only", ["ro:", "--lab", "01", "--compile-only", "--gradescope", "{ro}/results.json", "--out", "{out}", "{honest}"], 2, r"--gradescope .* cannot be written", "--gradescope in a read-only folder"),
    ("cli/out-read-only", ["ro:", "--lab", "01", "--compile-only", "--out", "{ro}/out", "{honest}"], 2, r"give --out a folder you can write to", "--out in a read-only folder"),
    ("cli/leaderboard-secret-fifo", ["leaderboard", "--secret-file", "{fifo}", "{out}", "{empty}"], 2, r"secret", "grade leaderboard --secret-file a FIFO (no hang)"),
    ("cli/leaderboard-secret-dev-zero", ["leaderboard", "--secret-file", "/dev/zero", "{out}", "{empty}"], 2, r"secret", "grade leaderboard --secret-file /dev/zero (no hang, memory bounded)"),
    ("cli/leaderboard-run-fifo", ["leaderboard", "{out}", "{fifo}"], 2, r"has no audit\.jsonl", "grade leaderboard of a FIFO as a run folder"),
    ("cli/merge-shard-fifo", ["merge", "{out}", "{fifo}"], 2, r"no such folder", "grade merge of a FIFO as a shard folder"),
    ("cli/resume-missing", ["--resume", "{missing}"], 2, r"nothing to resume", "--resume of a folder that does not exist"),
    ("cli/resume-fifo", ["--resume", "{fifo}"], 2, r"nothing to resume", "--resume of a FIFO"),
    ("cli/resume-junk-record", ["--resume", "{junkrun}"], 2, r"run\.json is not a grading run's record", "--resume of a folder whose run record is junk"),
    ("cli/seed-zero", ["--lab", "01", "--compile-only", "--seed", "0", "--out", "{out}", "{honest}"], 2, r"--seed", "--seed 0"),
    ("cli/seed-huge", ["--lab", "01", "--compile-only", "--seed", "99999999999999999999999", "--out", "{out}", "{honest}"], 2, r"--seed", "--seed larger than 64 bits"),
    ("cli/jobs-junk", ["--lab", "01", "--compile-only", "--jobs", "x", "--out", "{out}", "{honest}"], 2, r"--jobs", "--jobs not a number"),
    ("cli/shard-junk", ["--lab", "01", "--compile-only", "--seed", "1", "--shard", "3/2", "--out", "{out}", "{honest}"], 2, r"--shard 3/2", "--shard K beyond N"),
    ("cli/lms-points-negative", ["--lab", "01", "--compile-only", "--lms-points", "-1", "--out", "{out}", "{honest}"], 2, r"--lms-points needs a positive number", "--lms-points -1"),
    ("cli/isolation-junk", ["--lab", "01", "--compile-only", "--isolation", "none", "--out", "{out}", "{honest}"], 2, r"--isolation must be", "an unknown isolation"),
    ("cli/value-missing", ["--lab", "01", "--compile-only", "{honest}", "--out"], 2, r"--out needs a value", "an option without its value"),
    ("cli/unknown-option", ["--lab", "01", "--compile-only", "--frobnicate", "--out", "{out}", "{honest}"], 2, r"unknown option '--frobnicate'", "an unknown option"),
]


# ---- rosters -----------------------------------------------------------------------------------
ROSTER_HEAD = ["id", "name", "email", "section"]
ROSTER_ROWS = [  # every character is in Windows-1252 too, so each encoding holds the same text
    ["s001", "Zoë Ångström", "zoe@example.edu", "A"],
    ["s002", "Núñez, José", "jose@example.edu", "B"],
    ["s003", "Œlle Müller", "oelle@example.edu", "A"],
    ["s004", "François €uro", "francois@example.edu", "B"],
    ["s005", "Ðan Þór", "dan@example.edu", "A"],
]
ROSTER_IDS = [r[0] for r in ROSTER_ROWS]

# (case, form, expected exit, regex of stderr, what). "same": every row (gradebook, feedback,
# results, audit, LMS files) as with the plain UTF-8 roster; a regex: the run is refused with it.
# {path} is the roster's path.
ROSTERS = [
    ("roster/utf8-bom", "utf8_bom", 0, None, "UTF-8 with a byte-order mark"),
    ("roster/utf8-bom-crlf", "utf8_bom_crlf", 0, None, "Excel's CSV UTF-8: a BOM and CRLF"),
    ("roster/utf16le", "utf16le", 0, r"is not UTF-8: read as UTF-16LE", "UTF-16LE with its BOM (Excel's Unicode Text)"),
    ("roster/utf16be", "utf16be", 0, r"is not UTF-8: read as UTF-16BE", "UTF-16BE with its BOM"),
    ("roster/windows-1252", "cp1252", 0, r"is not UTF-8: read as Windows-1252", "Windows-1252 (Excel's CSV)"),
    ("roster/windows-1252-crlf", "cp1252_crlf", 0, r"is not UTF-8: read as Windows-1252", "Windows-1252 with CRLF"),
    ("roster/crlf", "crlf", 0, None, "CRLF line ends"),
    ("roster/semicolons", "semicolon", 0, None, "semicolons between cells (Excel in Europe)"),
    ("roster/tabs", "tab", 0, None, "tabs between cells"),
    ("roster/blank-rows", "blank_rows", 0, None, "blank lines and empty rows at the end"),
    ("roster/no-final-newline", "no_final_newline", 0, None, "no line end after the last row"),
    ("roster/byte-0x81", "byte_0x81", 2, r"{path}:3: a byte that is neither UTF-8 nor Windows-1252", "a 0x81 byte on line 3"),
    ("roster/nul", "nul", 2, r"{path}:4: the roster holds a NUL byte", "a NUL byte on line 4"),
    ("roster/utf16-no-bom", "utf16le_no_bom", 2, r"{path}:1: the roster holds a NUL byte", "UTF-16 without its byte-order mark"),
    ("roster/utf16-odd", "utf16le_odd", 2, r"{path}:\d+: this is not UTF-16 text", "UTF-16 with an odd last byte"),
    ("roster/binary", "binary", 2, r"{path}:\d+: ", "random bytes"),
    ("roster/empty", "empty", 2, r"{path}:1: the roster is empty", "an empty file"),
    ("roster/no-id-column", "no_id_column", 2, r"{path}:1: the header names no column of student ids", "a header without ids"),
    ("roster/too-many-cells", "too_many_cells", 2, r"{path}:3: this row has 5 cells", "a row with a cell too many"),
    ("roster/header-only", "header_only", 1, r"the roster {path} matches none of the 5 submissions", "a header and no students"),
]


def roster_bytes(form):
    """The roster in `form`: its bytes."""
    def text(sep=",", rows=ROSTER_ROWS, end="\n"):
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=sep, lineterminator=end)
        w.writerow(ROSTER_HEAD)
        w.writerows(rows)
        return buf.getvalue()
    plain = text()
    lines = plain.encode().split(b"\n")
    forms = {
        "plain": plain.encode(),
        "utf8_bom": b"\xef\xbb\xbf" + plain.encode(),
        "utf8_bom_crlf": b"\xef\xbb\xbf" + text(end="\r\n").encode(),
        "utf16le": b"\xff\xfe" + plain.encode("utf-16-le"),
        "utf16be": b"\xfe\xff" + plain.encode("utf-16-be"),
        "cp1252": plain.encode("cp1252"),
        "cp1252_crlf": text(end="\r\n").encode("cp1252"),
        "crlf": text(end="\r\n").encode(),
        "semicolon": text(sep=";").encode(),
        "tab": text(sep="\t").encode(),
        "blank_rows": plain.encode() + b"\n\n,,,\n\n",
        "no_final_newline": plain.encode().rstrip(b"\n"),
        "byte_0x81": b"\n".join(lines[:2] + [lines[2].replace(b"jose@", b"jo\x81se@")] + lines[3:]),
        "nul": b"\n".join(lines[:3] + [lines[3] + b"\x00"] + lines[4:]),
        "utf16le_no_bom": plain.encode("utf-16-le"),
        "utf16le_odd": b"\xff\xfe" + plain.encode("utf-16-le") + b"\x41",
        "binary": bytes(random.Random(7).getrandbits(8) for _ in range(4096)),
        "empty": b"",
        "no_id_column": b"name,section\nZoe,A\n",
        "too_many_cells": b"\n".join(lines[:2] + [lines[2] + b",extra"] + lines[3:]),
        "header_only": text(rows=[]).encode(),
    }
    return forms[form]


# ---- running things ----------------------------------------------------------------------------

class Run:
    def __init__(self, rc, out, err, seconds):
        self.rc, self.out, self.err, self.seconds = rc, out, err, seconds

    @property
    def text(self):
        return (self.out + b"\n" + self.err).decode("utf-8", "replace")

    def error_line(self):
        lines = [l for l in self.err.decode("utf-8", "replace").splitlines() if l.strip()]
        return lines[-1][:300] if lines else "(no stderr)"


def environment(build, extra=None):
    env = dict(os.environ)
    env["BUILD"] = str(build)
    if "/usr/local/cuda/bin" not in env.get("PATH", "") and os.path.isdir("/usr/local/cuda/bin"):
        env["PATH"] = env.get("PATH", "") + ":/usr/local/cuda/bin"
    env.update(extra or {})
    return env


def run(cmd, env, timeout, memory=None):
    """`cmd` to its end, or killed with all it started once `timeout` seconds have passed; with
    `memory`, each of its processes may map at most that many bytes (a read of /dev/zero ends)."""
    began = time.monotonic()
    limit = (lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))) if memory else None
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, preexec_fn=limit)
    try:
        out, err = p.communicate(timeout=timeout)
        return Run(p.returncode, out, err, time.monotonic() - began)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # something it started outside its group holds the pipes
            p.wait()
            out, err = b"", b"(its output was held open after it was killed)"
        return Run("timeout", out, err, time.monotonic() - began)


def start(cmd, env, out_path, err_path):
    """A command in the background, its output into files."""
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=open(out_path, "wb"),
                            stderr=open(err_path, "wb"), start_new_session=True)


def finish(proc, out_path, err_path, began, timeout):
    try:
        rc = proc.wait(timeout=max(1, timeout - (time.monotonic() - began)))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        rc = "timeout"
    return Run(rc, Path(out_path).read_bytes(), Path(err_path).read_bytes(), time.monotonic() - began)


def one_line(text, limit=700):
    text = re.sub(r"[\x00-\x1f\x7f]+", " ", str(text)).strip()
    return text if len(text) <= limit else text[:limit] + "..."


class Report:
    def __init__(self, only):
        self.only = only
        self.counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}

    def wanted(self, name):
        return not self.only or any(name.startswith(p) for p in self.only)

    def family(self, prefix):
        """Whether any case of the family `prefix` (e.g. "cli/") is wanted."""
        return not self.only or any(p.startswith(prefix) or prefix.startswith(p) for p in self.only)

    def case(self, name, what, problems=(), skipped=None):
        what = what.replace(" -- ", " - ")  # " -- " starts the reason
        if skipped is not None:
            verdict, line = "SKIP", f"SKIP {name}: {one_line(what)} -- {one_line(skipped)}"
        elif problems:
            verdict, line = "FAIL", f"FAIL {name}: {one_line(what)} -- {one_line('; '.join(problems))}"
        else:
            verdict, line = "PASS", f"PASS {name}: {one_line(what)}"
        self.counts[verdict] += 1
        print(line, flush=True)


# ---- what a run wrote --------------------------------------------------------------------------

def csv_records(data):
    """The raw records of a CSV file's bytes (a quoted cell may hold a line break)."""
    records, start, quoted = [], 0, False
    for i, byte in enumerate(data):
        if byte == 0x22:  # "
            quoted = not quoted
        elif byte == 0x0A and not quoted:
            records.append(data[start:i])
            start = i + 1
    if start < len(data):
        records.append(data[start:])
    return records


def csv_cells(record):
    return next(csv.reader(io.StringIO(record.decode("utf-8", "replace"), newline="")), [])


class Outputs:
    """A run's --out: its gradebook rows, feedback, results and audit lines, by student id."""

    def __init__(self, out):
        self.out = Path(out)
        self.problems = []
        self.head, self.rows, self.cells = b"", {}, {}  # the header and each row as bytes; each row's cells
        book = self.out / "gradebook.csv"
        if book.is_file():
            records = csv_records(book.read_bytes())
            if records:
                self.head = records[0]
                names = csv_cells(records[0])
                for rec in records[1:]:
                    cells = csv_cells(rec)
                    if not cells:
                        continue
                    # An id never holds "'" (it is %27): a leading one guards a cell a spreadsheet
                    # would read as a formula ("-rf").
                    ident = cells[0][1:] if cells[0][:1] == "'" else cells[0]
                    if ident in self.rows:
                        self.problems.append(f"gradebook holds {ident!r} twice")
                    self.rows[ident] = rec
                    self.cells[ident] = dict(zip(names, cells))
        self.audit = {}  # id -> its submission lines, raw
        self.audit_json = {}  # id -> its last submission line
        self.ids_of_name = {}  # submitted_as -> the ids its lines name
        log = self.out / "audit.jsonl"
        if log.is_file():
            for line in log.read_bytes().splitlines():
                try:
                    j = json.loads(line)
                except ValueError:
                    self.problems.append(f"audit.jsonl has a line that is not JSON: {line[:80]!r}")
                    continue
                if j.get("event") == "submission":
                    self.audit.setdefault(j.get("student"), []).append(line)
                    self.audit_json[j.get("student")] = j
                    self.ids_of_name.setdefault(j.get("submitted_as"), set()).add(j.get("student"))

    def feedback(self, ident):
        p = self.out / "feedback" / (ident + ".md")
        return p.read_bytes() if p.is_file() else None

    def results(self, ident):
        p = self.out / "results" / (ident + ".json")
        return p.read_bytes() if p.is_file() else None

    def breakdown(self, ident):
        p = self.out / "breakdown.jsonl"
        if p.is_file():
            for line in p.read_bytes().splitlines():
                try:
                    j = json.loads(line)
                except ValueError:
                    continue
                if j.get("student") == ident:
                    return j
        return None


def masked_results(raw):
    return None if raw is None else re.sub(rb'"execution_time": *[-+0-9.eE]+', b'"execution_time": -', raw)


def masked_audit(lines):
    return [re.sub(rb'"graded_at":"[^"]*"', b'"graded_at":"-"', l) for l in lines or []]


def first_difference(a, b):
    if a is None or b is None:
        return "missing" if a is None else "missing in the baseline"
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return f"differs at byte {i}: {a[max(0, i - 20):i + 30]!r} vs {b[max(0, i - 20):i + 30]!r}"


def same_rows(got, base, ids, extra_files=()):
    """Problems where a student of `ids` differs between two runs (see the module's doc)."""
    problems = []
    if got.head != base.head:
        problems.append("the gradebook's header differs")
    for ident in ids:
        if got.rows.get(ident) != base.rows.get(ident):
            problems.append(f"{ident}'s gradebook row " + first_difference(got.rows.get(ident), base.rows.get(ident)))
        if got.feedback(ident) != base.feedback(ident):
            problems.append(f"feedback/{ident}.md " + first_difference(got.feedback(ident), base.feedback(ident)))
        if masked_results(got.results(ident)) != masked_results(base.results(ident)):
            problems.append(f"results/{ident}.json " + first_difference(masked_results(got.results(ident)), masked_results(base.results(ident))))
        a, b = masked_audit(got.audit.get(ident)), masked_audit(base.audit.get(ident))
        if a != b or not a:
            problems.append(f"{ident}'s audit line " + (first_difference(a[0] if a else None, b[0] if b else None)))
    for name in extra_files:
        x, y = got.out / name, base.out / name
        if (x.read_bytes() if x.is_file() else None) != (y.read_bytes() if y.is_file() else None):
            problems.append(f"{name} differs")
    return problems


TEXT_FILES = ("gradebook.csv", "audit.jsonl", "summary.txt", "feedback", "results", "roster.txt", "lms-canvas.csv", "lms-moodle.csv")


def invalid_text(out, run_result=None):
    """Files of a run (and its stdout and stderr) that are not valid UTF-8, or JSON that is not JSON."""
    bad = []
    for name in TEXT_FILES:
        p = Path(out) / name
        for f in ([p] if p.is_file() else sorted(p.iterdir()) if p.is_dir() else []):
            if not f.is_file():
                continue
            data = f.read_bytes()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as e:
                bad.append(f"{f.relative_to(out)} is not UTF-8 at byte {e.start}")
                continue
            if f.suffix == ".json":
                try:
                    json.loads(data)
                except ValueError:
                    bad.append(f"{f.relative_to(out)} is not JSON")
    for stream, data in (("stdout", run_result.out if run_result else b""), ("stderr", run_result.err if run_result else b"")):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            bad.append(f"the grader's {stream} is not UTF-8 at byte {e.start}")
    return bad


def holds(root, needle):
    """Files under `root` (every file, the grader's private ones too) that hold `needle`."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in filenames:
            p = os.path.join(dirpath, n)
            try:
                st = os.lstat(p)
                if stat.S_ISREG(st.st_mode) and st.st_size < (512 << 20):
                    with open(p, "rb") as f:
                        if needle in f.read():
                            found.append(os.path.relpath(p, root))
            except OSError:
                continue
    return found


# ---- nothing written outside --out -------------------------------------------------------------

class Snapshot:
    """Paths, types, sizes, modes and contents of a tree, links and special files unopened."""
    _hashes = {}

    def __init__(self, root):
        self.root = os.fsencode(root)
        self.entries = self._take()

    def _take(self):
        out = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            for n in dirnames + filenames:
                p = os.path.join(dirpath, n)
                st = os.lstat(p)
                key = os.path.relpath(p, self.root)
                entry = (stat.S_IFMT(st.st_mode), st.st_size, stat.S_IMODE(st.st_mode), st.st_uid)
                if stat.S_ISREG(st.st_mode):
                    entry += (self._hash(p, st),)
                elif stat.S_ISLNK(st.st_mode):
                    entry += (os.readlink(p),)
                out[key] = entry
        return out

    def _hash(self, path, st):
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if key not in self._hashes:
            if st.st_size > (64 << 20):  # a sparse giant: its blocks say whether it was written
                self._hashes[key] = ("blocks", os.lstat(path).st_blocks)
            else:
                with open(path, "rb") as f:
                    self._hashes[key] = hashlib.sha256(f.read()).hexdigest()
        return self._hashes[key]

    def changes(self):
        """What changed since the snapshot was taken or last asked (so that each run answers for its own)."""
        now = self._take()
        changed = [k for k in sorted(set(now) | set(self.entries)) if now.get(k) != self.entries.get(k)]
        said = [f"{os.fsdecode(k)} ({'added' if k not in self.entries else 'removed' if k not in now else 'changed'})"
                for k in changed[:4]] + ([f"and {len(changed) - 4} more"] if len(changed) > 4 else [])
        self.entries = now
        return said


# ---- the fixtures ------------------------------------------------------------------------------

class Fixtures:
    def __init__(self, work, build):
        self.work = Path(work)
        self.build = build
        self.inputs = self.work / "in"  # everything a run reads: must be as it was after every run
        self.outs = self.work / "out"
        self.content = contents()
        self.marker = ("BAD-INPUTS-SECRET-" + hashlib.sha256(os.urandom(16)).hexdigest()[:24]).encode()
        self.skipped_nodes = {}  # case -> why its entry could not be made

    def path(self, *parts):
        """A path of the inputs (parts may be bytes: a name that is no UTF-8)."""
        return Path(os.fsdecode(os.path.join(os.fsencode(self.inputs), *[os.fsencode(p) for p in parts])))

    def make(self):
        shutil.rmtree(self.work, ignore_errors=True)
        self.outs.mkdir(parents=True)
        i = self.inputs
        # The root-only folder: a file and a student folder that no output may quote.
        secret = i / "secret"
        (secret / "student").mkdir(parents=True)
        for f in (secret / "secret.cu", secret / "student" / "vector_add.cu"):
            f.write_bytes(self.marker + b"\n" + self.content["reference"])
            f.chmod(0o600)
        (secret / "student").chmod(0o700)
        secret.chmod(0o700)
        (i / "outside").mkdir()
        (i / "outside" / "vector_add.cu").write_bytes(self.content["reference"])
        (i / "sentinel").mkdir()
        (i / "sentinel" / "keep.txt").write_bytes(b"nothing may change here\n")
        (i / "sentinel" / "sub").mkdir()
        for cls in ("honest", "victim", b"\xdcbung"):
            for name, content in HONEST.items():
                folder = os.path.join(os.fsencode(i), os.fsencode(cls), name.encode())
                os.makedirs(folder)
                with open(os.path.join(folder, b"vector_add.cu"), "wb") as f:
                    f.write(self.content[content])
        (i / "empty").mkdir()
        (i / "a-folder").mkdir()
        os.mkfifo(i / "fifo")
        os.symlink(i / "fifo", i / "fifo-link")
        os.symlink(i / "victim", i / "out-link")
        (i / "outer" / "class" / "alice").mkdir(parents=True)
        (i / "outer" / "class" / "alice" / "vector_add.cu").write_bytes(self.content["reference"])
        with open(i / "big-roster.csv", "wb") as f:
            f.write(b"id,name,email,section\n")
            f.truncate(17 << 20)
        rubric = (ROOT / "grading" / "rubrics" / "01.rubric").read_bytes().split(b"\n")
        rubric.insert(2, b"# caf\xe9: a Latin-1 byte")
        (i / "latin1.rubric").write_bytes(b"\n".join(rubric))
        (i / "junkrun" / ".resume" / "submissions").mkdir(parents=True)
        (i / "junkrun" / ".resume" / "run.json").write_bytes(b"\x00\xff{ junk")
        (self.work / "ro").mkdir()
        self.make_rosters()
        self.make_messy_class()

    def names(self):
        """What the CLI table's {names} stand for."""
        return {"missing": str(self.inputs / "no-such-folder"), "empty": str(self.path("empty")),
                "honest": str(self.path("honest")), "victim": str(self.path("victim")),
                "fifo": str(self.path("fifo")), "fifolink": str(self.path("fifo-link")),
                "dir": str(self.path("a-folder")), "big": str(self.path("big-roster.csv")),
                "outlink": str(self.path("out-link")), "outer": str(self.path("outer")),
                "latin1_rubric": str(self.path("latin1.rubric")), "junkrun": str(self.path("junkrun")),
                "ro": str(self.work / "ro")}

    def make_rosters(self):
        r = self.path("rosters")
        r.mkdir()
        for form in ["plain"] + [form for _, form, _, _, _ in ROSTERS] + ["formula"]:
            (r / (form + ".csv")).write_bytes(roster_bytes(form) if form != "formula" else self.formula_roster())
        with open(os.path.join(os.fsencode(r), b"r\xe9.csv"), "wb") as f:
            f.write(roster_bytes("plain"))
        # The class a roster is matched against: refused at intake, so nothing is compiled.
        for cls in ("rclass", "rmeta"):
            for ident in ROSTER_IDS:
                (self.path(cls, ident)).mkdir(parents=True)
                (self.path(cls, ident, "notes.txt")).write_bytes(b"no code yet\n")
        meta = self.path("rmeta")
        (meta / "s002" / "submission_metadata.json").write_bytes(self.content["junk"])
        os.symlink(self.path("secret", "secret.cu"), meta / "s003" / "submission_metadata.json")
        os.mkfifo(meta / "s004" / "submission_metadata.json")
        with open(meta / "s005" / "submission_metadata.json", "wb") as f:
            f.write(b'{"users": [' + b" " * (2 * MIB) + b"]}")
        (meta / "submission_metadata.yml").write_bytes(self.content["junk"])

    def formula_roster(self):
        rows = [list(r) for r in ROSTER_ROWS]
        rows[0][1] = '=HYPERLINK("http://evil.example","Zoë")'
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows([ROSTER_HEAD] + rows)
        return buf.getvalue().encode()

    # the messy class: the honest students and one entry per row case
    def make_messy_class(self):
        cls = self.path("class")
        cls.mkdir()
        for name, content in HONEST.items():
            (cls / name).mkdir()
            (cls / name / "vector_add.cu").write_bytes(self.content[content])
        (self.path("extra")).mkdir()
        self.extra_inputs = []
        for case, entry, node, _, _, extras in ROWS:
            given = isinstance(entry, str) and entry.startswith("+")
            name = os.fsencode(entry[1:] if given else entry)
            target = os.path.join(os.fsencode(self.path("extra") if given else cls), name)
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)  # "+dave/vector_add.cu": dave first
                self.make_node(target, node)
            except OSError as e:
                self.skipped_nodes[case] = f"cannot make it here ({e.strerror or e})"
                continue
            if given:
                self.extra_inputs.append(target)

    def make_node(self, path, node):
        if isinstance(node, dict):
            os.mkdir(path)
            for name, sub in node.items():
                self.make_node(os.path.join(path, os.fsencode(name)), sub)
        elif isinstance(node, str):
            with open(path, "wb") as f:
                f.write(self.content[node])
        elif node[0] == "link":
            os.symlink(node[1].format(secret=self.path("secret"), outside=self.path("outside")), path)
        elif node[0] == "fifo":
            os.mkfifo(path)
        elif node[0] in ("chr", "blk"):
            kind = stat.S_IFCHR if node[0] == "chr" else stat.S_IFBLK
            os.mknod(path, kind | 0o644, os.makedev(1, 5) if node[0] == "chr" else os.makedev(7, 200))
        elif node[0] == "sock":
            here = os.getcwd()
            os.chdir(os.path.dirname(path))  # a socket's path is short: bind it from its folder
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(os.path.basename(path))
                s.close()
            finally:
                os.chdir(here)
        elif node[0] == "sparse":
            with open(path, "wb") as f:
                f.truncate(node[1])
        elif node[0] == "deep":
            os.mkdir(path)
            deep = os.path.join(path, *[b"d"] * node[1])
            os.makedirs(deep)
            with open(os.path.join(deep, b"vector_add.cu"), "wb") as f:
                f.write(self.content["reference"])
        elif node[0] == "many":
            os.mkdir(path)
            for k in range(node[1]):
                open(os.path.join(path, b"f%05d.txt" % k), "wb").close()
            with open(os.path.join(path, b"vector_add.cu"), "wb") as f:
                f.write(self.content["reference"])
        else:
            raise ValueError(f"unknown node {node!r}")


# ---- the documented rules, for the checks -------------------------------------------------------

def rule_id(raw):
    """The id grading/README.md documents: every byte but [A-Za-z0-9._-] (and a leading '.') as %XX."""
    out = []
    for i, c in enumerate(raw):
        ch = chr(c)
        out.append(ch if c < 0x80 and (ch.isalnum() or ch in "._-") and not (i == 0 and ch == ".") else "%%%02X" % c)
    return "".join(out)


def shown_name(raw):
    """A name as the grader records it: valid UTF-8, each bad byte as \\xNN."""
    return raw.decode("utf-8", "backslashreplace")


def unescape_markdown(text):
    return re.sub(r"\\(.)", r"\1", text)


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# What the grader writes inert: C0 and C1 controls, direction marks and overrides, line separators.
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


# ---- the families of cases ---------------------------------------------------------------------

class Suite:
    """The families of cases, run in order by main(); each reports its cases as it ends."""
    def __init__(self, fx, report):
        self.fx, self.report = fx, report
        self.env = environment(fx.build)
        self.inputs = Snapshot(fx.inputs)
        self.outs_named, self.outs_seen = set(), set()
        self.baseline = None
        self.baseline_problem = "the baseline did not run"

    def grade(self, args, env=None, timeout=600):
        return run([GRADE] + args, env or self.env, timeout)

    def out_dir(self, name):
        """A run's --out, in the folder of outs, where nothing but the outs named so may appear."""
        self.outs_named.add(name)
        return self.fx.outs / name

    def outside(self):
        """What the runs since the last call wrote outside their --outs."""
        changes = self.inputs.changes()
        stray = sorted(set(os.listdir(self.fx.outs)) - self.outs_named - self.outs_seen)
        self.outs_seen.update(stray)
        changes += [f"{self.fx.outs / n} (added)" for n in stray]
        return ["written outside --out: " + ", ".join(changes)] if changes else []

    # the baseline: the honest students alone
    def run_baseline(self):
        out = self.out_dir("baseline")
        r = self.grade(["--lab", "01", "--compile-only", "--seed", SEED, "--jobs", "2", "--out", str(out), str(self.fx.path("honest"))])
        problems = [] if r.rc == 0 else [f"exit {r.rc}: {r.error_line()}"]
        base = Outputs(out)
        missing = [i for i in HONEST if i not in base.rows or not re.search(BUILT, base.cells[i].get("note", ""))]
        if missing:
            problems.append("honest students not built and audited: " + ", ".join(missing))
        problems += self.outside()
        self.report.case("baseline/honest-alone", "the reference and the starter, alone, build and pass the audit (exit 0)", problems)
        if not problems:
            self.baseline, self.baseline_problem = base, None
        else:
            self.baseline_problem = "the baseline run failed: " + "; ".join(problems)

    def honest_problems(self, out):
        if self.baseline is None:
            return [self.baseline_problem]
        return same_rows(Outputs(out), self.baseline, HONEST)

    # cli/
    def run_cli(self):
        names = self.fx.names()
        for case, argv, want, pattern, what in CLI:
            if not self.report.wanted(case):
                continue
            out = self.out_dir(case.replace("/", "-"))
            subst = dict(names, out=str(out))
            read_only = argv[:1] == ["ro:"]
            argv = [a.format(**subst) for a in (argv[1:] if read_only else argv)]
            cmd = [GRADE] + argv
            if read_only:
                if os.geteuid() != 0 or not shutil.which("unshare"):
                    self.report.case(case, what, skipped="needs root and unshare to mount a read-only folder")
                    continue
                cmd = ["unshare", "-m", sys.executable, __file__, "read-only", names["ro"], "--"] + cmd
            r = run(cmd, self.env, 20, memory=4 << 30)  # a refusal takes a second: 20 s is a hang
            self.report.case(case, f"{what}: exit {want}, /{pattern}/, in seconds, nothing built or written",
                             self.refusal_problems(r, want, pattern.format(**{k: re.escape(v) for k, v in subst.items()}), out))

    def refusal_problems(self, r, want, pattern, out, limit=15, before_build=True, outside=None):
        """A refused run's problems: its exit, its message, its time, and what it built or wrote
        (`outside`: what was written outside the --outs, when several runs went at once)."""
        problems = []
        if r.rc != want:
            problems.append(f"exit {r.rc}, expected {want}: {r.error_line()}")
        err = r.err.decode("utf-8", "replace")
        if want == 2 and not re.search(r"^grade( merge| leaderboard)?: (rubric )?error: ", err, re.M):
            problems.append("no 'grade: error:' line")
        if pattern and not re.search(pattern, r.text):
            problems.append(f"stderr does not match /{pattern}/: {r.error_line()}")
        if r.seconds > limit:
            problems.append(f"took {r.seconds:.0f} s")
        if before_build and "building the trusted tree" in err:
            problems.append("it built the trusted tree first")
        if out and (Path(out) / "gradebook.csv").exists():
            problems.append("a gradebook was written")
        return problems + (self.outside() if outside is None else outside)

    def start_empty_build(self):
        """An empty BUILD: only grade_check is built before the refusal (started early: it compiles)."""
        self.empty_build = self.fx.work / "empty-build"
        self.empty_build.mkdir()
        o, e = self.fx.work / "empty-build.out", self.fx.work / "empty-build.err"
        cmd = [GRADE, "--lab", "01", "--compile-only", "--out", str(self.out_dir("cli-empty-build")), self.fx.names()["missing"]]
        self.empty_build_run = (start(cmd, environment(self.empty_build), o, e), o, e, time.monotonic())

    def run_cli_empty_build(self):
        case = "cli/empty-build"
        proc, o, e, began = self.empty_build_run
        r = finish(proc, o, e, began, 240)
        problems = self.refusal_problems(r, 2, r"no such file or folder", None, limit=120)
        built = [p for p in ("grading/grader", "01") if (self.empty_build / p).exists()]
        if built:
            problems.append("built before the refusal: " + ", ".join(built))
        self.report.case(case, f"a missing folder with an empty BUILD: exit 2 after building only grade_check ({r.seconds:.0f} s)", problems)

    # roster/
    def grade_many(self, jobs, width=3):
        """Grader runs that compile nothing, a few at once: {key: Run}."""
        with ThreadPoolExecutor(width) as pool:
            futures = {key: pool.submit(self.grade, argv, None, 120) for key, argv in jobs.items()}
            return {key: f.result() for key, f in futures.items()}

    def run_rosters(self):
        rosters, rclass = self.fx.path("rosters"), str(self.fx.path("rclass"))
        common = ["--lab", "01", "--compile-only", "--seed", SEED]
        out = {key: self.out_dir("roster-" + key) for key in ["plain", "formula", "metadata"] + [form for _, form, _, _, _ in ROSTERS]}
        jobs = {"plain": common + ["--roster", str(rosters / "plain.csv"), "--out", str(out["plain"]), rclass],
                "formula": common + ["--roster", str(rosters / "formula.csv"), "--out", str(out["formula"]), rclass],
                "metadata": common + ["--roster", str(rosters / "plain.csv"), "--out", str(out["metadata"]), str(self.fx.path("rmeta"))]}
        for case, form, _, _, _ in ROSTERS:
            if self.report.wanted(case):
                jobs[form] = common + ["--roster", str(rosters / (form + ".csv")), "--out", str(out[form]), rclass]
        runs = self.grade_many(jobs)
        outside = self.outside()  # the runs went at once: what any wrote outside is every case's

        r, base = runs["plain"], Outputs(out["plain"])
        problems = [] if r.rc == 0 else [f"exit {r.rc}: {r.error_line()}"]
        for ident, row in zip(ROSTER_IDS, ROSTER_ROWS):
            cells = base.cells.get(ident, {})
            if (cells.get("roster_id"), cells.get("name"), cells.get("email")) != (row[0], row[1], row[2]):
                problems.append(f"{ident} matched as {cells.get('roster_id')!r}, {cells.get('name')!r}")
        problems += outside
        self.report.case("roster/plain", "the plain UTF-8 roster matches every student of a class refused at intake", problems)
        base = base if not problems else None
        for case, form, want, pattern, what in ROSTERS:
            if form not in runs:
                continue
            r, path = runs[form], rosters / (form + ".csv")
            regex = pattern.replace("{path}", re.escape(str(path))) if pattern else None
            if want == 0:
                problems = [] if r.rc == 0 else [f"exit {r.rc}: {r.error_line()}"]
                if regex and not re.search(regex, r.text):
                    problems.append(f"stderr does not match /{regex}/")
                problems += same_rows(Outputs(out[form]), base, ROSTER_IDS, ("lms-canvas.csv", "lms-moodle.csv")) if base else ["the plain roster's run failed"]
                problems += outside + invalid_text(out[form], r)
                self.report.case(case, f"{what}: read, exit 0, every row and LMS file as with the plain roster", problems)
            else:  # refused: exit 2 before the lab is built; no match: exit 1 before a submission is built
                problems = self.refusal_problems(r, want, regex, out[form], limit=60, before_build=want == 2, outside=outside)
                if list(Path(out[form], "work").glob("[!.]*")):
                    problems.append("a submission was built")
                self.report.case(case, f"{what}: exit {want}, /{regex}/, nothing written", problems)
        self.roster_extras(runs, out, base, outside)

    def roster_extras(self, runs, out, base, outside):
        r, got = runs["formula"], Outputs(out["formula"])
        problems = [] if r.rc == 0 else [f"exit {r.rc}: {r.error_line()}"]
        name = got.cells.get("s001", {}).get("name", "")
        if not name.startswith("'="):
            problems.append(f"s001's name cell is {name!r}, not quoted with an apostrophe")
        problems += same_rows(got, base, ROSTER_IDS[1:]) if base else ["the plain roster's run failed"]
        problems += outside
        self.report.case("roster/formula-name", "a name that is a formula: its gradebook cell starts with an apostrophe; the other rows unchanged", problems)

        r, got = runs["metadata"], Outputs(out["metadata"])
        problems = [] if r.rc == 0 else [f"exit {r.rc}: {r.error_line()}"]
        for ident in ROSTER_IDS[1:]:
            if got.cells.get(ident, {}).get("roster_id") != ident:
                problems.append(f"{ident} (odd metadata) not matched by name: roster_id {got.cells.get(ident, {}).get('roster_id')!r}")
        problems += same_rows(got, base, ROSTER_IDS[:1]) if base else ["the plain roster's run failed"]
        if (found := holds(out["metadata"], self.fx.marker)) or self.fx.marker in r.out + r.err:
            problems.append("the root-only target's bytes are in " + (", ".join(found[:3]) or "the grader's output"))
        problems += outside + invalid_text(out["metadata"], r)
        self.report.case("roster/student-metadata", "submission_metadata.json junk, a link to a root-only file, a FIFO, 2 MiB; a junk export list: "
                         "each student matched by name, exit 0, no hang, no byte of the link's target read", problems)

    # lock/ and at-once/
    def run_at_once(self):
        honest = str(self.fx.path("honest"))
        first, other = self.out_dir("lock-first"), self.out_dir("at-once-other")
        args = ["--lab", "01", "--compile-only", "--seed", SEED, "--jobs", "1"]
        began = time.monotonic()
        a = start([GRADE] + args + ["--out", str(first), honest], self.env, self.fx.work / "a.out", self.fx.work / "a.err")
        c = start([GRADE] + args + ["--out", str(other), honest], self.env, self.fx.work / "c.out", self.fx.work / "c.err")
        lock = first / ".lock"
        while time.monotonic() - began < 300 and a.poll() is None:
            if lock.is_file() and b"process" in lock.read_bytes():
                break
            time.sleep(0.05)
        b = self.grade(args + ["--out", str(first), honest], timeout=60)
        first_still_running = a.poll() is None
        ra = finish(a, self.fx.work / "a.out", self.fx.work / "a.err", began, 600)
        rc = finish(c, self.fx.work / "c.out", self.fx.work / "c.err", began, 600)

        outside = self.outside()  # the three went at once
        problems = self.refusal_problems(b, 2, rf"{re.escape(str(first))} is in use by another grading run \(process {a.pid}\)", None,
                                         limit=60, outside=outside)
        if not first_still_running:
            problems.append("the first run had ended before the second was refused (nothing was tested)")
        self.report.case("lock/second-run-refused", "a second run into an --out whose run is under way: exit 2 naming the first's process", problems)
        problems = ([] if ra.rc == 0 else [f"exit {ra.rc}: {ra.error_line()}"]) + self.honest_problems(first) + outside
        self.report.case("lock/first-run-unharmed", "the first run ends normally (exit 0) with the rows of a run alone", problems)
        problems = [] if rc.rc == 0 else [f"exit {rc.rc}: {rc.error_line()}"]
        problems += self.honest_problems(other) + same_rows(Outputs(other), Outputs(first), HONEST) + outside
        self.report.case("at-once/two-outs", "two runs into two --outs at once: both exit 0 with identical rows, the baseline's", problems)

    # row/ and class/
    def run_messy_class(self):
        fx = self.fx
        cls = fx.path("class")
        out = self.out_dir("messy")
        env = environment(fx.build, {"BAD_INPUTS_ENVIRONMENT": fx.marker.decode()})  # what a link to /proc/self/environ would show
        r = run([GRADE, "--lab", "01", "--compile-only", "--seed", SEED, "--jobs", "2", "--out", str(out), str(cls)]
                + [os.fsdecode(p) for p in fx.extra_inputs], env, 900)
        got = Outputs(out)
        klass = {}
        klass["class/exit"] = ("the messy class is graded to its end: exit 0, no error line",
                               ([] if r.rc == 0 else [f"exit {r.rc}: {r.error_line()}"]) +
                               (["an error line: " + r.error_line()] if b"grade: error" in r.err else []))
        klass["class/honest-rows"] = ("the honest students' rows are byte for byte the baseline's", self.honest_problems(out))
        klass["class/nothing-outside"] = ("nothing written outside --out (inputs, root-only folder, sentinel)", self.outside())
        found = holds(out, fx.marker) + (["the grader's output"] if fx.marker in r.out + r.err else [])
        klass["class/no-target-bytes"] = ("no byte of a root-only link target (nor of the environment) anywhere in --out",
                                          ["the marker is in " + ", ".join(found[:4])] if found else [])
        klass["class/valid-text"] = ("every file written is valid UTF-8 (JSON parses), stdout and stderr too", invalid_text(out, r) + got.problems)
        expected_ids = set(HONEST)
        row_results = []
        for case, entry, node, note, what, extras in ROWS:
            if case in fx.skipped_nodes:
                row_results.append((case, what, None, fx.skipped_nodes[case]))
                continue
            problems, ident = self.row_problems(got, entry, note, extras)
            if ident:
                expected_ids.add(ident)
            row_results.append((case, what, problems, None if self.report.wanted("row/" + case) else "not selected"))
        phantom = sorted(set(got.rows) - expected_ids)
        missing = sorted(i for i in HONEST if i not in got.rows)
        klass["class/rows-accounted"] = ("one row per student, no phantom row (the grader's own files are no students)",
                                         ([f"unexpected rows: {phantom[:6]}"] if phantom else []) + ([f"missing: {missing}"] if missing else []))
        for name, (what, problems) in klass.items():
            self.report.case(name, what, problems)
        # What every case asserts of its class: the run's exit, the honest rows, nothing outside
        # --out; and for a link to the root-only folder, none of its bytes in --out.
        shared = [n for n in ("class/exit", "class/honest-rows", "class/nothing-outside") if klass[n][1]]
        for case, what, problems, skipped in row_results:
            if skipped is not None:
                if skipped != "not selected":
                    self.report.case("row/" + case, what, skipped=skipped)
                continue
            node = next(row[2] for row in ROWS if row[0] == case)
            failed = shared + (["class/no-target-bytes"] if klass["class/no-target-bytes"][1] and "{secret}" in repr(node) else [])
            if failed:
                problems = problems + ["its class failed " + ", ".join(failed)]
            self.report.case("row/" + case, what + self.expectation(case), problems)

    @staticmethod
    def expectation(case):
        note, extras = next((row[3], row[5]) for row in ROWS if row[0] == case)
        if note is None:
            return ": no row"
        said = {BUILT: "built and audited", COMPILE_ERROR: "compile error", INTEGRITY: "integrity check failed",
                LINK: "refused as a link", NO_CU: "refused: no vector_add.cu", TOO_BIG: "refused: over 1 MiB"}.get(note)
        if said is None:
            said = "refused: /" + note.strip("^$") + "/"
        return f": {said}" + (", id " + extras["id"] if extras.get("id") and extras["id"] != "long" else "")

    def row_problems(self, got, entry, note, extras):
        """What is wrong with one entry's row; and its id."""
        given = isinstance(entry, str) and entry.startswith("+")
        raw = os.fsencode(entry[1:] if given else entry)
        if given:  # the student is the file without .cu, or the folder of a vector_add.cu
            stem = raw.split(b"/")[0] if b"/" in raw else raw[:-3] if raw.endswith(b".cu") else raw
            shown = os.fsdecode(os.path.join(os.fsencode(self.fx.path("extra")), raw))
        else:  # a folder keeps its whole name; a file (or a link) loses .cu
            entry_path = os.path.join(os.fsencode(self.fx.path("class")), raw)
            folder = os.path.isdir(entry_path) and not os.path.islink(entry_path)
            stem = raw[:-3] if raw.endswith(b".cu") and not folder else raw
            shown = shown_name(raw)
        named = sorted(got.ids_of_name.get(shown, ()))
        if note is None:
            return ([f"a row for it: {named}"] if named else []), None
        want = extras.get("id") or rule_id(stem)
        if want == "long":
            if len(named) != 1:
                return [f"its name is recorded under {len(named)} ids: {named}"], None
            ident = named[0]
        else:
            ident = want
        if ident not in got.rows:
            return [f"no row {ident!r}" + (f" (its name is recorded under {named})" if named else "")], None
        problems = []
        if want == "long":
            escaped = rule_id(stem)
            if not (len(ident.encode()) <= 100 and "~" in ident and ident.startswith(escaped[:40])):
                problems.append(f"id {ident!r}: not at most 100 bytes with '~' and a hash")
        cells = got.cells[ident]
        if not re.search(note, cells.get("note", "")):
            problems.append(f"note {cells.get('note', '')[:160]!r} does not match /{note}/")
        # The name as found, bad bytes as \xNN; a name with control characters is written inert
        # (grading/README.md): those characters go, and the id alone says which it was.
        audit_as = got.audit_json.get(ident, {}).get("submitted_as")
        cell = cells.get("submitted_as", "")
        if not UNPRINTABLE.search(shown):
            sharing = [n for n, ids in got.ids_of_name.items() if ident in ids and n != shown]
            if sharing:
                problems.append(f"its id {ident!r} also stands for {sharing[:2]}")
            if audit_as != shown:
                problems.append(f"audit submitted_as {audit_as!r}, expected {shown!r}")
            formula = re.match(r"\s*[=+\-@]", shown) is not None
            if cell != ("'" if formula else "") + shown:
                problems.append(f"gradebook submitted_as {cell!r}, expected {shown!r}")
        else:
            for where, text in (("audit", audit_as or ""), ("gradebook", cell)):
                if UNPRINTABLE.search(text.replace("\n", "").replace("\t", "")):
                    problems.append(f"{where} submitted_as {text!r} holds control characters")
        problems += self.feedback_problems(got, ident, note, extras)
        return problems, ident

    @staticmethod
    def feedback_problems(got, ident, note, extras):
        problems = []
        fb = got.feedback(ident)
        res = got.results(ident)
        if fb is None or res is None:
            return [f"no {'feedback' if fb is None else 'results'} file"]
        fb_text = fb.decode("utf-8", "replace")
        refused = note != BUILT
        not_graded = re.search(r"^\*\*Not graded:\*\* (.*)$", fb_text, re.M)
        if refused and not not_graded:
            problems.append("no '**Not graded:**' line in its feedback")
        if not refused and not_graded:
            problems.append("its feedback says " + not_graded.group(0)[:120])
        if refused and not_graded and not re.search(note.lstrip("^"), unescape_markdown(not_graded.group(1))):
            problems.append(f"feedback's reason {not_graded.group(1)[:120]!r} does not match /{note}/")
        try:
            output = json.loads(res).get("output", "")
        except ValueError:
            output = ""
        if refused and not output.startswith("Not graded"):
            problems.append(f"results.json's output starts {output[:60]!r}")
        if extras.get("shows") and extras["shows"] not in fb_text:
            problems.append(f"the feedback does not quote {extras['shows']!r}")
        if extras.get("clean"):
            row = got.rows.get(ident, b"").decode("utf-8", "replace")
            texts = {"feedback": fb_text, "gradebook row": row, "results.json": json.dumps(json.loads(res), ensure_ascii=False) if res else ""}
            for where, text in texts.items():
                if m := CONTROL.search(text.replace("\n", "").replace("\t", "")):
                    problems.append(f"a control character {m.group(0)!r} in its {where}")
        if extras.get("fast"):
            b = got.breakdown(ident) or {}
            if not (0 <= float(b.get("compile_s", 1e9)) < extras["fast"]):
                problems.append(f"its compile took {b.get('compile_s')} s (limit {extras['fast']})")
        return problems

    # resume/
    def run_resume(self):
        cuts = {}  # (class, roster) -> the run cut short after its first record, and its record
        for label, klass, roster, damage, what in RESUMES:
            if not self.report.wanted("resume/" + label):
                continue
            if (klass, roster) not in cuts:
                cuts[(klass, roster)] = self.cut_run(klass, roster)
            cut, record, why = cuts[(klass, roster)]
            if why:
                self.report.case("resume/" + label, what, [why])
                continue
            copy = self.out_dir("resume-" + label)
            shutil.copytree(cut, copy, symlinks=True)
            kept = copy / ".resume" / "submissions" / record.name
            if damage:
                kept.write_bytes(DAMAGE[damage](kept.read_bytes()))
            r = self.grade(["--resume", str(copy)])
            problems = [] if r.rc == 0 else [f"exit {r.rc}: {r.error_line()}"]
            ident = record.stem
            said = rf"{re.escape(ident)}'s record in {re.escape(str(copy))}/\.resume was damaged: {re.escape(ident)} is graded again"
            if damage and not re.search(said, r.err.decode("utf-8", "replace")):
                problems.append("stderr does not say the record was damaged")
            if roster:
                base = self.roster_baseline()
                problems += same_rows(Outputs(copy), base, ROSTER_IDS, ("lms-canvas.csv", "lms-moodle.csv")) if base else ["the plain roster's run failed"]
            else:
                problems += self.whole_run_problems(copy)
            problems += self.outside()
            self.report.case("resume/" + label, f"{what}: exit 0, the rows of an uninterrupted run", problems)

    def cut_run(self, klass, roster):
        """A run of `klass` killed right after its first record: (its --out, that record, why not)."""
        cut = self.out_dir("resume-cut-" + str(len(self.outs_named)))
        args = ["--lab", "01", "--compile-only", "--seed", SEED, "--jobs", "2", "--out", str(cut)]
        if roster:
            args += ["--roster", os.fsdecode(self.fx.path("rosters", roster))]
        r = self.grade(args + [os.fsdecode(self.fx.path(klass))], env=environment(self.fx.build, {"GRADING_KILL_AFTER_RECORDS": "1"}))
        records = sorted((cut / ".resume" / "submissions").glob("*.json"))
        if r.rc not in (137, -9) or len(records) != 1:
            return cut, None, f"the run to cut short: exit {r.rc}, {len(records)} records (expected SIGKILL after 1): {r.error_line()}"
        time.sleep(1)  # what the killed run had started is gone by now
        return cut, records[0], None

    def roster_baseline(self):
        """The plain roster's run of the roster class (run_rosters made it, or it is made now)."""
        out = self.fx.outs / "roster-plain"
        if not (out / "gradebook.csv").is_file():
            out = self.out_dir("roster-plain-again")
            self.grade(["--lab", "01", "--compile-only", "--seed", SEED, "--roster", str(self.fx.path("rosters", "plain.csv")),
                        "--out", str(out), str(self.fx.path("rclass"))])
        base = Outputs(out)
        return base if set(base.rows) == set(ROSTER_IDS) else None

    def whole_run_problems(self, out):
        """A run of the honest class against the baseline: the gradebook whole, and every row."""
        if self.baseline is None:
            return [self.baseline_problem]
        problems = self.honest_problems(out)
        a, b = Path(out) / "gradebook.csv", self.baseline.out / "gradebook.csv"
        if not a.is_file() or a.read_bytes() != b.read_bytes():
            problems.append("gradebook.csv is not the baseline's")
        return problems

    # disk/
    def run_disk(self):
        if os.geteuid() != 0 or not shutil.which("unshare"):
            for label, *_, what in DISKS + [(f"sweep-{k}k", "a sweep of small fills") for k in DISK_SWEEP]:
                self.report.case("disk/" + label, what, skipped="needs root and unshare to mount a small tmpfs")
            return
        r = run(["unshare", "-m", sys.executable, __file__, "disk", "--work", str(self.fx.work), "--build", str(self.fx.build),
                 "--baseline", str(self.baseline.out if self.baseline else ""), "--class", str(self.fx.path("honest")),
                 "--only", ",".join(self.report.only or [])], self.env, 900)
        lines = [l for l in r.out.decode("utf-8", "replace").splitlines() if l.startswith(("PASS ", "FAIL ", "SKIP "))]
        for line in lines:
            verdict, rest = line.split(" ", 1)
            self.report.counts[verdict] += 1
            print(line, flush=True)
        wanted = [d for d in DISKS if self.report.wanted("disk/" + d[0])] + [
            (f"sweep-{k}k", "a sweep of small fills") for k in DISK_SWEEP if self.report.wanted(f"disk/sweep-{k}k")]
        if len(lines) != len(wanted):
            why = r.err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
            for label, *_, what in wanted[len(lines):]:
                if r.rc != 0 and "unshare" in why[0]:
                    self.report.case("disk/" + label, what, skipped=f"cannot mount a tmpfs here: {why[0]}")
                else:
                    self.report.case("disk/" + label, what, [f"the disk cases ended early: exit {r.rc}: {why[0]}"])


# How a record is damaged.
DAMAGE = {"half": lambda b: b[: len(b) // 2], "junk": lambda b: b"\x00\xff junk \x81" * 8}

# (label, class folder, roster, damage to its one record, what): a run killed right after its
# first record (GRADING_KILL_AFTER_RECORDS=1), then --resume. A folder or roster named in
# Latin-1 (a class unzipped from Windows) must be found again from the run's record.
RESUMES = [
    ("record-truncated", "honest", None, "half", "the one student record cut in half: --resume grades that student again and says so"),
    ("record-junk", "honest", None, "junk", "the one student record overwritten with junk: --resume grades that student again and says so"),
    ("latin1-class-folder", b"\xdcbung", None, None, "the class folder's name is Latin-1: --resume finds it"),
    ("latin1-roster-path", "rclass", b"r\xe9.csv", None, "the roster's file name is Latin-1: --resume finds it"),
]

# (label, when the filler fills the disk (None: before the run, leaving 1 MiB), --jobs, records kept
# at the stop, what). GRADING_MIN_FREE_MB is 2, and the grader wants 64 MiB more a build at once,
# so a disk fills mid-class only where something else fills it: the filler, once the first build
# has begun (a build folder in OUT/work) or the first submission is recorded.
DISKS = [
    ("full-before-run", None, 2, 0, "less free space than the grader wants at the start: exit 2 before anything is built"),
    ("full-at-first-build", "build", 2, 0, "the disk fills during the first builds: exit 1, free space then --resume, no row scored for it"),
    ("full-at-second-build", "record", 1, 1, "the disk fills during the second build (the first is kept): exit 1, then --resume"),
]


# A sweep of small fills, GRADING_MIN_FREE_MB 1 and one build at a time: whichever write runs out
# of space first (the grader's, or the compiler's, which then cleans up after itself), a correct
# file is never a compile error. (KiB left free; each a case.)
DISK_SWEEP = [1280 + 256 * k for k in range(12)]


def disk_child(args):
    """Under `unshare -m`: each DISKS case on a tmpfs of its own, then --resume once there is room."""
    report = Report([o for o in (args.only or "").split(",") if o])
    env = environment(args.build, {"GRADING_MIN_FREE_MB": "2"})
    baseline = Outputs(args.baseline) if args.baseline else None
    pristine = Snapshot(Path(args.work) / "in")
    for label, when, jobs, kept, what in DISKS:
        if not report.wanted("disk/" + label):
            continue
        mount = Path(args.work) / ("disk-" + label)
        mount.mkdir()
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=320m", "tmpfs", str(mount)], capture_output=True)
        if m.returncode != 0:
            report.case("disk/" + label, what, skipped="cannot mount a tmpfs: " + one_line(m.stderr.decode(errors="replace")))
            continue
        out = mount / "out"
        command = [GRADE, "--lab", "01", "--compile-only", "--seed", SEED, "--jobs", str(jobs), "--out", str(out), args.klass]
        r = graded_while_filling(command, env, mount, when)
        if label == "full-before-run":
            problems = [] if r.rc == 2 else [f"exit {r.rc}, expected 2: {r.error_line()}"]
            if not re.search(r"give --out a folder you can write to, on a disk with free space", r.text):
                problems.append(f"stderr does not say to free space: {r.error_line()}")
            if "building the trusted tree" in r.text:
                problems.append("it built the trusted tree first")
        else:
            problems = disk_stop_problems(r, out)
            records = len(list((out / ".resume" / "submissions").glob("*.json")))
            if records != kept:
                problems.append(f"{records} submissions recorded at the stop, expected {kept} (the filler no longer fits the builds?)")
            (mount / "filler").unlink(missing_ok=True)
            rr = run([GRADE, "--resume", str(out)], env, 600)
            problems += [] if rr.rc == 0 else [f"--resume: exit {rr.rc}: {rr.error_line()}"]
            if baseline is None:
                problems.append("the baseline run failed")
            else:
                problems += same_rows(Outputs(out), baseline, HONEST)
                if not (out / "gradebook.csv").is_file() or (out / "gradebook.csv").read_bytes() != (baseline.out / "gradebook.csv").read_bytes():
                    problems.append("after --resume, gradebook.csv is not the baseline's")
        if c := pristine.changes():
            problems.append("written outside --out: " + ", ".join(c))
        if problems:  # keep what it wrote for a look once the tmpfs is gone (its builds left out)
            shutil.copytree(out, Path(args.work) / ("disk-" + label + "-out"), symlinks=True,
                            ignore=shutil.ignore_patterns("work", ".private"), dirs_exist_ok=True)
        report.case("disk/" + label, what, problems)
        subprocess.run(["umount", str(mount)], check=False)
    disk_sweep(args, report, baseline, pristine)


def fill(mount, leave=0):
    """The tmpfs at `mount` filled by a file of zeros, up to `leave` bytes free."""
    st = os.statvfs(mount)
    with open(mount / "filler", "ab") as f:
        try:
            f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
            f.write(b"\0" * (1 << 20) * 64)  # whatever the tmpfs still takes: a full disk
        except OSError:
            pass


def graded_while_filling(command, env, mount, when):
    """The grade `command` run while the filler fills `mount`: before it starts (`when` None, 1 MiB
    left), once a build folder appears in OUT/work ("build"), or once a submission is recorded
    ("record")."""
    if when is None:
        fill(mount, MIB)
        return run(command, env, 600)
    out = mount / "out"
    began = time.monotonic()
    p = start(command, env, mount.parent / (mount.name + ".out"), mount.parent / (mount.name + ".err"))
    while p.poll() is None and time.monotonic() - began < 600:
        if (when == "build" and list(out.glob("work/*/build"))) or (when == "record" and list(out.glob(".resume/submissions/*.json"))):
            fill(mount)
            break
        time.sleep(0.02)
    try:
        p.wait(timeout=max(1, 600 - (time.monotonic() - began)))
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        rc = "timeout"
    return Run(rc, (mount.parent / (mount.name + ".out")).read_bytes(), (mount.parent / (mount.name + ".err")).read_bytes(),
               time.monotonic() - began)


def disk_sweep(args, report, baseline, pristine):
    """The DISK_SWEEP cases, two at a time (one build each), each on a tmpfs filled anew."""
    levels = [k for k in DISK_SWEEP if report.wanted(f"disk/sweep-{k}k")]
    results = {}

    def worker(lane, mine):
        mount = Path(args.work) / f"disk-sweep-{lane}"
        mount.mkdir()
        for free in mine:
            results[free] = sweep_level(args, mount, free, baseline)

    with ThreadPoolExecutor(2) as pool:
        for f in [pool.submit(worker, lane, levels[lane::2]) for lane in (0, 1)]:
            f.result()
    outside = pristine.changes()
    for free in levels:
        problems, skipped = results[free]
        if outside:
            problems.append("written outside --out: " + ", ".join(outside))
        report.case(f"disk/sweep-{free}k", f"{free} KiB free at the start (GRADING_MIN_FREE_MB 1, --jobs 1): "
                    "no correct file is a compile error", problems, skipped)


def sweep_level(args, mount, free, baseline):
    """One level of the sweep: (problems, why skipped)."""
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], capture_output=True)
    if m.returncode != 0:
        return [], "cannot mount a tmpfs: " + one_line(m.stderr.decode(errors="replace"))
    st = os.statvfs(mount)
    with open(mount / "filler", "wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - free * 1024))
    out = mount / "out"
    r = run([GRADE, "--lab", "01", "--compile-only", "--seed", SEED, "--jobs", "1", "--out", str(out), args.klass],
            environment(args.build, {"GRADING_MIN_FREE_MB": "1"}), 300)
    if r.rc == 0:  # there was room after all: the rows are the baseline's
        problems = [f"exit 0 with a correct submission recorded as a compile error in {', '.join(bad[:3])}"
                    for bad in [compile_errors_recorded(out)] if bad]
        problems += same_rows(Outputs(out), baseline, HONEST) if baseline else ["the baseline run failed"]
    elif r.rc == 2:
        problems = [] if re.search(r"give --out a folder you can write to, on a disk with free space", r.text) else [
            f"exit 2 without saying to free space: {r.error_line()}"]
    else:
        problems = disk_stop_problems(r, out)
    if problems:  # kept for a look once the tmpfs is gone (its builds left out)
        shutil.copytree(out, Path(args.work) / f"disk-sweep-{free}-out", symlinks=True,
                        ignore=shutil.ignore_patterns("work", ".private"), dirs_exist_ok=True)
    subprocess.run(["umount", str(mount)], check=False)
    return problems, None


def compile_errors_recorded(out):
    """The files of a run of the honest class that record a compile error (none may)."""
    return [os.path.relpath(p, out) for p in
            [out / "gradebook.csv", out / "audit.jsonl", *(out / "feedback").glob("*"), *(out / "results").glob("*"),
             *(out / ".resume" / "submissions").glob("*")] if p.is_file() and re.search(rb"compile error|\"compiled\":false", p.read_bytes())]


def disk_stop_problems(r, out):
    problems = [] if r.rc == 1 else [f"exit {r.rc}, expected 1: {r.error_line()}"]
    if not re.search(r"free space on its disk.*then finish the run with grading/grade --resume " + re.escape(str(out)), r.text):
        problems.append(f"stderr does not say 'free space on its disk ... --resume OUT': {r.error_line()}")
    recorded = compile_errors_recorded(out)
    if recorded:
        problems.append("a correct submission recorded as a compile error in " + ", ".join(recorded[:3]))
    book = Outputs(out)
    scored = [i for i in book.rows if not re.search(BUILT, book.cells[i].get("note", ""))]
    if scored:
        problems.append(f"rows scored for the full disk: {scored}")
    try:
        finished = json.loads((out / ".resume" / "run.json").read_bytes()).get("finished")
    except (OSError, ValueError):
        finished = "unreadable"
    if finished is not False:
        problems.append(f"the run record's finished is {finished!r}, not false")
    return problems


def read_only_child(folder, cmd):
    """Under `unshare -m`: `folder` bound read-only onto itself, then `cmd`."""
    for step in (["mount", "--bind", folder, folder], ["mount", "-o", "remount,bind,ro", folder]):
        if subprocess.run(step).returncode != 0:
            sys.exit(f"cannot mount {folder} read-only")
    os.execvp(cmd[0], cmd)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "read-only":
        return read_only_child(sys.argv[2], sys.argv[4:])
    if len(sys.argv) > 1 and sys.argv[1] == "disk":
        p = argparse.ArgumentParser()
        p.add_argument("mode")
        for a in ("--work", "--build", "--baseline", "--class", "--only"):
            p.add_argument(a, dest=a[2:].replace("class", "klass"), required=a not in ("--baseline", "--only"))
        return disk_child(p.parse_args())
    p = argparse.ArgumentParser(description="The grader against bad inputs (see the module's doc).")
    p.add_argument("--work", required=True, help="a scratch folder (emptied first)")
    p.add_argument("--only", default="", help="only cases whose names start with these prefixes (comma-separated)")
    args = p.parse_args()
    if not REFERENCE.is_file() or not os.access(GRADE, os.X_OK):
        print("SKIP bad inputs: the grader and lab 01's reference solution are needed -- not in the student edition")
        return 0
    build = Path(os.environ.get("BUILD", "build"))
    build = build if build.is_absolute() else ROOT / build
    report = Report([o for o in args.only.split(",") if o])
    fx = Fixtures(Path(args.work).resolve(), build)
    fx.make()
    suite = Suite(fx, report)
    began = time.monotonic()
    steps = [(("cli/empty-build",), suite.start_empty_build),  # it compiles on one core while the light cases run
             (("cli/",), suite.run_cli),
             (("roster/",), suite.run_rosters),
             (("cli/empty-build",), suite.run_cli_empty_build),
             (("",), suite.run_baseline),  # what the others compare with
             (("lock/", "at-once/"), suite.run_at_once),
             (("row/", "class/"), suite.run_messy_class),
             (("resume/",), suite.run_resume),
             (("disk/",), suite.run_disk)]
    for families, step in steps:
        if any(report.family(f) for f in families):
            t = time.monotonic()
            step()
            print(f"time {step.__name__}: {time.monotonic() - t:.0f} s", flush=True)
    for out in fx.outs.iterdir():  # the builds go (hundreds of MiB); what each run wrote stays for a look
        for folder in ("work", ".private"):
            shutil.rmtree(out / folder, ignore_errors=True)
    c = report.counts
    print(f"bad inputs: {sum(c.values())} cases, {c['PASS']} passed, {c['FAIL']} failed, {c['SKIP']} skipped, "
          f"{time.monotonic() - began:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
