#!/usr/bin/env python3
"""The sizes a rubric names (sizes, size, and random_sizes' bounds) that a lab's description does
not show as check sizes: the rubric's hidden sizes, one line, sorted as text.

  rubric_hidden_sizes.py RUBRIC DESCRIBE.json

Called by the grade_preview suite, which checks that a preview shows none of them.
"""
import json, re, sys
check = set(json.load(open(sys.argv[2]))["check_sizes"])
text = open(sys.argv[1]).read()
sizes = set(w for m in re.findall(r"(?m)^\s*(?:sizes|size)\s*=([^#\n]*)", text) for w in m.split())
for m in re.findall(r"(?m)^\s*random_sizes\s*=\s*\S+([^#\n]*)", text):  # COUNT MIN..MAX
    sizes.update(w for w in re.split(r"[\s.]+", m) if w)
print(" ".join(sorted(sizes - check)))
