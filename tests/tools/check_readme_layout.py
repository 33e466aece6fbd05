#!/usr/bin/env python3
"""The README's Layout block against the tree: prints each path it names that is not in the tree,
each of labs/products/, common/ncu.sh, bench/run.sh and the labs' profile.sh it does not name,
and each top-level folder it does not name (nothing when they agree).

  check_readme_layout.py      (in the course tree)

Called by the readme suite.
"""
import glob, os, re
text = open("README.md", encoding="utf-8").read()
block = text.split("## Layout", 1)[1].split("```", 2)[1]
names = set()
for line in block.splitlines():
    m = re.match(r"(\S+)\s", line + " ")
    if m and not line.startswith(" "):
        names.add(m.group(1))
    for w in re.findall(r"[A-Za-z0-9_./<>*-]+", line):
        if ("/" in w or re.search(r"\.(sh|py|h|mk|txt|md|json)$", w)) and not w.startswith("<"):
            names.add(w.rstrip(".,;:"))
problems = []
for n in sorted(names):
    if "<" in n or "NN" in n or n in ("make",):
        continue
    cands = [n, os.path.join("tests", n), os.path.join("bench", n), os.path.join("tools", n),
             os.path.join("common", n), os.path.join("handouts", n), os.path.join("grading", n)]
    if not any(glob.glob(c.rstrip("/")) for c in cands) and not glob.glob("labs/*/" + n):
        problems.append(f"names {n}, which is not in the tree")
for need in ["labs/products/", "common/ncu.sh", "bench/run.sh"] + sorted(glob.glob("labs/*/profile.sh")):
    short = need.split("/")[-1] if need.endswith("profile.sh") else need
    if short.split("/", 1)[-1] not in block and need not in block:
        problems.append(f"does not name {need}")
for top in sorted(d for d in os.listdir(".") if os.path.isdir(d) and not d.startswith((".", "build")) and d != "__pycache__"):
    if top + "/" not in block:
        problems.append(f"does not name the folder {top}/")
print("\n".join(problems))
