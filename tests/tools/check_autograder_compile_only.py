#!/usr/bin/env python3
"""The results.json of a Gradescope autograder run in compile-only mode (CUDALABS_COMPILE_ONLY=1):
it has tests, its output says the build and audit passed and the tests did not run, and every
test says "not run", is not reported as failed and is worth no points. Prints "N tests, all not
run"; exits with an assertion's message where one is not so.

  check_autograder_compile_only.py results.json

Called by the release suite.
"""
import json, sys
r = json.load(open(sys.argv[1]))
tests = r.get("tests", [])
assert tests, "no tests in results.json: " + r.get("output", "")[:300]
assert "build and audit passed; tests not run" in r["output"], "the output does not say it is compile-only"
for t in tests:
    assert "not run" in t.get("output", "").lower(), t["name"] + ": output does not say not run"
    assert t.get("status") != "failed", t["name"] + ": a test not run is reported as failed"
    assert t.get("max_score") == 0, t["name"] + ": a test not run is worth points"
print(len(tests), "tests, all not run")
