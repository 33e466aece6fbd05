#!/usr/bin/env python3
"""grading/grade similarity: which submissions of a class share code.

Reads a graded run's folder (the submissions its record names) or a folder of submissions laid
out as grading/grade takes them, fingerprints every file (fingerprint.py), subtracts the lab's
starter, and writes similarity.html (pairs ranked by shared fraction, side by side, the shared
lines marked) and similarity.csv (every pair that shares anything). It changes no score: a pair
is evidence for a person to judge, never a verdict.
"""
import argparse
import csv
import hashlib
import hmac
import html
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

DEFAULT_THRESHOLD = 0.7  # chosen from the measured rates: grading/similarity/RATES.md
SHOWN_PAIRS = 100        # pairs drawn side by side in the page (the CSV has them all)


class BadInput(Exception):
    """Bad input: one sentence, exit 2."""


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="grading/grade similarity",
        description="Which submissions share code. Every submission is fingerprinted (Pygments' CUDA lexer;\n"
        "identifiers and literals normalised, comments and layout ignored; k-grams winnowed), the lab's\n"
        "starter is subtracted, and every pair is ranked by the fraction of fingerprints it shares, into\n"
        "similarity.html (pairs side by side, shared lines marked) and similarity.csv. It changes no\n"
        "score: a pair is evidence for a person to judge.",
        epilog="examples:\n"
        "  grading/grade similarity results/lab01\n"
        "      a graded run's folder: the submissions and the lab its record names; the report goes to\n"
        "      results/lab01/similarity/\n"
        "  grading/grade similarity --lab 01 --out report/ --archive terms/2025/lab01 subs/\n\n"
        "exit: 0 report written; 2 bad input (one sentence, nothing written).\n"
        "The default threshold comes from measured rates: grading/similarity/RATES.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", help="a graded run's folder (grading/grade --out) or a folder of submissions")
    p.add_argument("--lab", metavar="NN", help="the lab, NN: its starter's lines count for nothing (a run's folder names it)")
    p.add_argument("--out", metavar="DIR", help="where the report goes (default: FOLDER/similarity/ for a run's folder)")
    p.add_argument("--threshold", type=float, metavar="FRACTION", default=DEFAULT_THRESHOLD,
                   help="the shared fraction from which a pair is listed as worth a look (default %(default)s)")
    p.add_argument("--archive", action="append", default=[], metavar="DIR",
                   help="submissions of an earlier term, compared with this class (repeatable)")
    p.add_argument("--public", action="append", default=[], metavar="DIR",
                   help="known public solutions, compared with this class (repeatable)")
    p.add_argument("--pseudonyms", action="store_true",
                   help="name students as the leaderboard does: a run's roster's chosen pseudonyms, else derived with the "
                   "course secret (--secret-file or GRADING_LEADERBOARD_SECRET)")
    p.add_argument("--secret-file", metavar="FILE", help="the course secret the leaderboard's pseudonyms are derived with")
    p.error = lambda message: (_ for _ in ()).throw(BadInput(message))
    return p.parse_args(argv)


def student_id(name):
    """The grader's id: letters, digits, '.', '_' and '-' kept, any other byte written %XX."""
    return "".join(chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "._-") else "%%%02X" % b
                   for b in name.encode("utf-8", "surrogateescape"))


def read_text(path):
    with open(path, "rb") as f:
        return f.read(1 << 20).decode("utf-8", "replace")


def starter_of(lab):
    """The lab's starter file, labs/NN-*/TOPIC.cu (the one that is not the driver)."""
    if not re.fullmatch(r"\d\d", lab or ""):
        raise BadInput(f"--lab wants a lab number of two digits, such as 01, not {lab!r}")
    folders = [d for d in sorted(os.listdir(os.path.join(ROOT, "labs"))) if d.startswith(lab + "-")]
    files = [os.path.join(ROOT, "labs", d, f) for d in folders for f in sorted(os.listdir(os.path.join(ROOT, "labs", d)))
             if f.endswith(".cu") and f != "driver.cu"]
    if len(files) != 1:
        raise BadInput(f"lab {lab} has no starter file in labs/{lab}-*/: is it a lab of this course?")
    return files[0]


