#!/usr/bin/env python3
"""Hints from Nsight Compute counters: one sentence per lesson of a lab, the student's number beside
the reference's (make profileNN, labs/NN-topic/profile.sh).

    python3 tools/profile_hints.py --lab 07 --student DIR [--reference DIR]
    python3 tools/profile_hints.py --lab 07 --plan        what profile.sh should run (shell lines)
    python3 tools/profile_hints.py --lab 12 --plan --program ./sol12
                                                          ... of a lab that profiles every rung: the
                                                          rungs PROGRAM declares
    python3 tools/profile_hints.py --list                 the labs that have hints

DIR holds one file per variant, VARIANT.csv (the output of `ncu --csv --page raw --print-units base
--metrics ...`, or of --page details; ncu's ==PROF== lines and the program's own output may be mixed
in) or VARIANT.log (ncu's default text output, as labs 12 and 13 keep it). The measured copy
bandwidth is read from the program's output where it is in such a file ("measured copy N GB/s"),
or given with --copy-gbs. The hints themselves are data: HINTS below, lab -> runs (variants, size,
kernel name) -> metrics -> sentence. Each sentence gives the numbers, then the change the lesson
teaches and what it should gain, in the words of the lab's handout (handouts/NN-topic.md); a
metric's own name is never printed. Standard library only.
"""

import argparse
import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys

from grade_preview import rungs_of

# ---- metric names (Nsight Compute) ------------------------------------------------------------
GLD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
GLD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
GST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
GST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
SLD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SST_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
SLD_REQUESTS = "smsp__inst_executed_op_shared_ld.sum"
SST_REQUESTS = "smsp__inst_executed_op_shared_st.sum"
REGISTERS = "launch__registers_per_thread"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
DRAM_PEAK_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
TIME = "gpu__time_duration.sum"

# Kernels of the harness (cudalabs_*), never the lab's.
HARNESS_KERNEL = re.compile(r"^cudalabs_")  # matched against base_name()


def ratio(num, den):
    """The value num / den of one kernel's metrics, or None when either is missing or den is 0."""
    def value(m):
        if m.get(num) is None or not m.get(den):
            return None
        return m[num] / m[den]
    value.metrics = (num, den)
    return value


def worst_ratio(*pairs):
    """The largest of several ratios (shared loads or stores: whichever side conflicts)."""
    def value(m):
        got = [ratio(n, d)(m) for n, d in pairs]
        got = [g for g in got if g is not None]
        return max(got) if got else None
    value.metrics = tuple(x for p in pairs for x in p)
    return value


def dram_gbs(m):
    """Bytes read and written in DRAM per nanosecond of the kernel: GB/s."""
    if m.get(DRAM_READ) is None or not m.get(TIME):
        return None
    return (m[DRAM_READ] + (m.get(DRAM_WRITE) or 0.0)) / m[TIME]


dram_gbs.metrics = (DRAM_READ, DRAM_WRITE, TIME, DRAM_PEAK_PCT)


def registers_occupancy(m):
    if m.get(REGISTERS) is None and m.get(OCCUPANCY) is None:
        return None
    return (m.get(REGISTERS), m.get(OCCUPANCY))


registers_occupancy.metrics = (REGISTERS, OCCUPANCY)


def fmt_num(x, digits=1):
    if x is None:
        return "?"
    return f"{x:,.{digits}f}"


# ---- how a value is said ----------------------------------------------------------------------
# Each kind: phrase(value, side) -> the words after "your X kernel" / "the reference's"; side holds
# the run's copy bandwidth and its other variants' metrics. Its `words` name what it measures, in
# the handouts' terms, where a counter is missing: students never see a metric's own name.
def say_sectors(what):
    phrase = lambda v, side: f"{what} {fmt_num(v)} sectors per request"
    phrase.words = "the sectors per request"
    phrase.fewer = "fewer sectors per request"
    return phrase


def say_wavefronts(v, side):
    return f"needs {fmt_num(v, 2)} shared-memory wavefronts per request"


say_wavefronts.words = "the shared-memory wavefronts per request"
say_wavefronts.fewer = "fewer shared-memory wavefronts per request"


