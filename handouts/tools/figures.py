#!/usr/bin/env python3
"""Draws the handouts' explanatory figures as SVG into handouts/figures/ (run by hand after a
change; the SVG files are committed). Standard library only: python3 handouts/tools/figures.py [--out DIR]
(--out: write the figures elsewhere, as the handouts' tests do to compare them with the committed
ones). Figures that show measurements read them from bench/results/ (lab 06's timeline)."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
OUT = os.path.join(HERE, "..", "figures")
FONT = 'font-family="DejaVu Sans" font-size="12"'
BLUE, LIGHT, GREY, RED, GREEN, ORANGE = "#2f6db5", "#cfe0f5", "#dddddd", "#c0392b", "#2e8b57", "#e6a23c"


def svg(w, h, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" {FONT}>\n'
            f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def rect(x, y, w, h, fill, stroke="#555", extra=""):
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}" {extra}/>'


def text(x, y, s, anchor="start", extra=""):
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<text x="{x}" y="{y}" text-anchor="{anchor}" {extra}>{s}</text>'


def line(x1, y1, x2, y2, color="#555", width=1, extra=""):
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}" {extra}/>'


def bold(x, y, s, anchor="start"):
    return text(x, y, s, anchor, 'font-weight="bold"')


def small(x, y, s, anchor="start", color=None, size=10):
    return text(x, y, s, anchor, f'font-size="{size}"' + (f' fill="{color}"' if color else ""))


def wrapped(b, x, y, s, chars, step=15, extra='font-size="11"'):
    """s from (x, y) in lines of at most `chars` characters, broken between words; returns the y
    of the line after the last."""
    lines, cur = [], ""
    for word in s.split(" "):
        if cur and len(cur) + 1 + len(word) > chars:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    for i, l in enumerate(lines + [cur]):
        b.append(text(x, y + i * step, l, extra=extra))
    return y + (len(lines) + 1) * step


def cells(b, x, y, n, cw, rh, fill_of, stroke="#555"):
    """A row of n cells; fill_of(i) gives each cell's fill."""
    for i in range(n):
        b.append(rect(x + i * cw, y, cw, rh, fill_of(i), stroke))


def matrix(b, x, y, rows, cols, s, label=None):
    """An empty rows x cols matrix of s-pixel cells with faint grid lines and a label below."""
    b.append(rect(x, y, cols * s, rows * s, "white"))
    for i in range(1, cols):
        b.append(line(x + i * s, y, x + i * s, y + rows * s, "#eee"))
    for i in range(1, rows):
        b.append(line(x, y + i * s, x + cols * s, y + i * s, "#eee"))
    if label:
        b.append(bold(x + cols * s / 2, y + rows * s + 16, label, "middle"))


def pitch():
    b = []
    x0, y0, cw, rh, cols, pad, rows = 60, 40, 25, 26, 13, 3, 5  # 720 units: 12 prints at 8.2 pt
    for r in range(rows):
        for c in range(cols + pad):
            fill = LIGHT if c < cols else GREY
            b.append(rect(x0 + c * cw, y0 + r * rh, cw, rh, fill))
        b.append(text(x0 - 8, y0 + r * rh + 17, f"row {r}", "end"))
    w = cols * cw
    b.append(f'<line x1="{x0}" y1="{y0 - 12}" x2="{x0 + w}" y2="{y0 - 12}" stroke="{BLUE}" stroke-width="2"/>')
    b.append(text(x0 + w / 2, y0 - 18, "width × sizeof(T) bytes: the data", "middle", f'fill="{BLUE}"'))
    pw = (cols + pad) * cw
    yb = y0 + rows * rh + 16
    b.append(f'<line x1="{x0}" y1="{yb}" x2="{x0 + pw}" y2="{yb}" stroke="{RED}" stroke-width="2"/>')
    b.append(text(x0 + pw / 2, yb + 16, "pitch bytes: one row as allocated (a multiple of the alignment)", "middle", f'fill="{RED}"'))
    b.append(text(x0 + w + pad * cw / 2, y0 + rows * rh / 2 + 4, "padding", "middle", 'font-style="italic"'))
    b.append(rect(x0 + 5 * cw, y0 + 3 * rh, cw, rh, ORANGE))
    b.append(text(x0 + pw + 14, y0 + 3 * rh + 17,
                  "(T*)((char*)base + 3 * pitch) + 5"))
    return svg(x0 + pw + 260, yb + 30, b)


