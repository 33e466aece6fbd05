#!/usr/bin/env python3
"""Checks that the shell tests read as lists: every tests/**/*.sh file, one line per finding.

  test_shape.py [ROOT]      (ROOT: the repository, by default the one this file is in)

Finds a shell function longer than 80 lines (from its `name() {` or `function name {` line to
its closing brace, both counted; quotes, comments and heredocs are read well enough for this
tree, not as a shell parses them) and a heredoc that holds a program: one fed to an interpreter
(python, python3, "$py", awk, sh, bash, perl) or written to a file that ends in .py or .sh or
that a chmod makes executable later in the file. Such a program belongs in a file of its own
(tests/tools/, tests/fixtures/), where it can be read, linted and run alone.
Exits 1 with the findings, 0 with one summary line. Called by tests/suites/test_shape.sh.
"""
import os
import re
import sys

MAX_FUNCTION_LINES = 80
INTERPRETERS = {"python", "python3", "$py", "awk", "sh", "bash", "perl"}

FUNCTION_START = re.compile(
    r"^\s*(?:function\s+([A-Za-z_][\w:.-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w:.-]*)\s*\(\s*\))\s*\{")
HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][\w]*)\2")


def mask(lines):
    """The lines with what the shell does not read as code blanked out: comments and heredoc
    bodies as spaces, the text of quoted strings as "_" (the quotes kept, so that each word keeps
    its place); a command substitution inside double quotes stays code. Also the heredocs:
    (line index of the `<<`, its column, its tag, the first and last line index of its body)."""
    masked, heredocs = [], []
    stack = ["code"]          # code, sq or dq (quotes); each code entered by $( counts its parens
    parens = [0]
    pending = []              # heredocs opened on the current line: (line, col, tag, strip tabs)
    i = 0
    while i < len(lines):
        line = lines[i]
        out = list(line)
        j = 0
        while j < len(line):
            c = line[j]
            top = stack[-1]
            if top == "sq":
                if c == "'":
                    stack.pop()
                else:
                    out[j] = "_"
                j += 1
                continue
            if top == "dq":
                if c == "\\":
                    out[j] = "_"
                    if j + 1 < len(line):
                        out[j + 1] = "_"
                    j += 2
                    continue
                if c == '"':
                    stack.pop()
                    j += 1
                    continue
                if line.startswith("$(", j) and not line.startswith("$((", j):
                    stack.append("code")
                    parens.append(1)
                    j += 2
                    continue
                out[j] = "_"
                j += 1
                continue
            # code
            if c == "\\":
                j += 2
                continue
            if c == "#" and (j == 0 or line[j - 1] in " \t;&|()"):
                for k in range(j, len(line)):
                    out[k] = " "
                break
            if c == "'":
                if j > 0 and line[j - 1] == "$":   # $'...': backslash escapes inside
                    k = j + 1
                    while k < len(line) and line[k] != "'":
                        k += 2 if line[k] == "\\" else 1
                    for m in range(j + 1, min(k, len(line))):
                        out[m] = "_"
                    j = k + 1
                    continue
                stack.append("sq")
                j += 1
                continue
            if c == '"':
                stack.append("dq")
                j += 1
                continue
            if line.startswith("<<<", j):
                j += 3
                continue
            m = HEREDOC.match(line, j)
            if m:
                pending.append((i, j, m.group(3), m.group(1) == "-"))
                j = m.end()
                continue
            if len(stack) > 1:
                if c == "(":
                    parens[-1] += 1
                elif c == ")":
                    parens[-1] -= 1
                    if parens[-1] == 0:
                        stack.pop()
                        parens.pop()
            j += 1
        masked.append("".join(out))
        i += 1
        # The bodies of the heredocs opened on that line follow it, one after another.
        for start, col, tag, strip in pending:
            first = i
            while i < len(lines):
                body = lines[i].lstrip("\t") if strip else lines[i]
                if body == tag:
                    break
                masked.append("")
                i += 1
            heredocs.append((start, col, tag, first, i - 1))
            if i < len(lines):
                masked.append("")
                i += 1
        pending = []
    return masked, heredocs


def long_functions(masked):
    """(name, first line, last line) of every function over MAX_FUNCTION_LINES lines, 1-based."""
    found = []
    depth = 0
    open_functions = []       # (name, start line, depth before its brace)
    for n, line in enumerate(masked):
        m = FUNCTION_START.match(line)
        start_col = m.end() - 1 if m else -1
        for col, c in enumerate(line):
            if c == "{":
                if col == start_col:
                    open_functions.append((m.group(1) or m.group(2), n, depth))
                depth += 1
            elif c == "}":
                depth -= 1
                if open_functions and open_functions[-1][2] == depth:
                    name, start, _ = open_functions.pop()
                    if n - start + 1 > MAX_FUNCTION_LINES:
                        found.append((name, start + 1, n + 1))
    return found


SEPARATOR = re.compile(r"\$\(|&&|\|\||[;&|(]|\b(?:if|then|else|elif|do|while|until)\s|!\s")


def command_before(code, text):
    """The words of the last simple command before a `<<`, as written: CODE is the masked line
    up to it, TEXT the same span of the line itself."""
    start = max((m.end() for m in SEPARATOR.finditer(code)), default=0)
    words = [text[start + m.start():start + m.end()] for m in re.finditer(r"\S+", code[start:])]
    while words and (re.match(r"^[A-Za-z_]\w*=", words[0]) or words[0] in ("env", "exec", "command")):
        words.pop(0)
    return words


def unquote(word):
    return word.replace('"', "").replace("'", "")


def program_heredocs(lines, masked, heredocs):
    """(line, why) of every heredoc that holds a program, 1-based."""
    found = []
    for start, col, tag, first, last in heredocs:
        written = command_before(masked[start][:col], lines[start][:col])
        if written and os.path.basename(unquote(written[0])) in INTERPRETERS:
            found.append((start + 1, f"a heredoc <<{tag} feeds {unquote(written[0])}"))
            continue
        target = re.search(r"(?:^|\s)>>?\s*(\S+)\s*$", lines[start][:col])
        if not target:
            continue
        path = unquote(target.group(1))
        if path.endswith((".py", ".sh")):
            found.append((start + 1, f"a heredoc <<{tag} writes the program {path}"))
            continue
        for later in lines[last + 1:]:
            if re.match(r"^\s*chmod\b", later) and path in map(unquote, later.split()[1:]):
                found.append((start + 1, f"a heredoc <<{tag} writes {path}, made executable later"))
                break
    return found


def findings(root):
    tests = os.path.join(root, "tests")
    out = []
    files = 0
    for dirpath, dirnames, filenames in os.walk(tests):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".sh"):
                continue
            files += 1
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            masked, heredocs = mask(lines)
            for fn, first, last in long_functions(masked):
                out.append(f"{rel}:{first}: function {fn} is {last - first + 1} lines "
                           f"(at most {MAX_FUNCTION_LINES}; lines {first}-{last})")
            for line, why in program_heredocs(lines, masked, heredocs):
                out.append(f"{rel}:{line}: {why}: move the program to a file of its own")
    return files, out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    files, found = findings(os.path.normpath(root))
    for line in found:
        print(line)
    if found:
        return 1
    print(f"{files} shell files in tests/: no function over {MAX_FUNCTION_LINES} lines, no program in a heredoc")
    return 0


if __name__ == "__main__":
    sys.exit(main())