def say_bandwidth(v, side):
    text = f"moves {v:,.0f} GB/s"
    if side.get("copy_gbs"):
        text += f", {v / side['copy_gbs']:.2f} of the measured copy of {side['copy_gbs']:,.0f} GB/s"
    pct = side.get("metrics", {}).get(DRAM_PEAK_PCT)
    if pct is not None:
        text += f" and {pct:.0f}% of DRAM peak"
    return text


say_bandwidth.words = "the bytes moved in DRAM and the kernel's time"
say_bandwidth.fewer = "the bandwidth"


def say_registers(v, side):
    regs, occ = v
    parts = []
    if regs is not None:
        parts.append(f"uses {regs:.0f} registers per thread")
    if occ is not None:
        parts.append(f"keeps {occ:.0f}% of the SM's warp slots busy (achieved occupancy)")
    return " and ".join(parts)


say_registers.words = "the registers per thread and the achieved occupancy"


def say_slowdown(over):
    def phrase(v, side):
        return f"takes {v:.1f}x the time of its {over} kernel"
    phrase.words = "the kernel's time"
    phrase.fewer = "less time"
    return phrase


def slowdown(variant, over):
    """Time of variant / time of over, within one side (the student's or the reference's)."""
    def value(m, side):
        o = side["runs"].get(over, {})
        if m.get(TIME) is None or not o.get(TIME):
            return None
        return m[TIME] / o[TIME]
    value.metrics = (TIME,)
    value.cross = True
    value.needs = over
    return value


# Each hint says what to change and what that should gain (the lesson's fix, in the handout's
# words): `change`, then `gain`, a phrase after "expect". Where the hint has a `goal` (the value
# the lesson aims for, lower is better), the gain is the measured value over the goal instead.
def coalescing(variant, what, lesson, change, gain, goal=None, store=False):
    return dict(variant=variant, title="Coalescing",
                value=ratio(GST_SECTORS, GST_REQUESTS) if store else ratio(GLD_SECTORS, GLD_REQUESTS),
                phrase=say_sectors(what), lesson=lesson, change=change, gain=gain, goal=goal)


def bandwidth(variant, lesson, change, target, title="Bandwidth", gain=None):
    """target: the lab's fraction of the measured copy bandwidth, where it has one; the gain is the
    way to it."""
    return dict(variant=variant, title=title, value=dram_gbs, phrase=say_bandwidth, lesson=lesson,
                change=change, gain=gain or f"{target:.2f} of the copy, the lab's target",
                copy_target=target)


def conflicts(variant, lesson, change, gain, goal=None, loads_only=False):
    """Wavefronts per shared-memory request: of the loads, or of loads and stores, whichever is
    worse (a tile may be transposed on its way in or on its way out)."""
    pairs = [(SLD_WAVEFRONTS, SLD_REQUESTS)] + ([] if loads_only else [(SST_WAVEFRONTS, SST_REQUESTS)])
    return dict(variant=variant, title="Bank conflicts", value=worst_ratio(*pairs),
                phrase=say_wavefronts, lesson=lesson, change=change, gain=gain, goal=goal)


def occupancy(variant, lesson, change, gain):
    return dict(variant=variant, title="Registers and occupancy", value=registers_occupancy,
                phrase=say_registers, lesson=lesson, change=change, gain=gain)


