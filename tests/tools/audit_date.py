#!/usr/bin/env python3
"""The "graded_at" of a grader's audit log line: the last run line's, or a student's last line's.

  audit_date.py AUDIT.jsonl run
  audit_date.py AUDIT.jsonl submission STUDENT

Prints the date, or an empty line where there is no such line or it has no date.
Called by audit_date in tests/lib.sh (the sharded and resumed grading suites).
"""
import json, sys
path, event = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
mine = [l for l in lines if l.get("event") == event and (len(sys.argv) < 4 or l.get("student") == sys.argv[3])]
print(mine[-1].get("graded_at", "") if mine else "")
