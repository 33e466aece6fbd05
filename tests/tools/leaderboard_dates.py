#!/usr/bin/env python3
"""The dates a leaderboard states, without a browser: for each board of lab 01 the date its page
states (and whether it says it is the file's), and each row's date in its CSV.

  leaderboard_dates.py OUT      (OUT: what grading/grade leaderboard wrote)

Prints "GPU page DATE file|recorded" per board, then "GPU csv DATE SOURCE" per CSV row.
Called by the grading_leaderboard suite.
"""
import csv, re, sys
html = open(sys.argv[1] + "/leaderboard.html", encoding="utf-8").read()
for gpu, rest in re.findall(r'<section class="board" data-lab="01" data-gpu="([^"]*)">(.*?)</section>', html, re.S):
    m = re.search(r'Graded: <span class="date">([^<]*)</span>( <span class="date-source">\(file date\)</span>)?\. ', rest)
    print(gpu, "page", m.group(1) if m else "none", "file" if m and m.group(2) else "recorded")
for r in csv.DictReader(open(sys.argv[1] + "/leaderboard.csv", newline="", encoding="utf-8")):
    print(r["gpu"], "csv", r["date"], r["date_source"])