# ---- the hints, lab by lab --------------------------------------------------------------------
# size: the --size every variant runs at; variants: the --variant runs; kernel: an ncu kernel-name
# filter (regex) where a variant launches more than its product; launch_skip: launches skipped.
# Labs 12 and 13 profile every rung: their variants are RUNGS, the variants the program declares
# (--describe) without the yardsticks, in order, so that a new rung is profiled without an edit
# here; a rung no hint speaks of has its row in profile.sh's table and no sentence.
RUNGS = "RUNGS"
TO_SOA = "store the points as a structure of arrays (the soa variant)"
COPY_LESSON = "a kernel that reads and writes each byte once can go no faster than the measured copy bandwidth"
HINTS = {
    "01": dict(topic="vector add", size="16777216", variants=["simple", "fast"], hints=[
        bandwidth("simple", "c = a + b reads 8 bytes and writes 4 per element: " + COPY_LESSON,
                  "write the fast variant, with float4 loads and stores in a grid-stride loop", 0.90),
        bandwidth("fast", "16-byte loads and a grid sized to the GPU keep more bytes in flight per thread",
                  "load and store float4 in a grid-stride loop over a few blocks per SM, the last n % 4 "
                  "elements one by one", 0.90),
    ]),
    "02": dict(topic="pitched 2D", size="4099x4097", variants=["pitched", "packed"], hints=[
        coalescing("pitched", "reads", "with cudaMallocPitch every row starts on an aligned line, so a "
                   "warp's loads along a row are coalesced and no row costs an extra sector",
                   "keep x along a row and every access through the pitch", "no extra sector on any row"),
        coalescing("packed", "reads", "an odd width leaves unpadded rows misaligned, so most warps' 32 "
                   "floats straddle 5 sectors instead of 4",
                   "pad every row to a pitch with cudaMallocPitch (the pitched variant)",
                   "about 1.25x fewer sectors per request, and rows aligned for float4 loads"),
        bandwidth("pitched", "two matrices read and one written, each byte once: " + COPY_LESSON,
                  "let each thread handle four columns with one float4 load per matrix (every pitched "
                  "row starts 16-byte aligned)", 0.85),
    ]),
    "03": dict(topic="pitched 3D", size="256x512x512", variants=["scale", "stencil"], hints=[
        bandwidth("scale", "out = 0.75 in reads and writes each element once: " + COPY_LESSON,
                  "let each thread move four floats with one float4 load and store (cudaMalloc3D rows "
                  "start 16-byte aligned)", 0.80),
        bandwidth("stencil", "the 7-point stencil reads each element up to 7 times, but from cache: "
                  "DRAM should still see each byte about once",
                  "keep x along a row, so that a warp's neighbours come from the same cached rows",
                  None, gain="DRAM traffic of about one read and one write per element"),
    ]),
    "04": dict(topic="constant memory", size="16777216x8", variants=["global", "constant", "divergent"], hints=[
        bandwidth("constant", "coefficients read from __constant__ at one address per warp are a "
                  "broadcast and cost no memory traffic",
                  "keep every thread of a warp reading the same coefficient from constant memory, "
                  "four points per thread", 0.80),
        dict(variant="divergent", title="Broadcast", value=slowdown("divergent", "constant"),
             phrase=say_slowdown("constant"),
             lesson="32 lanes reading 32 different __constant__ addresses are served one address "
                    "after another, where one address is one broadcast",
             change="make every thread of a warp read the same address (the constant variant)",
             gain="the coefficient reads about 32x faster", goal=1.0),
    ]),
    "07": dict(topic="coalescing, AoS and SoA", size="16777216",
               variants=["aos", "aos16", "soa", "strided", "offset"], hints=[
        coalescing("soa", "reads", "SoA, a structure of arrays: 32 consecutive floats of one array fill 4 "
                   "sectors of 32 bytes, every byte used",
                   "read x[i], y[i] and z[i] from three arrays, so that each load is coalesced",
                   "4 sectors per request", goal=4),
        coalescing("aos", "reads", "AoS, an array of structures: in[i].x of 32 lanes is 12 bytes apart, so each "
                   "load spans 12 sectors and a third of each is used",
                   TO_SOA,
                   "about 3x fewer sectors per request", goal=4),
        coalescing("aos16", "reads", "the 16-byte vec3a is one float4 load of 16 sectors, of which 12 bytes "
                   "in 16 are used",
                   TO_SOA,
                   "a quarter fewer bytes moved, and SoA at least 1.10x faster than aos16, the lab's target"),
        coalescing("strided", "reads", "in[8 i], a stride of 8, puts each lane's float in its own 32-byte sector: 32 "
                   "sectors for 128 useful bytes",
                   "give consecutive threads consecutive addresses (a stride of 1, the coalesced layout)",
                   "about 8x fewer sectors per request", goal=4),
        coalescing("offset", "reads", "in[i + 1], a misaligned offset, starts 4 bytes past a sector, so 32 "
                   "floats touch 5 sectors, not 4",
                   "start each warp's reads on a 32-byte sector (no misaligned offset)",
                   "about 1.25x fewer sectors per request", goal=4),
        bandwidth("soa", "SoA moves only the bytes it uses: " + COPY_LESSON,
                  "keep the structure of arrays and one coalesced load per array", 0.85),
    ]),
    "08": dict(topic="transpose", size="4096", variants=["naive", "tiled", "padded", "fast"], hints=[
        coalescing("naive", "writes", "writing out[col][row] puts each lane's float in another row, 32 "
                   "sectors per request where a coalesced write needs 4",
                   "stage a 32 x 32 tile in shared memory and write it out along rows of the output "
                   "(the tiled variant)", "about 8x fewer sectors per request", goal=4, store=True),
        conflicts("tiled", "reading a column of a float tile[32][32] puts all 32 lanes in one bank: "
                  "a 32-way bank conflict",
                  "declare the tile float tile[32][33] (the padded variant)",
                  "about 32x fewer wavefronts per request", goal=1),
        conflicts("padded", "a 32 x 33 tile shifts each row by one bank, so a column falls in 32 "
                  "different banks: 1 wavefront per request",
                  "launch the tiled kernel with Pad = 1, the [32][33] tile, and index it with its padded row length",
                  "1 wavefront per request", goal=1),
        bandwidth("fast", "a transpose reads and writes each element once: " + COPY_LESSON,
                  "give each thread more elements (a 64 x 64 tile, 16 per thread) with float4 loads "
                  "and stores where the shape allows, keeping the padding", 0.90),
    ]),
    "10": dict(topic="shared-memory tiles", size="2048",
               variants=["tiled16", "tiled32", "conflict", "padded", "conflict_double", "padded_double"], hints=[
        occupancy("tiled16", "each SM holds at most 64 warps; registers and shared memory per block "
                  "decide how many fit",
                  "use 32 x 32 tiles (tiled32), which read each element from global memory N / 32 times, not N / 16",
                  "half the global loads, as long as enough warps still fit"),
        occupancy("tiled32", "1024-thread blocks: one block's registers must fit the SM's 64K",
                  "keep the registers per thread at 64 or fewer, so that a 1024-thread block fits",
                  "a full SM of warps to hide the shared-memory loads"),
        conflicts("tiled32", "as[ty][tx] read along a row is conflict-free: about 1 wavefront per request",
                  "read the tiles along their rows, as[ty][p] and bs[p][tx]",
                  "no bank conflicts", goal=1),
        conflicts("conflict", "tiles stored transposed, as[tx][ty] in [32][32], put a warp's 32 "
                  "accesses in one bank: a 32-way bank conflict",
                  "pad the tile to [32][33] (the padded variant)",
                  "about 32x fewer wavefronts per request", goal=1),
        conflicts("padded", "[32][33] shifts each row by one bank: about 1 wavefront per request",
                  "launch the conflict kernel with Pad = 1, [32][33], and index it with its padded row length",
                  "no bank conflicts", goal=1),
        conflicts("conflict_double", "doubles take two banks each, so [32][32] doubles have bank conflicts too",
                  "pad the double tile to [32][33] (the padded_double variant)",
                  "2 wavefronts per request, the least a double warp access needs", goal=2),
        conflicts("padded_double", "padded doubles: a double warp access needs 2 wavefronts at best, "
                  "no bank conflicts", "launch the conflict kernel in double with Pad = 1, [32][33]",
                  "2 wavefronts per request", goal=2),
    ]),
    "11": dict(topic="C = A A^T", size="2048", variants=["unpadded", "padded", "unpadded16", "padded16"], hints=[
        conflicts("unpadded", "reading the A^T tile by column in a 32 x 32 tile is a 32-way conflict",
                  "pad the tile to [32][32 + 1] (the padded variant)",
                  "about 32x fewer wavefronts per request", goal=1),
        conflicts("padded", "the 32 x 33 tile puts consecutive rows one bank apart: no conflict",
                  "launch it with one padding word per tile row, [32][33]", "1 wavefront per request", goal=1),
        conflicts("unpadded16", "16 x 16 tiles read by column: a warp spans two tile rows, an 8-way conflict",
                  "pad the tile to [16][16 + 1] (the padded16 variant)",
                  "about 8x fewer wavefronts per request", goal=1),
        conflicts("padded16", "the 16 x 17 tile is conflict-free",
                  "launch it with one padding word per tile row, [16][17]", "1 wavefront per request", goal=1),
        occupancy("padded", "registers per thread and the tiles' shared memory decide how many warps "
                  "an SM keeps busy, and the padding adds one word per tile row",
                  "keep the padded tiles and the registers per thread small enough for several blocks per SM",
                  "enough warps to hide the shared-memory loads"),
    ]),
    "12": dict(topic="fast matrix product", size="4096",
               variants=RUNGS, kernel="^sgemm_", launch_skip=1, hints=[
        occupancy("tiled", "one output per thread: few registers, many warps, but two shared loads per "
                  "multiply-add", "climb to 1D thread coarsening, 8 outputs per thread",
                  "each value of B loaded from shared memory to feed 8 multiply-adds"),
        occupancy("coarse1d", "8 outputs per thread hold 8 accumulators in registers",
                  "climb to 2D register tiles, an 8 x 8 block of C per thread",
                  "16 shared loads for 64 multiply-adds"),
        occupancy("coarse2d", "an 8 x 8 register tile: 64 accumulators, so more registers and fewer warps, "
                  "but each shared load feeds 8 FMAs",
                  "keep at most 128 registers per thread, so that two blocks share an SM",
                  "twice the warps of one block per SM"),
        occupancy("vectorized", "float4 loads need 4 registers each",
                  "use vectorised loads, float4 from global and from shared memory with the A tile stored transposed",
                  "4 shared loads instead of 16 per step of k"),
        occupancy("warptile", "warp tiles keep the register tile and double-buffer the shared tiles",
                  "use warp tiling, a 64 x 32 sub-tile per warp and two buffers of each tile",
                  "the next slice's global loads hidden behind this slice's multiply-adds"),
        occupancy("fast", "256 x 128 tiles and a 3-stage pipeline trade occupancy for reuse",
                  "use pipelining, cp.async copies straight into shared memory with three stages in flight",
                  "the FMA pipe busy about 80% of the time at 12.5% occupancy, as in the ladder table of the handout"),
        conflicts("vectorized", "a float4 shared load of 32 different addresses needs 4 wavefronts; "
                  "more means a bank conflict",
                  "pad each row of the transposed A tile by 4 floats, which keeps rows 16-byte aligned "
                  "and spreads the stores over the banks", "4 wavefronts per float4 load", goal=4, loads_only=True),
        conflicts("warptile", "warp tiling keeps shared loads conflict-free: 4 wavefronts for a float4 "
                  "load, 1 for a broadcast",
                  "let the lanes of a warp read float4 pieces of shared memory that lie side by side",
                  "fewer wavefronts and more broadcasts", goal=4, loads_only=True),
    ]),
    "13": dict(topic="matrix-vector products", size="4096x4096",
               variants=RUNGS, kernel="^(matvec|vecmat)_", launch_skip=1, hints=[
        coalescing("matvec_naive", "reads", "one thread per row: the 32 lanes read 32 different rows, "
                   "32 sectors per load of A for 128 useful bytes, and 1 for x's broadcast: 16.5 on average",
                   "give one warp per row (matvec_warp), so that the lanes read consecutive elements of the row",
                   "coalesced reads of A, about 8x fewer sectors for the same bytes"),
        coalescing("vecmat_naive", "reads", "one thread per column: the 32 lanes read 32 consecutive floats "
                   "of a row, 4 sectors per load of A, and 1 for x's broadcast: 2.5 on average",
                   "give each block a strip of columns, x staged through shared memory and the rows split "
                   "among blocks (vecmat_shared)", "reads as coalesced, and enough blocks to fill the GPU"),
        coalescing("matvec_warp", "reads", "one warp per row with float4 loads: 512 consecutive bytes, "
                   "16 sectors per request, every byte used",
                   "keep one warp per row and several float4 loads in flight per lane (a hand-unrolled loop)",
                   "coalesced reads at up to 0.85 of the copy bandwidth"),
        bandwidth("matvec_warp", "y = A x reads A once: the measured copy bandwidth is its limit",
                  "several float4 loads in flight per lane, then a shuffle reduction", 0.85),
        bandwidth("vecmat_shared", "x^T A reads A once too: the measured copy bandwidth is its limit",
                  "split the rows among about 4 blocks per SM and combine their partial sums (a thread "
                  "block cluster on H100 and H200)", 0.85),
    ]),
}


