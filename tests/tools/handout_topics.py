#!/usr/bin/env python3
"""The topics each lab's handout owns, and the CUDA names the handouts write.

  handout_topics.py ROOT [INCLUDE_DIR]

checks ROOT/handouts/NN-*.md:

- each topic of TOPICS is taught in the handout that owns it: its section heading inside
  '# The idea' (before '# What you do'), the API names or terms it must name, and a question
  about it in '# Questions';
- every handout that has a '## Answers' block answers each question: as many numbered answers
  as numbered questions (a question added without its answer is found);
- the corrections of the sources' outdated claims are still written where the labs meet them
  (CORRECTIONS);
- with INCLUDE_DIR (a CUDA Toolkit's include folder), every `cudaXxx` and `cublasXxx` name of
  every handout is declared in the runtime's or cuBLAS's headers (HEADERS): a misspelt or
  made-up API name is found.

Prints one line per fault and exits 1, else a summary and exits 0; exits 2 on a bad command line
or when ROOT has no handouts.
"""
import glob
import os
import re
import sys

# (handout prefix, topic, section heading, what the section must name, a word of its question)
TOPICS = [
    ("01", "warp divergence", "## Warps and divergence",
     ["diverges", "warp-uniform", "`if (i < n)`"], "diverge"),
    ("04", "__device__ variables and their symbols", "## `__device__` variables and their symbols",
     ["`__device__`", "`__constant__`", "`cudaMemcpyToSymbol", "`cudaMemcpyFromSymbol",
      "`cudaGetSymbolAddress", "`.const`", "`.global`"], "`__device__`"),
    ("06", "unified addressing and peer copies",
     "## One address space: `cudaMemcpyDefault` and copies between GPUs",
     ["unified virtual addressing", "`cudaMemcpyDefault`", "`cudaMemcpyPeer", "`cudaDeviceCanAccessPeer",
      "`cudaDeviceEnablePeerAccess", "one direction"], "`cudaMemcpyDefault`"),
    ("10", "the L1/shared-memory carveout", "## Shared memory and L1: the carveout",
     ["cudaFuncAttributePreferredSharedMemoryCarveout", "cudaFuncAttributeMaxDynamicSharedMemorySize",
      "48 KB", "`cudaFuncSetCacheConfig`"], "carveout"),
]

# (handout prefix, what the correction must say, whitespace folded)
CORRECTIONS = [
    ("08", "that held only for compute capability 1.x"),
    ("13", "but a register is the better place"),
]

# The headers that declare the names a handout may write: the runtime API (and its C++
# overloads) and cuBLAS (whose v2 names are macros of cublas_v2.h).
HEADERS = ["cuda_runtime_api.h", "driver_types.h", "cuda_runtime.h", "cublas_api.h", "cublas_v2.h"]
API_NAME = re.compile(r"\b(?:cuda|cublas)[A-Z][A-Za-z0-9_]*")


def fold(text):
    return " ".join(text.split())


def sections(lines):
    """{'# Heading': (first line index, end index)} for the top-level sections."""
    starts = [(i, line) for i, line in enumerate(lines) if line.startswith("# ")]
    out = {}
    for k, (i, line) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        out.setdefault(line.strip(), (i, end))
    return out


def numbered(lines):
    """The numbers of the top-level numbered items ('6. ...' at the start of a line)."""
    return [int(m.group(1)) for m in (re.match(r"^(\d+)\. ", line) for line in lines) if m]


def questions_and_answers(lines, secs):
    """The lines of the questions (up to the instructor block) and of the answers (from
    '## Answers' to the end of its block), or None for either that is missing."""
    if "# Questions" not in secs:
        return None, None
    start, end = secs["# Questions"]
    body = lines[start + 1:end]
    cut = next((i for i, line in enumerate(body) if line.startswith(":::")), len(body))
    questions = body[:cut]
    answers = None
    if "## Answers" in body:
        a = body.index("## Answers") + 1
        stop = next((i for i in range(a, len(body)) if body[i].startswith(":::")), len(body))
        answers = body[a:stop]
    return questions, answers


def handout_faults(path, lines):
    faults = []
    secs = sections(lines)
    questions, answers = questions_and_answers(lines, secs)
    if questions is not None and answers is not None:
        q, a = numbered(questions), numbered(answers)
        if q != list(range(1, len(q) + 1)):
            faults.append(f"{path}: questions numbered {q} (1 to {len(q)} expected)")
        if a != q:
            faults.append(f"{path}: {len(q)} questions but answers numbered {a}: "
                          "every question needs its answer under '## Answers'")
    return faults, secs, questions


def topic_faults(path, lines, secs, questions, topic):
    _, name, heading, names, question_word = topic
    if heading not in lines:
        return [f"{path}: no section '{heading}' ({name})"]
    faults = []
    at = lines.index(heading)
    idea, todo = secs.get("# The idea"), secs.get("# What you do")
    if not idea or not todo or not idea[0] < at < todo[0]:
        faults.append(f"{path}: '{heading}' is not inside '# The idea', before '# What you do'")
    end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    text = fold("\n".join(lines[at + 1:end]))
    for word in names:
        if word not in text:
            faults.append(f"{path}: the section on {name} does not name {word}")
    if not questions or question_word not in fold("\n".join(questions)):
        faults.append(f"{path}: no question on {name} (one naming {question_word}) under '# Questions'")
    return faults


def api_faults(paths, include_dir):
    declared = set()
    for header in HEADERS:
        p = os.path.join(include_dir, header)
        if os.path.isfile(p):
            with open(p, encoding="utf-8", errors="replace") as f:
                declared.update(API_NAME.findall(f.read()))
    if not declared:
        return [f"{include_dir}: none of {', '.join(HEADERS)} declares a CUDA name"], 0
    faults, seen = [], set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for name in API_NAME.findall(line):
                    seen.add(name)
                    if name not in declared:
                        faults.append(f"{path}:{number}: {name} is declared in none of "
                                      f"{', '.join(HEADERS)} ({include_dir})")
    return faults, len(seen)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    paths = sorted(glob.glob(os.path.join(root, "handouts", "[0-9][0-9]-*.md")))
    if not paths:
        print(f"{root}: no handouts", file=sys.stderr)
        return 2
    faults = []
    by_prefix = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        found, secs, questions = handout_faults(path, lines)
        faults += found
        by_prefix[os.path.basename(path)[:2]] = (path, lines, secs, questions)
    for topic in TOPICS:
        if topic[0] not in by_prefix:
            faults.append(f"{root}/handouts: no handout {topic[0]}-*.md for {topic[1]}")
            continue
        faults += topic_faults(*by_prefix[topic[0]], topic)
    for prefix, phrase in CORRECTIONS:
        if prefix in by_prefix:
            path, lines = by_prefix[prefix][:2]
            if phrase not in fold("\n".join(lines)):
                faults.append(f"{path}: lacks the correction \"{phrase}\"")
    names = 0
    if len(argv) == 3:
        found, names = api_faults(paths, argv[2])
        faults += found
    for fault in faults:
        print(fault)
    if faults:
        return 1
    print(f"{len(TOPICS)} topics in their handouts with a question each, every question of "
          f"{len(paths)} handouts answered, {len(CORRECTIONS)} corrections"
          + (f", {names} CUDA names declared in the headers" if len(argv) == 3 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
