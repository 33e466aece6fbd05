#!/usr/bin/env python3
"""The preview of a lab's answers file (answers.txt beside the code), for tools/grade_preview.py
(make check): which of the rubric's questions are answered and well-formed, never whether they
are right. The questions' forms come from the rubric's test of kind questions (the course's
rubric, whose key it never prints, or tools/preview/NN.tests, which carries the forms only:
`q1 = choice of ABCD`, `q2 = number`, `q3 = prediction`). The file is read as the grader reads
it: a regular file of at most 1 MiB (no link followed), UTF-8, `qN = ANSWER` lines, `#` a comment.

  answers_preview.py RUBRIC ANSWERS_FILE     prints the preview (a test of the parsing)
"""
import os
import re
import stat
import sys

ANSWERS_FILE = "answers.txt"
MAX_BYTES = 1 << 20
QUESTION_ID = re.compile(r"q[1-9][0-9]?")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def question_forms(rubric):
    """[(id, form)] of the rubric's questions test, form ("choice", "ABCD"), ("number", "") or
    ("prediction", ""): what a well-formed answer is, without the key."""
    sections = []  # [(kind, [(id, form)])], one a [test ...]
    with open(rubric, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if line.startswith("["):
                sections.append(["correctness", []])
            if "=" not in line or not sections:
                continue
            key, value = (s.strip() for s in line.split("=", 1))
            words = value.split()
            if key == "kind":
                sections[-1][0] = value
            elif QUESTION_ID.fullmatch(key) and words and words[0] == "choice":
                sections[-1][1].append((key, ("choice", words[-1].upper())))
            elif QUESTION_ID.fullmatch(key):
                sections[-1][1].append((key, ("prediction" if words[:1] in (["predict"], ["prediction"]) else "number", "")))
    return [form for kind, forms in sections if kind == "questions" for form in forms]


def form_text(form):
    kind, options = form
    if kind == "choice":
        return "one letter of " + options
    return "a positive number, your predicted ratio" if kind == "prediction" else "a number"


def read_answers(path):
    """(text, problem): the file's text, or why it cannot be read as the grader would."""
    try:
        st = os.lstat(path)
    except OSError:
        return None, f"no {path}: write your answers there (the handout's \"Answers to hand in\")"
    if stat.S_ISLNK(st.st_mode):
        return None, f"{path} is a symbolic link: the grader follows no link; hand in the file itself"
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
        return None, f"{path} is not a regular file of at most 1 MiB: the grader would not read it"
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        return None, f"{path}: line {line} has a byte that is not UTF-8: save it as UTF-8 text"


def parse_answers(text):
    """({id: answer}, ids given twice, stray line numbers), as the grader parses the file."""
    given, twice, stray = {}, [], []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key = line.split("=", 1)[0].strip() if "=" in line else ""
        key = key[:1].lower() + key[1:]
        if not QUESTION_ID.fullmatch(key):
            stray.append(number)
            continue
        if key in given and key not in twice:
            twice.append(key)
        given[key] = line.split("=", 1)[1].strip()
    return given, twice, stray


def well_formed(answer, form):
    kind, options = form
    if kind == "choice":
        return len(answer) == 1 and answer.upper() in options
    parts = [p.strip() for p in answer.split("/")] if answer.count("/") == 1 else [answer]
    if not all(NUMBER.fullmatch(p) for p in parts) or (len(parts) == 2 and float(parts[1]) == 0):
        return False
    value = float(parts[0]) / (float(parts[1]) if len(parts) == 2 else 1)
    return kind != "prediction" or value > 0


def preview_lines(rubric, path):
    """(lines, all answered and well-formed); no lines where the rubric asks no question."""
    forms = question_forms(rubric)
    if not forms:
        return [], True
    text, problem = read_answers(path)
    head = f"Answers ({path}): graded by the grader, not checked here; only their form is."
    if problem:
        return [head, f"  {problem}; each of the {len(forms)} questions would give 0."], False
    given, twice, stray = parse_answers(text)
    lines, good = [head], 0
    for qid, form in forms:
        answer = given.get(qid, "")
        if qid in twice:
            state = "answered on more than one line: not counted"
        elif not answer:
            state = "not answered"
        elif not well_formed(answer, form):
            state = f"'{answer[:40]}' is not {form_text(form)}"
        else:
            state, good = "answered, well-formed", good + 1
        wanted = "" if state.endswith(form_text(form)) else f" ({form_text(form)})"
        lines.append(f"  {qid}: {state}{wanted}")
    if stray:
        lines.append(f"  {len(stray)} line(s) are not 'qN = ANSWER' (first: line {stray[0]}): the grader ignores them")
    lines.append(f"{good} of {len(forms)} questions answered and well-formed.")
    return lines, good == len(forms)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    print("\n".join(preview_lines(sys.argv[1], sys.argv[2])[0]))