def profiled(lab, program=None):
    """The variants a lab's recipe profiles: its list, or for RUNGS the rungs `program` declares
    (without one, or where it does not describe itself, the rungs its hints speak of and compare
    with, in the hints' order)."""
    variants = HINTS[lab]["variants"]
    if variants != RUNGS:
        return variants
    if program:
        p = subprocess.run([program, "--describe"], capture_output=True, text=True)
        try:
            return rungs_of(json.loads(p.stdout))
        except (ValueError, KeyError, TypeError):
            pass  # not a lab program that describes itself (the tests' stand-ins): the hints' rungs
    spoken = [v for h in HINTS[lab]["hints"] for v in (h["variant"], getattr(h["value"], "needs", None)) if v]
    return list(dict.fromkeys(spoken))


def metrics_of(lab):
    names = []
    for h in HINTS[lab]["hints"]:
        for n in h["value"].metrics:
            if n not in names:
                names.append(n)
    return names


# ---- reading ncu's output ---------------------------------------------------------------------
SCALE = {
    "byte": 1, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
    "kibyte": 1024, "mibyte": 1024 ** 2, "gibyte": 1024 ** 3,
    "nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9,
}


def parse_number(text, unit=""):
    """ncu's value text as a float in base units (bytes, nanoseconds), or None ("n/a", "")."""
    t = text.strip().replace("\u202f", "").replace(" ", "")
    if not t or t.lower() in ("n/a", "nan", "-"):
        return None
    if "," in t and "." in t:
        # Whichever comes last is the decimal mark (1,234.5 or 1.234,5).
        if t.rfind(",") > t.rfind("."):
            t = t.replace(".", "").replace(",", ".")
        else:
            t = t.replace(",", "")
    elif "," in t:
        t = t.replace(",", "") if re.fullmatch(r"-?\d{1,3}(,\d{3})+", t) else t.replace(",", ".")
    try:
        value = float(t)
    except ValueError:
        return None
    return value * SCALE.get(unit.strip().lower(), 1)