def tiles():
    b = []
    s, n, t = 16, 8, 2  # cell size, matrix cells, tile cells
    ax, ay = 40, 190      # A
    bx, by = 230, 20      # B
    cx, cy = 230, 190     # C
    def grid(x, y, label):
        b.append(rect(x, y, n * s, n * s, "white"))
        for i in range(1, n):
            b.append(f'<line x1="{x + i * s}" y1="{y}" x2="{x + i * s}" y2="{y + n * s}" stroke="#eee"/>')
            b.append(f'<line x1="{x}" y1="{y + i * s}" x2="{x + n * s}" y2="{y + i * s}" stroke="#eee"/>')
        b.append(text(x + n * s / 2, y + n * s + 18, label, "middle", 'font-weight="bold"'))
    grid(ax, ay, "A (M × K)")
    grid(bx, by, "B (K × N)")
    grid(cx, cy, "C = A·B (M × N)")
    ti, tj = 2, 3  # the tile of C
    b.append(rect(ax, ay + ti * t * s, n * s, t * s, LIGHT, BLUE))
    b.append(rect(bx + tj * t * s, by, t * s, n * s, LIGHT, BLUE))
    for k in range(n // t):
        b.append(rect(ax + k * t * s, ay + ti * t * s, t * s, t * s, "none", "#8aa", 'stroke-dasharray="3,2"'))
        b.append(rect(bx + tj * t * s, by + k * t * s, t * s, t * s, "none", "#8aa", 'stroke-dasharray="3,2"'))
    b.append(rect(ax + 1 * t * s, ay + ti * t * s, t * s, t * s, ORANGE, RED))
    b.append(rect(bx + tj * t * s, by + 1 * t * s, t * s, t * s, ORANGE, RED))
    b.append(rect(cx + tj * t * s, cy + ti * t * s, t * s, t * s, BLUE, BLUE))
    b.append(text(390, 60, "One block computes one tile of C.", extra=""))
    b.append(text(390, 80, "Step k: the block loads tile k of its row strip"))
    b.append(text(390, 98, "of A and tile k of its column strip of B into"))
    b.append(text(390, 116, "shared memory, __syncthreads(), multiplies the"))
    b.append(text(390, 134, "two tiles, __syncthreads(), moves on to k + 1."))
    b.append(text(390, 160, "Each element of A and B is read from global"))
    b.append(text(390, 178, "memory N / TILE times instead of N times."))
    b.append(text(390, 210, "orange: the tiles of step k = 1", extra=f'fill="{RED}"'))
    return svg(700, 350, b)


def bank_label(x, y, bank, marked):
    """The bank of one word, written in its cell (white on the marked column's colour)."""
    return text(x, y, str(bank), "middle", 'class="bank" font-size="9"' + (' fill="white"' if marked else ""))


def banks():
    """Labs 08 and 11: the bank of every word of a 32 x 32 tile's rows and of a 32 x 33 one's. For
    print: 535 units wide at the text's width, its 9-unit bank numbers print at 8.3 pt."""
    b = []
    x0, y0, cw, rh = 36, 56, 15, 15
    cols, rows = 32, 6
    b.append(text(8, 18, "float tile[32][32]: each cell shows its bank (word index mod 32)",
                  extra='font-weight="bold" font-size="11"'))
    b.append(text(8, 34, "column 0 (tile[r][0]) is word 32·r: all in bank 0 → 32-way conflict",
                  extra=f'font-size="11" fill="{RED}"'))
    for c in range(cols):
        b.append(text(x0 + c * cw + cw / 2, y0 - 5, str(c), "middle", 'font-size="9"'))
    for r in range(rows):
        b.append(text(x0 - 4, y0 + r * rh + 11, f"row {r}", "end", 'font-size="9"'))
        for c in range(cols):
            b.append(rect(x0 + c * cw, y0 + r * rh, cw, rh, RED if c == 0 else LIGHT))
            b.append(bank_label(x0 + c * cw + cw / 2, y0 + r * rh + 11, (r * 32 + c) % 32, c == 0))
    y1 = y0 + rows * rh + 44
    b.append(text(8, y1 - 26, "float tile[32][33]: one padding word per row (grey) shifts each row by one bank",
                  extra='font-weight="bold" font-size="11"'))
    b.append(text(8, y1 - 10, "column 0 in banks 0, 1, 2, … → no conflict", extra=f'font-size="11" fill="{GREEN}"'))
    for r in range(rows):
        b.append(text(x0 - 4, y1 + r * rh + 11, f"row {r}", "end", 'font-size="9"'))
        for c in range(cols + 1):
            bank = (r * 33 + c) % 32
            fill = GREEN if c == 0 else (GREY if c == 32 else LIGHT)
            b.append(rect(x0 + c * cw, y1 + r * rh, cw, rh, fill))
            if c < 32:  # (column 32 is the padding word, which no thread reads)
                b.append(bank_label(x0 + c * cw + cw / 2, y1 + r * rh + 11, bank, c == 0))
    return svg(x0 + (cols + 1) * cw + 4, y1 + rows * rh + 8, b)


def coalescing():
    b = []
    x0, cw = 20, 13
    b.append(text(x0, 20, "Array of structures: struct { float x, y, z; } p[n]; a warp reads p[i].x",
                  extra='font-weight="bold"'))
    for i in range(48):
        f = ["x", "y", "z"][i % 3]
        b.append(rect(x0 + i * cw, 30, cw, 20, ORANGE if f == "x" else GREY))
    for seg in range(0, 48 * cw + 1, 8 * cw):
        b.append(f'<line x1="{x0 + seg}" y1="26" x2="{x0 + seg}" y2="56" stroke="{RED}" stroke-width="1"/>')
    b.append(text(x0, 72, "first 16 lanes shown; 32 lanes span 384 bytes = 12 sectors (red lines: 32-byte sectors); 1/3 used",
                  extra='font-size="11"'))
    b.append(text(x0, 105, "Structure of arrays: struct { float x[n], y[n], z[n]; }; a warp reads x[i]",
                  extra='font-weight="bold"'))
    for i in range(48):
        b.append(rect(x0 + i * cw, 115, cw, 20, ORANGE if i < 32 else LIGHT))
    for seg in range(0, 48 * cw + 1, 8 * cw):
        b.append(f'<line x1="{x0 + seg}" y1="111" x2="{x0 + seg}" y2="141" stroke="{RED}" stroke-width="1"/>')
    b.append(text(x0, 157, "32 threads × 4 bytes = 128 bytes = 4 sectors, every byte used", extra='font-size="11"'))
    return svg(x0 + 48 * cw + 20, 170, b)


def grid_1d():
    """Lab 01: a grid of blocks over an array (the global index, the last block's idle threads),
    then a grid-stride loop over a longer array. For print: 608 units wide, its 10-unit numbers
    print at 8.1 pt at the text's width."""
    b = []
    block, n = 8, 29                      # threads per block, elements (small, to be drawn)
    blocks = (n + block - 1) // block     # rounded up, as the lab's launch does
    x0, cw, rh = 84, 16, 20
    pick_b, pick_t = 2, 5                 # the thread whose index is worked out
    b.append(bold(8, 18, f"n = {n}, blockDim.x = {block}: ({n} + {block - 1}) / {block} = {blocks} blocks"))
    y = 34
    for bi in range(blocks):
        bx = x0 + bi * block * cw
        b.append(rect(bx, y, block * cw, 18, LIGHT, BLUE))
        b.append(text(bx + block * cw / 2, y + 13, f"blockIdx.x = {bi}", "middle", 'font-size="10"'))
    b.append(text(x0 - 6, y + 13, "blocks", "end", 'font-size="11"'))
    for bi in range(blocks):
        for t in range(block):
            i = bi * block + t
            fill = ORANGE if (bi, t) == (pick_b, pick_t) else (GREY if i >= n else "white")
            cx = x0 + i * cw
            b.append(rect(cx, y + 22, cw, rh, fill))
            b.append(text(cx + cw / 2, y + 22 + 14, str(t), "middle", 'font-size="10"'))
            b.append(rect(cx, y + 46, cw, rh, fill if i < n else "white",
                          "#555" if i < n else "#bbb", "" if i < n else 'stroke-dasharray="3,2"'))
            b.append(text(cx + cw / 2, y + 46 + 14, str(i), "middle",
                          'font-size="10"' + ("" if i < n else ' fill="#999"')))
    b.append(text(x0 - 6, y + 22 + 14, "threadIdx.x", "end", 'font-size="11"'))
    b.append(text(x0 - 6, y + 46 + 14, "i: element", "end", 'font-size="11"'))
    xe = x0 + n * cw
    b.append(line(xe, y + 18, xe, y + 74, RED, 2))
    b.append(small(x0 + blocks * block * cw, y + 82, f"i ≥ n: {blocks * block - n} idle threads", "end", RED))
    b.append(small(x0 + blocks * block * cw, y + 94, "(the guard if (i < n))", "end", RED))
    b.append(text(8, y + 86, f"orange: i = blockIdx.x · blockDim.x + threadIdx.x", extra=f'fill="{RED}"'))
    b.append(text(8, y + 102, f"= {pick_b} · {block} + {pick_t} = {pick_b * block + pick_t}", extra=f'fill="{RED}"'))

    # Grid-stride loop: a fixed grid walks over a longer array, one pass after another.
    gblocks, m, sw = 2, 40, 14            # blocks, elements, a cell's width
    stride = gblocks * block
    y2 = y + 136
    b.append(bold(8, y2, f"Grid-stride loop: {gblocks} blocks × {block} threads = {stride} threads, n = {m}:"))
    b.append(text(8, y2 + 16, f"for (i = global index; i < n; i += {stride})", extra='font-family="DejaVu Sans Mono"'))
    pass_fill = [LIGHT, "#9fc3ea", "#5f95d0"]
    y2 += 26
    for i in range(m):
        cx = 8 + i * sw
        fill = ORANGE if i % stride == pick_t else pass_fill[i // stride]
        b.append(rect(cx, y2, sw, rh, fill))
        b.append(text(cx + sw / 2, y2 + 14, str(i % stride), "middle", 'font-size="10"'))
    for p in range((m + stride - 1) // stride):
        px = 8 + p * stride * sw
        b.append(small(px + 2, y2 + rh + 14, f"pass {p}: i = {p * stride} … {min(m, (p + 1) * stride) - 1}"))
    b.append(text(8, y2 + rh + 36, "numbers: the thread's global index;", extra=f'fill="{RED}"'))
    b.append(text(8, y2 + rh + 52, f"orange: thread {pick_t} handles "
                  + ", ".join(str(i) for i in range(pick_t, m, stride)), extra=f'fill="{RED}"'))
    return svg(max(x0 + blocks * block * cw, 8 + m * sw) + 12, y2 + rh + 62, b)


def volume():
    """Lab 03: a pitched volume in memory: slices of padded rows, slicePitch = pitch · height. For
    print: 652 units wide, its 11-unit labels print at 8.3 pt at the text's width."""
    b = []
    width, pad, height, depth = 8, 3, 3, 3   # elements per row, padding, rows, slices
    cw, rh, gap = 22, 20, 14
    x0, y0 = 110, 40
    pick = (1, 2, 5)                         # (z, y, x)
    pw = (width + pad) * cw
    for z in range(depth):
        sy = y0 + z * (height * rh + gap)
        for y in range(height):
            ry = sy + y * rh
            cells(b, x0, ry, width + pad,
                  cw, rh, lambda c: ORANGE if (z, y, c) == pick else (LIGHT if c < width else GREY))
            b.append(small(x0 - 6, ry + 14, f"z = {z}, y = {y}", "end", size=11))
        # the slice's extent: pitch · height bytes
        bx = x0 + pw + 10
        b.append(line(bx, sy, bx, sy + height * rh, RED, 2))
        b.append(line(bx - 4, sy, bx + 4, sy, RED, 2))
        b.append(line(bx - 4, sy + height * rh, bx + 4, sy + height * rh, RED, 2))
        b.append(small(bx + 8, sy + height * rh / 2 + 4, f"slice {z}" + (": slicePitch = pitch × height bytes"
                                                                        if z == 0 else ""), color=RED, size=11))
    b.append(line(x0, y0 - 12, x0 + width * cw, y0 - 12, BLUE, 2))
    b.append(small(x0 + width * cw / 2, y0 - 17, "width × sizeof(T): the data", "middle", BLUE, size=11))
    b.append(line(x0 + width * cw, y0 - 12, x0 + pw, y0 - 12, "#888", 2))
    b.append(small(x0 + width * cw + pad * cw / 2, y0 - 17, "padding", "middle", "#666", size=11))
    yb = y0 + depth * (height * rh + gap) - gap + 14
    b.append(line(x0, yb, x0 + pw, yb, RED, 2))
    b.append(small(x0 + pw / 2, yb + 14, "pitch bytes: one row as allocated", "middle", RED, size=11))
    z, y, x = pick
    b.append(text(8, yb + 40, f"orange: element (z, y, x) = ({z}, {y}, {x}) at "
                  f"(T*)((char*)p.ptr + {z} · pitch · height", extra=f'fill="{RED}"'))
    b.append(text(8, yb + 56, f"    + {y} · pitch) + {x}", extra=f'fill="{RED}" xml:space="preserve"'))
    b.append(text(8, yb + 72, "Slices follow one another: the padded rows of slice 0, then those of slice 1, …"))
    return svg(x0 + pw + 300, yb + 84, b)


def broadcast():
    """Lab 04: at Horner step k a warp reads c[k] (one address, one read for all 32 lanes) or, in
    the divergent variant, word k of 32 different sets (32 addresses, read one after another).
    For print: 540 units wide, its 10-unit numbers print at 9.1 pt at the text's width."""
    b = []
    lanes, terms, k = 32, 6, 3            # a warp, coefficients per set drawn, the step shown
    x0, cw, rh = 84, 14, 16
    def lane_row(y):
        cells(b, x0, y, lanes, cw, rh, lambda i: LIGHT)
        for i in range(0, lanes, 4):
            b.append(text(x0 + i * cw + cw / 2, y + 12, str(i), "middle", 'font-size="10"'))
        b.append(small(x0 - 6, y + 12, "lanes 0–31", "end", size=11))
    # Uniform: every lane reads c[k] of the one set.
    b.append(bold(8, 18, f"constant: at step k = {k} every lane reads c[{k}]:"))
    b.append(text(8, 34, "one address, one read, broadcast"))
    y = 48
    lane_row(y)
    ty = y + 80
    cc = 20                               # a coefficient's cell
    cx = x0 + (lanes * cw - terms * cc) / 2
    cells(b, cx, ty, terms, cc, rh, lambda i: ORANGE if i == k else LIGHT)
    for i in range(terms):
        b.append(text(cx + i * cc + cc / 2, ty + 12, f"c{i}", "middle", 'font-size="10"'))
    b.append(small(cx - 8, ty + 12, "__constant__ c[T]", "end", size=11))
    for i in range(lanes):
        b.append(line(x0 + i * cw + cw / 2, y + rh, cx + k * cc + cc / 2, ty, ORANGE))
    b.append(rect(cx + terms * cc + 10, ty + 2, 5, 12, ORANGE, "#fff"))
    b.append(small(cx + terms * cc + 20, ty + 12, "1 read serves 32 lanes", color=GREEN, size=11))
    # Divergent: lane l reads word k of set l: the table as 32 columns (sets) of T words.
    y = ty + 66
    b.append(bold(8, y - 30, f"divergent: lane l reads word {k} of set l, address l · T + {k}:"))
    b.append(text(8, y - 14, f"{lanes} addresses, {lanes} reads one after another"))
    lane_row(y)
    ty = y + 36
    for s in range(lanes):
        for i in range(terms):
            b.append(rect(x0 + s * cw, ty + i * rh, cw, rh, ORANGE if i == k else LIGHT))
        b.append(line(x0 + s * cw + cw / 2, y + rh, x0 + s * cw + cw / 2, ty + k * rh, ORANGE))
    for i in range(terms):
        b.append(small(x0 - 6, ty + i * rh + 12, f"word {i}", "end", size=11))
    ny = ty + terms * rh + 16
    b.append(small(8, ny, f"constant table: {lanes} sets (columns) of T coefficients;", size=11))
    b.append(small(8, ny + 15, "set s holds c[s·T] … c[s·T + T − 1]", size=11))
    # The reads of one step in time: one, against 32 in a row.
    ry = ny + 34
    b.append(small(8, ry + 10, "reads in time →", color=RED, size=11))
    q = 8
    cells(b, x0 + 30, ry, lanes, q, 12, lambda i: ORANGE, "#fff")
    b.append(small(x0 + 30 + lanes * q + 8, ry + 10, f"{lanes} reads", color=RED, size=11))
    return svg(x0 + lanes * cw + 8, ry + 22, b)


def heap():
    """Lab 05: each thread mallocs its own block from the device heap and keeps the pointer in an
    array; when the heap is full, malloc returns NULL. Below: one cudaMalloc split among threads.
    For print: 600 units wide, its 10-unit labels print at 8.2 pt at the text's width."""
    b = []
    threads, fits = 8, 6                   # threads of the example; blocks the heap has room for
    order = [3, 0, 5, 1, 7, 2]             # where the allocator happens to place them: any order
    x0, cw, rh = 98, 56, 22
    bw, hdr, gap = 44, 8, 6                # a block, its allocator header, the space between
    b.append(bold(8, 20, f"device: each of {threads} threads calls malloc(size) and keeps the pointer in ptrs[t]"))
    y = 40
    cells(b, x0, y, threads, cw, rh, lambda t: RED if order.count(t) == 0 else LIGHT)
    for t in range(threads):
        got = t in order
        b.append(text(x0 + t * cw + cw / 2, y + 15, f"ptrs[{t}]" if got else "NULL", "middle",
                      'font-size="10"' + ("" if got else ' fill="white"')))
    b.append(small(x0 - 6, y + 15, "ptrs (global)", "end", size=11))
    hy = y + 80
    step = hdr + bw + gap
    hw = fits * step + gap
    b.append(rect(x0, hy, hw, rh, "white"))
    for slot, t in enumerate(order):
        bx = x0 + gap + slot * step
        b.append(rect(bx, hy, hdr, rh, GREY))
        b.append(rect(bx + hdr, hy, bw, rh, ORANGE))
        b.append(text(bx + hdr + bw / 2, hy + 15, f"t = {t}", "middle", 'font-size="10"'))
        b.append(line(x0 + t * cw + cw / 2, y + rh, bx + hdr + bw / 2, hy, "#888"))
    b.append(small(x0 - 6, hy + 15, "device heap", "end", size=11))
    b.append(line(x0 + hw, hy - 8, x0 + hw, hy + rh + 8, RED, 2))
    b.append(small(x0 + hw + 6, hy + 10, "end of the heap (its size:", color=RED))
    b.append(small(x0 + hw + 6, hy + 23, "cudaLimitMallocHeapSize)", color=RED))
    b.append(small(8, hy + rh + 16, "grey: the allocator's own bookkeeping; the blocks land anywhere in the heap, "
                   "in any order"))
    missing = [t for t in range(threads) if t not in order]
    b.append(small(8, hy + rh + 30, f"threads {' and '.join(map(str, missing))} get NULL: they record the failure "
                   "and write nothing", color=RED))
    # The alternative: one host-side allocation, thread t at t · size.
    y2 = hy + rh + 70
    b.append(bold(8, y2 - 14, f"host: one cudaMalloc(nthreads · size), thread t uses the slice at t · size"))
    cells(b, x0, y2, threads, bw, rh, lambda t: LIGHT)
    for t in range(threads):
        b.append(text(x0 + t * bw + bw / 2, y2 + 15, f"t = {t}", "middle", 'font-size="10"'))
    b.append(small(x0 - 6, y2 + 15, "one buffer", "end", size=11))
    return svg(600, y2 + rh + 16, b)


BENCH = os.path.join(ROOT, "bench", "results", "nvidia-h200.json")  # the run the handouts quote


def bench_rows(lab, path=BENCH):
    """The device name and the result rows of one lab in a bench/run.sh results file."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    run = next(r for r in data["labs"] if r["lab"].startswith(lab + "-"))
    return run["device"], run["results"]


def overlap_schedule(n, rates, streams=2, max_chunks=8):
    """Lab 06's overlap variant as the GPU runs it: the solution's chunks (at least 2^18 floats,
    at most max_chunks), chunk c on stream c % streams; one engine copies in, one computes, one
    copies out, each in the order the host issued its work, and each chunk's three steps in turn.
    rates: ms per float for "in", "kernel", "out". Returns (stream, chunk, kind, start, end) in ms."""
    chunks = max(1, min(max_chunks, n // (1 << 18)))
    size = -(-n // chunks)
    engine = {"in": 0.0, "kernel": 0.0, "out": 0.0}
    stream_done = [0.0] * streams
    ops = []
    for c in range(chunks):
        count = min(size, n - c * size)
        s = c % streams
        for kind in ("in", "kernel", "out"):
            start = max(engine[kind], stream_done[s])
            end = start + count * rates[kind]
            engine[kind] = stream_done[s] = end
            ops.append((s, c, kind, start, end))
    return ops


def overlap():
    """Lab 06: the serial round trip against chunks on two streams, to scale, from the largest
    size of the H200 run: its one-way copy rates, the kernel at the device's copy bandwidth. For
    print: 598 units wide, its 10-unit labels print at 8.2 pt at the text's width."""
    device, rows = bench_rows("06")
    n = max(int(r["size"]) for r in rows)
    row = {r["variant"]: r for r in rows if int(r["size"]) == n}
    h2d, d2h = (float(v) for v in re.search(r"H2D ([\d.]+), D2H ([\d.]+) GB/s", row["pinned"]["note"]).groups())
    per_float = lambda gbs: 4 / (gbs * 1e6)                  # ms per float at gbs GB/s
    rates = {"in": per_float(h2d), "kernel": per_float(device["copy_gbs"] / 2), "out": per_float(d2h)}
    fill = {"in": BLUE, "kernel": ORANGE, "out": GREEN}
    x0, scale, lh = 118, 44, 26                               # left margin, px per ms, lane height
    ops = overlap_schedule(n, rates)
    serial = overlap_schedule(n, rates, 1, 1)               # one chunk: the pinned round trip
    tmax = int(max(o[4] for o in serial)) + 1                # the time axis, in whole ms
    b = []
    b.append(bold(8, 18, f"{n} floats ({n * 4 >> 20} MiB) each way, to scale, from the {device['name']} run:"))
    b.append(text(8, 34, f"H2D {h2d:g} GB/s, D2H {d2h:g} GB/s one way"))
    def lane(y, label, items, chunk_labels):
        b.append(text(x0 - 6, y + 17, label, "end", 'font-size="11"'))
        b.append(line(x0, y + lh, x0 + tmax * scale, y + lh, "#ccc"))
        for _, c, kind, start, end in sorted(items, key=lambda o: o[2] == "kernel"):  # kernels on top
            w = max((end - start) * scale, 3)             # a kernel is short: keep it visible
            b.append(rect(round(x0 + start * scale, 1), y + 2, round(w, 1), lh - 4, fill[kind],
                          "none" if kind == "kernel" else "white"))
            if chunk_labels and kind != "kernel":
                b.append(text(round(x0 + (start + end) / 2 * scale, 1), y + 17, str(c), "middle",
                              'font-size="10" fill="white"'))
    y = 50
    lane(y, "serial (pinned)", serial, False)
    end_serial = serial[-1][4]
    b.append(text(round(x0 + end_serial * scale - 6, 1), y + 17, f"{end_serial:.1f} ms; measured "
                  f"{row['pinned']['time_ms']:.1f} ms", "end", 'font-size="10" fill="white"'))
    streams = 1 + max(s for s, *_ in ops)
    y += 50
    for s in range(streams):
        lane(y + s * lh, f"overlap, stream {s}", [o for o in ops if o[0] == s], True)
    end_overlap = max(o[4] for o in ops)
    b.append(small(round(x0 + end_overlap * scale + 6, 1), y + (streams - 1) * lh + 17,
                   f"{end_overlap:.1f} ms; measured {row['overlap']['time_ms']:.1f} ms"))
    # time axis
    ya = y + streams * lh + 10
    for t in range(0, tmax + 1):
        b.append(line(x0 + t * scale, ya, x0 + t * scale, ya + 5))
        b.append(small(x0 + t * scale, ya + 17, str(t), "middle"))
    b.append(small(x0 + tmax * scale + 12, ya + 17, "ms"))
    ly = ya + 40
    for i, (kind, label) in enumerate([("in", "copy host → device"), ("kernel", "kernel y = 2x + 1"),
                                       ("out", "copy device → host")]):
        b.append(rect(8 + i * 190, ly - 11, 14, 14, fill[kind], "white"))
        b.append(text(8 + i * 190 + 20, ly, label))
    b.append(small(8, ly + 22, f"numbers: chunk c, on stream c mod {streams}; thin orange: its kernel.", size=11))
    b.append(small(8, ly + 37, "One copy engine per direction: chunk c + 1 comes in as chunk c goes out.", size=11))
    return svg(x0 + tmax * scale + 40, ly + 46, b)


def matmul_thread():
    """Lab 09: one thread per element of C reads a row of A and a column of B."""
    b = []
    s, n = 16, 8                          # cell size, matrix cells
    ax, ay, bx, by, cx, cy = 40, 190, 230, 20, 230, 190
    row, col, k = 5, 2, 3                 # the thread's element and the step shown
    blk = 4                               # cells per block side (a 16 x 16 block, drawn small)
    matrix(b, ax, ay, n, n, s, "A (M × K)")
    matrix(b, bx, by, n, n, s, "B (K × N)")
    matrix(b, cx, cy, n, n, s, "C = A·B (M × N)")
    b.append(rect(cx + (col // blk) * blk * s, cy + (row // blk) * blk * s, blk * s, blk * s, "none", BLUE,
                  'stroke-width="2" stroke-dasharray="4,2"'))
    b.append(rect(ax, ay + row * s, n * s, s, LIGHT, BLUE))
    b.append(rect(bx + col * s, by, s, n * s, LIGHT, BLUE))
    b.append(rect(ax + k * s, ay + row * s, s, s, ORANGE, RED))
    b.append(rect(bx + col * s, by + k * s, s, s, ORANGE, RED))
    b.append(rect(cx + col * s, cy + row * s, s, s, BLUE, BLUE))
    b.append(small(ax + n * s + 4, ay + row * s + 12, "row", size=12))
    b.append(small(bx + col * s + s / 2, by - 5, "col", "middle", size=12))
    tx = 400
    for i, line_ in enumerate(["One thread per element of C:",
                               "col = blockIdx.x · blockDim.x + threadIdx.x",
                               "row = blockIdx.y · blockDim.y + threadIdx.y",
                               "",
                               "for k: sum += A[row][k] · B[k][col]",
                               "then C[row][col] = sum (dark blue).",
                               "",
                               "The thread reads a row of A and a column",
                               "of B (light blue) from global memory;",
                               "each element of A is read by N threads,",
                               "each element of B by M threads."]):
        b.append(text(tx, 40 + i * 18, line_))
    b.append(text(tx, 250, f"orange: the two reads of step k = {k}", extra=f'fill="{RED}"'))
    b.append(text(tx, 268, "dashed: the thread's block (16 × 16 threads)", extra=f'fill="{BLUE}"'))
    return svg(720, 350, b)


# Lab 12's warp-tiled rung, as sgemm_warptile launches it: launch_warptile<128, 128, 8, 2, 4, 8>.
BM, BN, BK, WARPS_M, WARPS_N, LANES_M = 128, 128, 8, 2, 4, 8


def tiling():
    """Lab 12: the block's tile of C, its warps' tiles, and one thread's 8 × 8 outputs as 2 × 2
    blocks of 4 × 4 within its warp's tile; the block walks k in BK-deep slices of A and B. For
    print: 560 units wide, its 10-unit lane numbers print at 8.8 pt at the text's width."""
    b = []
    lanes_n = 32 // LANES_M
    wm, wn = BM // WARPS_M, BN // WARPS_N           # a warp's tile
    lane = 5                                         # the lane whose outputs are shown
    lr, lc = (lane // lanes_n) * 4, (lane % lanes_n) * 4
    # Left: the matrices, in tiles: the block's tile of C, its row strip of A and its column strip
    # of B, with the k slice of this step in orange (BK of the tile's side, to scale).
    t, tiles = 20, 4                                 # a tile's side in px, tiles per matrix side
    ti, tj, k0 = 1, 2, 1.5 * t                       # the block's tile, where this step's slice lies
    ax, ay = 8, 60 + tiles * t + 12
    bx, by = ax + tiles * t + 10, 60
    sl = t * BK / BM                                 # a slice's depth in px
    b.append(bold(8, 18, f"C in {BM} × {BN} tiles, one per block; {WARPS_M} × {WARPS_N} warps of {wm} × {wn} each;"))
    b.append(bold(8, 34, "8 × 8 outputs per thread"))
    matrix(b, ax, ay, tiles, tiles, t, "A")
    matrix(b, bx, by, tiles, tiles, t, None)
    b.append(small(bx + tiles * t + 4, by + 12, "B"))
    matrix(b, bx, ay, tiles, tiles, t, "C")
    b.append(rect(ax, ay + ti * t, tiles * t, t, LIGHT, BLUE))
    b.append(rect(bx + tj * t, by, t, tiles * t, LIGHT, BLUE))
    b.append(rect(round(ax + k0, 1), ay + ti * t, round(sl, 1), t, ORANGE, RED))
    b.append(rect(bx + tj * t, round(by + k0, 1), t, round(sl, 1), ORANGE, RED))
    b.append(rect(bx + tj * t, ay + ti * t, t, t, BLUE, BLUE))
    # Middle: the block's tile (1.5 px per element), split among the warps.
    p = 1.25
    cx, cy = bx + tiles * t + 30, 60
    b.append(line(bx + (tj + 1) * t, ay + ti * t, cx, cy, "#aaa", 1, 'stroke-dasharray="3,2"'))
    b.append(line(bx + (tj + 1) * t, ay + (ti + 1) * t, cx, cy + BM * p, "#aaa", 1, 'stroke-dasharray="3,2"'))
    for w in range(WARPS_M * WARPS_N):
        wr, wc = w // WARPS_N, w % WARPS_N
        b.append(rect(cx + wc * wn * p, cy + wr * wm * p, wn * p, wm * p, ORANGE if w == 0 else "white", "#555"))
        b.append(small(cx + (wc + 0.5) * wn * p, cy + (wr + 0.5) * wm * p + 4, f"warp {w}", "middle"))
    b.append(small(cx + BN * p / 2, cy + BM * p + 14, "the block's tile of C,", "middle"))
    b.append(small(cx + BN * p / 2, cy + BM * p + 27, f"{BM} × {BN}", "middle"))
    # Right: warp 0's tile, 4 px per element; lanes as LANES_M x lanes_n blocks of 4 x 4 in each
    # quadrant; the chosen lane's four blocks in blue.
    q = 5
    wx, wy = cx + BN * p + 24, 60
    b.append(line(cx + wn * p, cy, wx, wy, "#aaa", 1, 'stroke-dasharray="3,2"'))
    b.append(line(cx + wn * p, cy + wm * p, wx, wy + wm * q, "#aaa", 1, 'stroke-dasharray="3,2"'))
    for hr in range(2):
        for hc in range(2):
            for r in range(LANES_M):
                for c in range(lanes_n):
                    x = wx + (hc * wn // 2 + c * 4) * q
                    y = wy + (hr * wm // 2 + r * 4) * q
                    mine = r * lanes_n + c == lane
                    b.append(rect(x, y, 4 * q, 4 * q, BLUE if mine else LIGHT, "#fff"))
                    b.append(text(x + 2 * q, y + 2 * q + 4, str(r * lanes_n + c), "middle",
                                  'font-size="10"' + (' fill="white"' if mine else "")))
    b.append(rect(wx, wy, wn * q, wm * q, "none", "#555", 'stroke-width="1.5"'))
    b.append(line(wx, wy + wm * q / 2, wx + wn * q, wy + wm * q / 2, "#555"))
    b.append(line(wx + wn * q / 2, wy, wx + wn * q / 2, wy + wm * q, "#555"))
    b.append(small(wx + wn * q / 2, wy + wm * q + 14, f"warp 0's tile, {wm} × {wn}:", "middle"))
    b.append(small(wx + wn * q / 2, wy + wm * q + 27, "the lane of each 4 × 4 block", "middle"))
    ty = wy + wm * q + 50
    for note in [f"Lane {lane} (blue) owns rows {lr}–{lr + 3} and {lr + wm // 2}–{lr + wm // 2 + 3}, "
                 f"columns {lc}–{lc + 3} and {lc + wn // 2}–{lc + wn // 2 + 3} of its warp's tile: 8 × 8 outputs, "
                 "kept in 64 registers.",
                 f"The block walks k in slices: {BM} × {BK} of A and {BK} × {BN} of B (orange, left) go to "
                 "shared memory, then every thread multiplies.",
                 "At each p of a slice a thread loads two float4 of A (its rows) and two of B (its columns) "
                 "from shared memory: 4 loads, 64 multiply–adds; a warp's pieces lie side by side."]:
        ty = wrapped(b, 8, ty, note, 80, 16, "") + 4
    return svg(int(wx + wn * q + 8), ty - 12, b)


def vector(b, x, y, n, s, vertical, fill_of, label):
    """A vector of n s-pixel cells, across or down; fill_of(i) gives each cell's fill."""
    for i in range(n):
        b.append(rect(x, y + i * s, s, s, fill_of(i), "#999") if vertical else
                 rect(x + i * s, y, s, s, fill_of(i), "#999"))
    if vertical:
        b.append(small(x + s / 2, y - 4, label, "middle"))
    else:
        b.append(small(x - 4, y + s, label, "end"))


def matvec():
    """Lab 13: what one warp reads of the row-major A at one step, in three assignments, with the
    vectors they read and write. For print: 608 units wide, its 10-unit labels print at 8.1 pt at
    the text's width."""
    b = []
    rows, cols, s = 34, 40, 4             # the part of A drawn (at least a warp of rows), cell size
    warp, k = 32, 6                       # lanes, the step shown
    # (kernel, who, verdict, its colour, the cells the warp walks over, the cells it reads at step k,
    #  matvec: x across the top and y down the right; vecmat: x down the left and y along the bottom)
    panels = [("matvec_naive", "a thread per row", "32 words a row apart: 32 sectors", RED,
               lambda r, c: r < warp, lambda r, c: c == k and r < warp, True),
              ("matvec_warp", "a warp per row", "32 consecutive words: 4 sectors", GREEN,
               lambda r, c: r == 0, lambda r, c: r == 0 and c < warp, True),
              ("vecmat_naive", "a thread per column", "32 consecutive words: 4 sectors", GREEN,
               lambda r, c: c < warp, lambda r, c: r == k and c < warp, False)]
    x0, y0, pw = 20, 96, cols * s + 36
    b.append(bold(8, 18, "A warp's reads of the row-major A at one step: orange;"))
    b.append(bold(8, 34, "over all its steps: light blue"))
    for i, (name, who, verdict, color, walks, reads, by_rows) in enumerate(panels):
        x = x0 + i * pw + (0 if by_rows else 14)
        b.append(bold(x, y0 - 42, name))
        b.append(text(x, y0 - 27, who, extra='font-size="11"'))
        matrix(b, x, y0, rows, cols, s)
        for r in range(rows):                        # each row's runs of one fill, one rect each
            fills = [ORANGE if reads(r, c) else (LIGHT if walks(r, c) else None) for c in range(cols)]
            c = 0
            while c < cols:
                end = c
                while end < cols and fills[end] == fills[c]:
                    end += 1
                if fills[c]:
                    b.append(rect(x + c * s, y0 + r * s, (end - c) * s, s, fills[c], "none"))
                c = end
        b.append(rect(x, y0, cols * s, rows * s, "none", "#555"))
        used = lambda j, along: any(walks(r, c) for r, c in
                                    ([(r, j) for r in range(rows)] if along == "c" else [(j, c) for c in range(cols)]))
        if by_rows:   # y = A·x: x[c] meets column c, y[r] collects row r
            vector(b, x, y0 - 8, cols, s, False, lambda c: ORANGE if any(reads(r, c) for r in range(rows))
                   else "white", "x")
            vector(b, x + cols * s + 4, y0, rows, s, True, lambda r: BLUE if used(r, "r") else "white", "y")
        else:         # yᵀ = xᵀ·A: x[r] meets row r, y[c] collects column c
            vector(b, x - 8, y0, rows, s, True, lambda r: ORANGE if any(reads(r, c) for c in range(cols))
                   else "white", "x")
            vector(b, x, y0 + rows * s + 4, cols, s, False, lambda c: BLUE if used(c, "c") else "white", "")
            b.append(small(x + cols * s + 4, y0 + rows * s + 9, "y"))
        wrapped(b, x, y0 + rows * s + 26, verdict, 22, 14, f'font-size="11" fill="{color}"')
    y = wrapped(b, 8, y0 + rows * s + 64, "matvec: y = A·x, y[r] from row r of A; vecmat: yᵀ = xᵀ·A, y[c] from "
                "column c of A; dark blue: the elements of y the warp writes. A row of A is N consecutive floats.", 86)
    return svg(x0 + 3 * pw, y - 4, b)

FIGURES = [("pitch", pitch), ("tiles", tiles), ("banks", banks), ("coalescing", coalescing),
           ("grid", grid_1d), ("volume", volume), ("broadcast", broadcast), ("heap", heap),
           ("overlap", overlap), ("matmul-thread", matmul_thread), ("tiling", tiling), ("matvec", matvec)]


def main(argv):
    out = argv[argv.index("--out") + 1] if "--out" in argv else OUT
    os.makedirs(out, exist_ok=True)
    for name, fn in FIGURES:
        with open(os.path.join(out, name + ".svg"), "w", encoding="utf-8", newline="\n") as f:
            f.write(fn())


if __name__ == "__main__":
    main(sys.argv[1:])
