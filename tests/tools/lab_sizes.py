#!/usr/bin/env python3
"""Every lab sized for its student: each lab's handout opens with a "Goals" section of three goals
and a time estimate ("Time: about 90 minutes."), puts its questions before the reference's
measured results (a student answers from a run of their own first), and every TODO(labNN)
marker of a starter says about how many lines it takes ("TODO(lab08) tiled (about 12 lines): ...").
A lab with an answers template (labs/NN-*/answers.txt, one `qN =` line a question) lists those
questions, and no others, under its handout's "## Answers to hand in" (`- **q1.** ...`), 2 to 4.

  lab_sizes.py ROOT     checks ROOT/handouts/NN-*.md (not the course guide, 00) and the files of
                        ROOT/labs/NN-*/; prints one line per fault and exits 1, else exits 0.
"""
import glob
import os
import re
import sys

TIME = re.compile(r"^Time: about \d+(?:[–-]\d+)? (?:minutes|hours?)\b")
ITEM = re.compile(r"^(?:\d+\.|[-*]) \S")
# A marker followed by a variant's name is a task; the file's heading ("complete every
# TODO(lab05).") and a driver's message ("see TODO(lab05) at") are not.
MARKER = re.compile(r"TODO\(lab\d\d\) ([A-Za-z_]\w*)(.*)")
SIZE = re.compile(r"^ \(about \d+(?:[–-]\d+)? lines?\)")
SOURCES = (".cu", ".cuh", ".h", ".cpp")


def handout_faults(path):
    """The handout's faults: no Goals section, not three goals, no time estimate, the measured
    results before the questions."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    order = []
    if "# Measured results" in lines and "# Questions" in lines \
            and lines.index("# Measured results") < lines.index("# Questions"):
        order = [f"{path}: '# Measured results' comes before '# Questions' (put it after them)"]
    try:
        start = lines.index("# Goals")
    except ValueError:
        return order + [f"{path}: no '# Goals' section"]
    section = []
    for line in lines[start + 1:]:
        if line.startswith("# "):
            break
        section.append(line)
    faults = order
    goals = [line for line in section if ITEM.match(line)]
    if len(goals) != 3:
        faults.append(f"{path}: {len(goals)} goals under '# Goals' (three expected)")
    if not any(TIME.match(line) for line in section):
        faults.append(f"{path}: no time estimate under '# Goals' (a line 'Time: about N minutes.')")
    return faults


def answers_faults(handout, root):
    """Where the handout's "Answers to hand in" and its lab's answers.txt disagree."""
    nn = os.path.basename(handout)[:2]
    templates = glob.glob(os.path.join(root, "labs", f"{nn}-*", "answers.txt"))
    with open(handout, encoding="utf-8") as f:
        text = f.read()
    section = text.split("\n## Answers to hand in\n", 1)
    asked = re.findall(r"^- \*\*(q\d+)\.\*\*", section[1].split("\n#", 1)[0], re.M) if len(section) == 2 else []
    if not templates:
        return [f"{handout}: asks {' '.join(asked)} but its lab has no answers.txt"] if asked else []
    with open(templates[0], encoding="utf-8") as f:
        blanks = re.findall(r"^(q\d+) *=", f.read(), re.M)
    if asked != blanks or not 2 <= len(asked) <= 4:
        return [f"{handout}: its 'Answers to hand in' asks [{' '.join(asked)}], {templates[0]} has [{' '.join(blanks)}] "
                "(the same 2 to 4 questions)"]
    return []


def starter_faults(path):
    """Each TODO(labNN) task of the file that does not say how many lines it takes."""
    faults = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = MARKER.search(line)
            if m and m.group(1) != "at" and not SIZE.match(m.group(2)):
                faults.append(f"{path}:{number}: TODO({line[m.start() + 5:m.start() + 10]}) "
                              f"{m.group(1)} lacks its size ('(about N lines)' after the name)")
    return faults


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    handouts = sorted(p for p in glob.glob(os.path.join(root, "handouts", "[0-9][0-9]-*.md"))
                      if not os.path.basename(p).startswith("00-"))
    starters = sorted(p for p in glob.glob(os.path.join(root, "labs", "[0-9][0-9]-*", "*"))
                      if p.endswith(SOURCES))
    if not handouts or not starters:
        print(f"{root}: no lab handouts or no starter files", file=sys.stderr)
        return 2
    faults = [f for p in handouts for f in handout_faults(p) + answers_faults(p, root)]
    faults += [f for p in starters for f in starter_faults(p)]
    for fault in faults:
        print(fault)
    if faults:
        return 1
    print(f"{len(handouts)} handouts with three goals and a time, questions before results, the answers to hand in "
          "as their answers.txt; every TODO of "
          f"{len(starters)} lab files sized")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