def parse_csv(text):
    """Kernels of ncu --csv output (--page raw: one row per kernel, a column per metric, a row of
    units; --page details: a row per metric). Returns [(kernel name, {metric: value})]."""
    kernels = {}
    order = []
    header = None
    units = None
    for line in text.splitlines():
        if line.startswith('"ID"'):
            header = next(csv.reader([line]))
            units = None
            continue
        if header is None or not line.startswith('"'):
            continue
        try:
            row = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            continue
        if len(row) != len(header):
            continue
        cell = dict(zip(header, row))
        if "Metric Name" in header:
            key = (cell.get("ID", ""), cell.get("Kernel Name", ""))
            if not key[0]:
                continue
            if key not in kernels:
                kernels[key] = {}
                order.append(key)
            v = parse_number(cell.get("Metric Value", ""), cell.get("Metric Unit", ""))
            if v is not None:
                kernels[key][cell["Metric Name"]] = v
            continue
        if not cell.get("ID"):
            units = cell  # the units row under the raw page's header
            continue
        key = (cell["ID"] + "#" + str(len(order)), cell.get("Kernel Name", ""))
        metrics = {}
        for name in header:
            if "__" not in name:
                continue
            v = parse_number(cell[name], (units or {}).get(name, ""))
            if v is not None:
                metrics[name] = v
        kernels[key] = metrics
        order.append(key)
    return [(k[1], kernels[k]) for k in order]


