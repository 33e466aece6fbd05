"""Fingerprints of CUDA C++ source: tokens, normalised, hashed in k-grams, winnowed.

Why this and not an existing detector: copydetect and Dolos are not Debian packages and the
grading machines and CI install nothing from the network, while Pygments is (python3-pygments)
and its CudaLexer knows CUDA's keywords and builtins. Winnowing itself (Schleimer, Wilkerson and
Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003) is a few lines.

A token is kept as its kind where a student may change it freely (an identifier of their own, a
number, a string) and as itself where it is the language or CUDA's (keywords, types, operators,
threadIdx, __syncthreads, cudaMemcpy...). Comments, whitespace and preprocessor lines count for
nothing. Every window of W consecutive k-gram hashes contributes its smallest, so any
run of K + W - 1 equal tokens shares at least one fingerprint, wherever it is in
the file: reordered functions keep their fingerprints.
"""
import hashlib
import multiprocessing
import os
import re

from pygments.lexers import CudaLexer
from pygments.token import Comment, Keyword, Literal, Name, Operator, Punctuation, String, Text

K = 12  # tokens in a k-gram
W = 8   # k-grams in a winnowing window: a shared run of K + W - 1 = 19 tokens is always found

# Names that are the language's or CUDA's, not the student's: kept as written.
KEPT_NAMES = {"reinterpret_cast", "static_cast", "const_cast", "dynamic_cast", "std", "size_t",
              "min", "max", "fminf", "fmaxf", "sqrtf", "expf", "fabsf", "memcpy", "memset",
              "malloc", "free", "printf", "dim3", "warpSize", "CHECK_LAUNCH", "x", "y", "z", "w"}
KEPT_PREFIX = re.compile(r"^(cuda|cublas|cu[A-Z]|CU|CUDA_|__|atomic|make_(float|int|double)\d)")


def _role(kind, cache={}):
    """How a token of this Pygments kind counts: None (not at all), "self", "name", "STR", "NUM"."""
    if kind not in cache:
        if kind in Comment or kind in Text:
            cache[kind] = None
        elif kind in Name.Builtin or kind in Keyword or kind in Operator or kind in Punctuation:
            cache[kind] = "self"
        elif kind in Name:
            cache[kind] = "name"
        elif kind in String or kind in Literal.String:
            cache[kind] = "STR"
        elif kind in Literal:
            cache[kind] = "NUM"
        else:
            cache[kind] = "self"
    return cache[kind]


def tokens(source):
    """(normalised token, line) for every token that counts, in order."""
    out, line = [], 1
    for _, kind, text in CudaLexer().get_tokens_unprocessed(source):
        start, line = line, line + text.count("\n")
        role = _role(kind)
        if role is None or not text.strip():
            continue
        if role == "self":
            out.append((text, start))
        elif role == "name":
            out.append((text if text in KEPT_NAMES or KEPT_PREFIX.match(text) else "ID", start))
        else:
            out.append((role, start))
    return out


def kgrams(toks):
    """(hash, first line, last line) of every k-gram of the tokens, in order."""
    words = [t for t, _ in toks]
    grams = []
    for i in range(len(words) - K + 1):
        digest = hashlib.blake2b("\x1f".join(words[i:i + K]).encode(), digest_size=8).digest()
        grams.append((int.from_bytes(digest, "big"), toks[i][1], toks[i + K - 1][1]))
    return grams


def winnow(grams):
    """The set of hashes winnowing selects: the smallest of every window of W k-grams."""
    if len(grams) <= W:
        return {h for h, _, _ in grams}
    chosen = set()
    for i in range(len(grams) - W + 1):
        window = [h for h, _, _ in grams[i:i + W]]
        low = min(window)
        chosen.add(low)
    return chosen


class Document:
    """One file's k-grams (for highlighting) and its winnowed fingerprints (for scoring)."""

    def __init__(self, name, source, kind="class", grams=None):
        self.name, self.source, self.kind = name, source, kind
        self.grams = kgrams(tokens(source)) if grams is None else grams
        self.all_hashes = {h for h, _, _ in self.grams}
        self.fingerprints = winnow(self.grams)

    def subtract(self, hashes):
        """Drops every fingerprint found in `hashes` (the starter's k-grams count for nothing)."""
        self.fingerprints -= hashes
        self.all_hashes -= hashes

    def lines_matching(self, hashes):
        """The lines covered by a k-gram whose hash is in `hashes`."""
        lines = set()
        for h, first, last in self.grams:
            if h in hashes:
                lines.update(range(first, last + 1))
        return lines


def _grams_of(source):
    return kgrams(tokens(source))


def documents(entries):
    """Documents of (name, source, kind) entries, lexed on every CPU where there are many."""
    entries = list(entries)
    grams = None
    if len(entries) > 16 and (os.cpu_count() or 1) > 1:
        try:
            with multiprocessing.Pool() as pool:
                grams = pool.map(_grams_of, [src for _, src, _ in entries], chunksize=8)
        except OSError:  # no processes to be had: one at a time
            grams = None
    grams = grams or [None] * len(entries)
    return [Document(name, src, kind, g) for (name, src, kind), g in zip(entries, grams)]