def student_source(folder, topic):
    """A student's folder: the lab's file where it is there, else every .cu file in it, in order."""
    names = sorted(f for f in os.listdir(folder) if f.endswith(".cu") and os.path.isfile(os.path.join(folder, f))
                   and not os.path.islink(os.path.join(folder, f)))
    if topic in names:
        names = [topic]
    return "\n".join(read_text(os.path.join(folder, f)) for f in names) if names else None


def submissions_in(inputs, topic):
    """{id: source} of files (a student each), student folders, or class folders of those."""
    found = {}
    for path in inputs:
        if not os.path.exists(path):
            raise BadInput(f"{path} does not exist: give a graded run's folder or a folder of submissions")
        if os.path.isfile(path):
            found[student_id(os.path.basename(path)[:-3] if path.endswith(".cu") else os.path.basename(path))] = read_text(path)
            continue
        if topic and os.path.isfile(os.path.join(path, topic)):
            found[student_id(os.path.basename(os.path.normpath(path)))] = student_source(path, topic)
            continue
        for entry in sorted(os.listdir(path)):
            full = os.path.join(path, entry)
            if entry.startswith(".") or os.path.islink(full):
                continue
            if os.path.isdir(full):
                source = student_source(full, topic)
                if source is not None:
                    found[student_id(entry)] = source
            elif entry.endswith(".cu"):
                found[student_id(entry[:-3])] = read_text(full)
    return found


def resolve_folder(folder, lab):
    """(inputs, lab, default out) of a graded run's folder, or of a plain folder of submissions."""
    if not os.path.isdir(folder):
        raise BadInput(f"{folder} is not a folder: give a graded run's folder (grading/grade --out) or a folder of submissions")
    record = os.path.join(folder, ".resume", "run.json")
    if os.path.isfile(record):
        try:
            with open(record, encoding="utf-8") as f:
                command = json.load(f)["command"]
            inputs = [i for i in command["inputs"] if isinstance(i, str)]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise BadInput(f"the run record {record} cannot be read ({e}): give the submissions folder instead")
        if not inputs:
            raise BadInput(f"the run record {record} names no submissions: give the submissions folder instead")
        for path in inputs:
            if not os.path.exists(path):
                raise BadInput(f"{path}, where the run's record says its submissions were, is gone: give the submissions "
                               "folder instead, with --lab")
        return inputs, lab or command.get("lab"), os.path.join(folder, "similarity"), read_roster(folder)
    if os.path.isfile(os.path.join(folder, "audit.jsonl")):
        raise BadInput(f"{folder} is a graded run's folder without its record (.resume/run.json) of the submissions it graded: "
                       "give the submissions folder instead, with --lab")
    return [folder], lab, None, {}


