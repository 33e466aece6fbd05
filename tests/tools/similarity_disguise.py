#!/usr/bin/env python3
"""Writes the similarity corpus's disguised copies: tests/grading/similarity/NN/DISGUISE.cu.

Each is the reference solution solutions/NN-*/TOPIC.cu disguised the way a student hiding a copy
would: renamed identifiers, another layout, functions in another order, dead code added,
comments replaced, and all of these at once. Deterministic: run it again after a solution
changes (python3 tests/tools/similarity_disguise.py) and commit what it writes.
    similarity_disguise.py [--labs "01 04"] [--out tests/grading/similarity]
"""
import argparse
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LABS = "01 04 06 08 12 13"
WORD = re.compile(r"\b[A-Za-z_]\w*\b")
# Comments and literals, which renaming and reformatting leave alone.
OPAQUE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)
KEYWORDS = set("""alignas alignof auto bool break case char class const constexpr continue default delete do double else
enum explicit extern false float for if inline int long namespace new nullptr operator private public return short signed
sizeof static struct switch template this true typedef typename union unsigned using void volatile while size_t uint32_t
uintptr_t int64_t uint64_t float2 float4 int4 dim3 threadIdx blockIdx blockDim gridDim warpSize x y z w std min max
static_cast reinterpret_cast const_cast include pragma unroll define ifdef ifndef endif""".split())


def pieces(src):
    """(is_code, text) pieces: comments and literals apart from code."""
    out, at = [], 0
    for m in OPAQUE.finditer(src):
        out.append((True, src[at:m.start()]))
        out.append((False, m.group()))
        at = m.end()
    out.append((True, src[at:]))
    return out


def on_code(src, change):
    return "".join(change(t) if code else t for code, t in pieces(src))


def fixed_names(nn):
    """Names a student may not rename: the lab's interface and the course's headers."""
    text = "".join(open(f, encoding="utf-8").read() for f in glob.glob(os.path.join(ROOT, f"labs/{nn}-*/*.h")) +
                   glob.glob(os.path.join(ROOT, "common/*.h")))
    return set(WORD.findall(text))


def renamed(src, nn, prefix="q"):
    keep = fixed_names(nn) | KEYWORDS
    names = sorted({w for code, t in pieces(src) if code for w in WORD.findall(t)
                    if w not in keep and not re.match(r"(cuda|cu[A-Z]|CUDA|__|atomic|make_)", w)})
    table = {n: f"{prefix}{i}_{n[::-1].lower()}" for i, n in enumerate(names)}
    return on_code(src, lambda t: WORD.sub(lambda m: table.get(m.group(), m.group()), t))


def reformatted(src):
    def layout(t):
        t = re.sub(r"\)\s*\{", ")\n{", t)                  # braces on lines of their own
        t = re.sub(r",\s*", ",  ", t)                      # other spacing
        t = re.sub(r"\n( {4})+", lambda m: "\n" + "\t" * (len(m.group()) // 4), t)
        return t
    return on_code(src, layout)


def chunks(src):
    """Top-level pieces: a function, a declaration, a preprocessor line, with the comments above."""
    out, depth, start = [], 0, 0
    code = "".join(t if c else re.sub(r"[^\n]", " ", t) for c, t in pieces(src))
    i = 0
    while i < len(code):
        ch = code[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if depth == 0 and (ch in "};" or (ch == "\n" and code[start:i].strip().startswith("#") and
                                           "\n" not in code[start:i].strip())):
            end = code.find("\n", i)
            end = len(code) if end < 0 else end + 1
            out.append(src[start:end])
            start = i = end
            continue
        i += 1
    out.append(src[start:])
    return out


def reordered(src):
    parts = chunks(src)
    head = [p for p in parts if p.strip().startswith("#") or p.strip().split("\n")[-1].startswith("#")]
    rest = [p for p in parts if p not in head]
    funcs = [p for p in rest if "(" in p and "{" in p]
    order = [p for p in rest if p not in funcs] + funcs[::-1]  # declarations first, functions reversed
    return "".join(head + order)


def dead_code(src):
    n = [0]

    def add(m):
        n[0] += 1
        return (m.group() + f"\n    if (sizeof(int) == 0) {{ volatile int spare{n[0]} = {n[0]} * 7; (void)spare{n[0]}; }}")
    body = on_code(src, lambda t: re.sub(r"\)\s*\{\n", lambda m: add(m) + "\n", t))
    return body + "\n// helper kept for later\nstatic inline int unused_helper(int v) {\n    int s = 0;\n" \
        "    for (int k = 0; k < v; ++k) s += k % 3;\n    return s;\n}\n"


def comments_changed(src):
    count = [0]

    def swap(t):
        if t.startswith("//") or t.startswith("/*"):
            count[0] += 1
            return f"// my own notes, step {count[0]}"
        return t
    return "".join(t if code else swap(t) for code, t in pieces(src))


DISGUISES = {
    "renamed": lambda s, nn: renamed(s, nn),
    "reformatted": lambda s, nn: reformatted(s),
    "reordered": lambda s, nn: reordered(s),
    "dead_code": lambda s, nn: dead_code(s),
    "comments": lambda s, nn: comments_changed(s),
    "combined": lambda s, nn: reformatted(dead_code(renamed(reordered(comments_changed(s)), nn))),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--labs", default=LABS)
    p.add_argument("--out", default=os.path.join(ROOT, "tests/grading/similarity"))
    args = p.parse_args()
    for nn in args.labs.split():
        sol = glob.glob(os.path.join(ROOT, f"solutions/{nn}-*/*.cu"))[0]
        src = open(sol, encoding="utf-8").read()
        os.makedirs(os.path.join(args.out, nn), exist_ok=True)
        for name, disguise in DISGUISES.items():
            with open(os.path.join(args.out, nn, f"{name}.cu"), "w", encoding="utf-8") as f:
                f.write(disguise(src, nn))
    print(f"wrote {len(DISGUISES)} disguises of each of labs {args.labs} into {args.out}")


if __name__ == "__main__":
    main()