KERNEL_LINE = re.compile(r"^  (\S.*?) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), (Context|Device)")
METRIC_LINE = re.compile(r"^\s+([a-z0-9]+__[A-Za-z0-9_.]+)\s+(?:(\S+)\s+)?(\S+)\s*$")


def parse_text(text):
    """Kernels of ncu's default text output (--print-units base): a kernel line, then metric lines
    "name  unit  value"."""
    out = []
    for line in text.splitlines():
        k = KERNEL_LINE.match(line)
        if k:
            out.append((k.group(1), {}))
            continue
        m = METRIC_LINE.match(line)
        if m and out:
            v = parse_number(m.group(3), m.group(2) or "")
            if v is not None:
                out[-1][1][m.group(1)] = v
    return out


def parse_file(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # Lines end in \n, or in \r where a program's progress line was left open: splitlines() cuts both.
    is_csv = any(line.startswith('"ID"') for line in text.splitlines())
    kernels = parse_csv(text) if is_csv else parse_text(text)
    copy = re.search(r"measured copy ([\d,.]+) GB/s", text)
    return kernels, (parse_number(copy.group(1)) if copy else None), text


def base_name(printed):
    """A kernel's name as ncu prints it, without what comes before the function's own name:
    "void " (templates) and namespaces, the anonymous one included: ncu's text output prints it
    "<unnamed>::", its CSV "(anonymous namespace)::". So "void <unnamed>::sgemm_fast<128>(const
    float *)" reads "sgemm_fast<128>(...)"."""
    name = re.sub(r"^void\s+", "", printed)
    return re.sub(r"^(?:\(anonymous namespace\)::|<unnamed>::|[A-Za-z_]\w*::)+", "", name)


def load_side(folder, lab):
    """One program's runs: {variant: {"metrics", "kernel", "status"}} and its copy bandwidth."""
    spec = HINTS[lab]
    want = re.compile(spec.get("kernel") or ".")
    side = {"runs": {}, "copy_gbs": None, "status": {}, "kernels": {}}
    for variant in profiled(lab):
        path = None
        for ext in (".csv", ".log"):
            if os.path.isfile(os.path.join(folder, variant + ext)):
                path = os.path.join(folder, variant + ext)
                break
        if path is None:
            side["status"][variant] = "not profiled"
            continue
        kernels, copy, text = parse_file(path)
        if copy and not side["copy_gbs"]:
            side["copy_gbs"] = copy
        chosen = [(n, m) for n, m in kernels
                  if want.search(base_name(n)) and not HARNESS_KERNEL.search(base_name(n))]
        if not chosen:
            side["status"][variant] = "no kernel"
            continue
        side["runs"][variant] = chosen[0][1]
        side["kernels"][variant] = chosen[0][0]
    return side


# ---- the sentences ----------------------------------------------------------------------------
def evaluate(h, side):
    m = side["runs"].get(h["variant"])
    if m is None:
        return None, side["status"].get(h["variant"], "no kernel")
    f = h["value"]
    if getattr(f, "needs", None) and f.needs not in side["runs"]:
        return None, "no partner"
    v = f(m, side) if getattr(f, "cross", False) else f(m)
    if v is None:
        return None, "no counter"
    return v, None


WHY = {
    "not profiled": "was not profiled",
    "no kernel": "did not run (ncu saw no kernel of this variant: is its TODO(lab{lab}) written yet?)",
    "no counter": "gave no value for {words} (this GPU or ncu lacks the counter)",
    "no partner": "cannot be compared: its {partner} kernel did not run",
}

# A measured value within this factor of the hint's goal is on target.
ON_TARGET = 1.15


def gain_factor(h, v, side):
    """How many times better the lesson's change should make the value v (lower is better but for
    bandwidth), or None where the hint has no goal to measure against."""
    if v is None:
        return None
    if h.get("goal"):
        return v / h["goal"]
    if h.get("copy_target") and side.get("copy_gbs") and v > 0:
        return h["copy_target"] * side["copy_gbs"] / v
    return None


def advice(h, v, side):
    """What to change and what it should gain, said after the numbers: the gain measured against
    the hint's goal where it has one, else the lesson's own."""
    k = gain_factor(h, v, side)
    if k is not None and k < ON_TARGET:
        return f"on target, nothing to change ({h['lesson']})"
    gain = h["gain"]
    if k is not None:
        # "8x", not "8.0x", where one decimal adds nothing.
        gain = f"about {k:.0f}x" if k >= 10 or abs(k - round(k)) < 0.05 else f"about {k:.1f}x"
        gain += f" {h['phrase'].fewer}"
        if h.get("copy_target"):
            gain += f", up to {h['gain']}"
    return f"{h['change']}; expect {gain} ({h['lesson']})"


def why_not(h, why, lab):
    return WHY[why].format(lab=lab, words=h["phrase"].words, partner=getattr(h["value"], "needs", ""))


def sentence(lab, h, student, reference, who):
    v, why = evaluate(h, student)
    title, variant = h["title"], h["variant"]
    side_s = dict(student, metrics=student["runs"].get(variant, {}))
    if v is not None:
        text = f"{title}: {who} {variant} kernel {h['phrase'](v, side_s)}"
    else:
        text = f"{title}: {who} {variant} kernel " + why_not(h, why, lab)
    if reference is not None:
        r, rwhy = evaluate(h, reference)
        side_r = dict(reference, metrics=reference["runs"].get(variant, {}))
        if r is not None:
            text += f", where the reference's {h['phrase'](r, side_r)}"
        else:
            text += "; the reference's " + why_not(h, rwhy, lab)
    return text + f": {advice(h, v, side_s)}."


def plan(lab, program=None):
    spec = HINTS[lab]
    lines = [f"size={shlex.quote(spec['size'])}",
             f"variants={shlex.quote(' '.join(profiled(lab, program)))}",
             f"metrics={shlex.quote(','.join(metrics_of(lab)))}",
             f"kernel={shlex.quote(spec.get('kernel', ''))}",
             f"launch_skip={spec.get('launch_skip', 0)}"]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Hints from Nsight Compute counters: one sentence per lesson of a lab, the "
                    "student's numbers beside the reference's (make profileNN).",
        epilog="DIR holds VARIANT.csv (ncu --csv --page raw --print-units base, or --page details) "
               "or VARIANT.log (ncu's text output) for each variant of the lab.")
    ap.add_argument("--lab", help="the lab, NN")
    ap.add_argument("--student", metavar="DIR", help="the profiled program's runs")
    ap.add_argument("--reference", metavar="DIR", help="the reference solution's runs, to compare with")
    ap.add_argument("--who", default="your",
                    help="how the profiled program is named in the sentences (default: your)")
    ap.add_argument("--copy-gbs", type=float, help="the measured copy bandwidth, GB/s (else read from DIR)")
    ap.add_argument("--plan", action="store_true",
                    help="print what profile.sh runs: size, variants, metrics, kernel filter (shell lines)")
    ap.add_argument("--program", help="with --plan: the program whose declared rungs a lab that profiles "
                                      "every rung (12, 13) runs")
    ap.add_argument("--list", action="store_true", help="the labs that have hints")
    a = ap.parse_args(argv)
    if a.list:
        for lab in sorted(HINTS):
            print(f"{lab}  {HINTS[lab]['topic']}: {len(HINTS[lab]['hints'])} hints")
        return 0
    if not a.lab:
        ap.error("--lab NN is needed")
    lab = a.lab.zfill(2)
    if lab not in HINTS:
        print(f"profile_hints: lab {lab} has no counter hints (labs with hints: {' '.join(sorted(HINTS))})",
              file=sys.stderr)
        return 2
    if a.plan:
        print(plan(lab, a.program))
        return 0
    if not a.student or not os.path.isdir(a.student):
        ap.error("--student DIR (a folder of VARIANT.csv files) is needed")
    student = load_side(a.student, lab)
    if a.copy_gbs:
        student["copy_gbs"] = a.copy_gbs
    reference = None
    if a.reference:
        if not os.path.isdir(a.reference):
            ap.error(f"--reference {a.reference}: no such folder")
        reference = load_side(a.reference, lab)
        if a.copy_gbs and not reference["copy_gbs"]:
            reference["copy_gbs"] = a.copy_gbs
    if not student["runs"] and (reference is None or not reference["runs"]):
        print(f"Hints: no kernel of lab {lab} was profiled, so there is nothing to compare.")
        return 1
    for h in HINTS[lab]["hints"]:
        # A variant left out of both runs (VARIANTS=...) has nothing to say.
        if h["variant"] not in student["runs"] and student["status"].get(h["variant"]) == "not profiled" and (
                reference is None or (h["variant"] not in reference["runs"]
                                      and reference["status"].get(h["variant"]) == "not profiled")):
            continue
        print(sentence(lab, h, student, reference, a.who))
    return 0


if __name__ == "__main__":
    sys.exit(main())