def read_roster(folder):
    """{submission id: [(roster id, chosen pseudonym)]} of a graded run's roster.json ({}: none)."""
    path = os.path.join(folder, "roster.json")
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        entries = record["entries"]
        return {sid: [(entries[e]["id"], entries[e].get("pseudonym", "")) for e in indices]
                for sid, indices in record["students"].items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        raise BadInput(f"the run's roster record {path} cannot be read ({e})")


def pseudonym_maker(args, roster):
    """The leaderboard's pseudonyms (grading/src/class/leaderboard.cpp: its word lists and formula):
    each of a submission's students' chosen pseudonym in the run's roster, else one derived from
    their id (the roster's, else the submission's) with the course secret."""
    if args.secret_file:
        try:
            secret = open(args.secret_file, encoding="utf-8").read().strip()
        except OSError as e:
            raise BadInput(f"the secret file {args.secret_file} cannot be read ({e.strerror})")
    else:
        secret = os.environ.get("GRADING_LEADERBOARD_SECRET", "").strip()
    if secret and len(secret) < 16:
        raise BadInput("the course secret has fewer than 16 characters: choose a longer one")
    source = read_text(os.path.join(ROOT, "grading", "src", "class", "leaderboard.cpp"))
    lists = [re.findall(r'"([a-z]+)"', m) for m in
             re.findall(r"k(?:Adjectives|Animals)\[64\] = \{(.*?)\};", source, re.S)]
    if len(lists) != 2 or any(len(words) != 64 for words in lists):
        raise BadInput("the leaderboard's word lists were not found in grading/src/class/leaderboard.cpp")

    def derived(student):
        if not secret:
            raise BadInput(f"student {student!r} has no pseudonym in the run's roster and --pseudonyms needs the course "
                           "secret: pass --secret-file FILE or set GRADING_LEADERBOARD_SECRET")
        mac = hmac.new(secret.encode(), ("cudalabs leaderboard pseudonym\n" + student).encode(), hashlib.sha256).hexdigest()
        return f"{lists[0][int(mac[0:2], 16) % 64]}-{lists[1][int(mac[2:4], 16) % 64]}-{mac[4:8]}"

    def pseudonym(sid):
        return " & ".join(chosen or derived(student) for student, chosen in roster.get(sid, [(sid, "")]))
    return pseudonym


def score_pairs(docs):
    """Every pair with one class member that shares a fingerprint: (score, shared, a, b)."""
    pairs = []
    for i, a in enumerate(docs):
        for b in docs[i + 1:]:
            if a.kind != "class" and b.kind != "class":
                continue
            n = len(a.fingerprints & b.fingerprints)
            if n:
                pairs.append((n / min(len(a.fingerprints), len(b.fingerprints)), n, a, b))
    pairs.sort(key=lambda p: (-p[0], -p[1], p[2].name, p[3].name))
    return pairs


STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222}table.pairs{border-collapse:collapse}
table.pairs td,table.pairs th{border:1px solid #bbb;padding:2px 8px}td.num{text-align:right}
.side{display:flex;gap:1em}.side pre{flex:1;overflow-x:auto;font-size:12px;border:1px solid #ccc;margin:0}
pre span{display:block}pre span.shared{background:#ffe08a}p.note{background:#eef;padding:.5em}"""


def code_html(doc, lines):
    rows = doc.source.split("\n")
    mark = {True: ' class="shared"', False: ""}
    return "".join(f'<span{mark[n in lines]}>{n:4d}  {html.escape(text)}</span>'
                   for n, text in enumerate(rows, 1))


def write_page(path, pairs, label, info, threshold):
    listed = [p for p in pairs if p[0] >= threshold]
    o = ["<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Similarity report</title>",
         f"<style>{STYLE}</style></head><body><h1>Similarity report</h1>",
         f"<p class=\"note\">Evidence for a person to judge, not a verdict: this report changes no score. Two "
         f"submissions of one lab may share code for honest reasons (the starter, the handout's hints, one obvious "
         f"way to write a short kernel); read each pair before acting on it.</p><p id=\"summary\">{html.escape(info)}. "
         f"{len(listed)} pair{'' if len(listed) == 1 else 's'} share{'s' if len(listed) == 1 else ''} at least "
         f"{threshold:.2f} of their fingerprints.</p>",
         "<table class=\"pairs\"><tr><th>#</th><th>shared fraction</th><th>shared fingerprints</th><th>first</th><th>second</th></tr>"]
    for n, (score, shared, a, b) in enumerate(listed, 1):
        link = f'<a href="#pair{n}">{n}</a>' if n <= SHOWN_PAIRS else str(n)
        o.append(f'<tr class="pair"><td class="num">{link}</td><td class="num score">{score:.2f}</td><td class="num">{shared}</td>'
                 f'<td class="a">{html.escape(label(a))}</td><td class="b">{html.escape(label(b))}</td></tr>')
    o.append("</table>")
    if len(listed) > SHOWN_PAIRS:
        o.append(f"<p>The first {SHOWN_PAIRS} pairs are shown side by side below; similarity.csv lists them all.</p>")
    for n, (score, shared, a, b) in enumerate(listed[:SHOWN_PAIRS], 1):
        common = a.all_hashes & b.all_hashes
        o.append(f'<h2 id="pair{n}">{n}. {html.escape(label(a))} and {html.escape(label(b))}: {score:.2f} shared</h2>'
                 f'<div class="side"><pre>{code_html(a, a.lines_matching(common))}</pre>'
                 f'<pre>{code_html(b, b.lines_matching(common))}</pre></div>')
    o.append("</body></html>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(o))


def write_csv(path, pairs, label, threshold):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["first", "first_kind", "second", "second_kind", "shared_fraction", "shared_fingerprints",
                    "first_fingerprints", "second_fingerprints", "at_threshold"])
        for score, shared, a, b in pairs:
            w.writerow([label(a), a.kind, label(b), b.kind, f"{score:.3f}", shared, len(a.fingerprints),
                        len(b.fingerprints), "yes" if score >= threshold else "no"])


def load(args):
    """The documents: the class, then the archives' and the public solutions', starter subtracted."""
    from fingerprint import documents, kgrams, tokens
    inputs, lab, out, roster = resolve_folder(args.folder, args.lab)
    starter = starter_of(lab) if lab else None
    topic = os.path.basename(starter) if starter else None
    out = args.out or out
    if not out:
        raise BadInput(f"{args.folder} is a folder of submissions: say where the report goes with --out DIR")
    for d in args.archive + args.public:
        if not os.path.isdir(d):
            raise BadInput(f"{d} is not a folder: --archive and --public take folders of submissions")
    cls = submissions_in(inputs, topic)
    if not cls:
        raise BadInput(f"{args.folder} holds no submissions (.cu files, or folders holding them)")
    entries = [(sid, src, "class") for sid, src in cls.items()]
    for kind, folders in (("archive", args.archive), ("public", args.public)):
        for d in folders:
            tag = os.path.basename(os.path.normpath(d))
            entries += [(f"{tag}/{sid}", src, kind) for sid, src in submissions_in([d], topic).items()]
    docs = documents(entries)
    starter_hashes = {h for h, _, _ in kgrams(tokens(read_text(starter)))} if starter else set()
    for d in docs:
        d.subtract(starter_hashes)
    return docs, lab, out, starter, len(cls), roster


def main(argv):
    args = parse_args(argv)
    if not 0 < args.threshold <= 1:
        raise BadInput(f"--threshold is a fraction of shared fingerprints, above 0 and at most 1, not {args.threshold}")
    docs, lab, out, starter, n_class, roster = load(args)
    pseudonym = pseudonym_maker(args, roster) if args.pseudonyms else None
    # Every name before anything is written: a student without a pseudonym stops the report here.
    names = {d.name: pseudonym(d.name) if pseudonym and d.kind == "class" else
             d.name if d.kind == "class" else f"{d.kind}: {d.name}" for d in docs}

    def label(d):
        return names[d.name]
    pairs = score_pairs(docs)
    os.makedirs(out, exist_ok=True)
    info = (f"{n_class} submissions" + (f" of lab {lab}" if lab else "") + f", {len(docs) - n_class} from archives and "
            f"public solutions; " + (f"the starter {os.path.relpath(starter, ROOT)} subtracted" if starter
                                     else "no starter subtracted (no --lab)"))
    write_page(os.path.join(out, "similarity.html"), pairs, label, info, args.threshold)
    write_csv(os.path.join(out, "similarity.csv"), pairs, label, args.threshold)
    listed = sum(1 for p in pairs if p[0] >= args.threshold)
    print(f"similarity: {info}; {listed} pairs at or above {args.threshold:.2f}: {os.path.join(out, 'similarity.html')} "
          f"(evidence to judge, no score changed)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as e:
        print(f"grade similarity: {e}", file=sys.stderr)
        sys.exit(2)
