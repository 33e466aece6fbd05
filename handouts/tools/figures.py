#!/usr/bin/env python3
"""Draws the handouts' explanatory figures as SVG into handouts/figures/ (run by hand after a
change; the SVG files are committed). Standard library only: python3 handouts/tools/figures.py"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "figures")
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


def pitch():
    b = []
    x0, y0, cw, rh, cols, pad, rows = 60, 40, 28, 26, 13, 3, 5
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


def banks():
    b = []
    x0, y0, cw, rh = 70, 50, 17, 17
    cols, rows = 32, 6
    b.append(text(x0, 20, "float tile[32][32]: column 0 (tile[r][0], r = 0..31) is word 32·r: all in bank 0",
                  extra='font-weight="bold"'))
    for c in range(cols):
        b.append(text(x0 + c * cw + cw / 2, y0 - 6, str(c), "middle", 'font-size="8"'))
    for r in range(rows):
        b.append(text(x0 - 6, y0 + r * rh + 12, f"row {r}", "end", 'font-size="10"'))
        for c in range(cols):
            b.append(rect(x0 + c * cw, y0 + r * rh, cw, rh, RED if c == 0 else LIGHT))
    b.append(text(x0 + cols * cw + 8, y0 + 12, "bank = word index mod 32", extra='font-size="10"'))
    b.append(text(x0 + cols * cw + 8, y0 + 28, "→ 32-way conflict", extra=f'font-size="10" fill="{RED}"'))
    y1 = y0 + rows * rh + 50
    b.append(text(x0, y1 - 30, "float tile[32][33]: one padding word per row shifts each row by one bank",
                  extra='font-weight="bold"'))
    for r in range(rows):
        b.append(text(x0 - 6, y1 + r * rh + 12, f"row {r}", "end", 'font-size="10"'))
        for c in range(cols + 1):
            bank = (r * 33 + c) % 32
            fill = GREEN if c == 0 else (GREY if c == 32 else LIGHT)
            b.append(rect(x0 + c * cw, y1 + r * rh, cw, rh, fill))
            if c == 0:
                b.append(text(x0 + c * cw + cw / 2, y1 + r * rh + 12, str(bank), "middle", 'font-size="9" fill="white"'))
    b.append(text(x0 + (cols + 1) * cw + 8, y1 + 12, "column 0 in banks 0, 1, 2, …", extra='font-size="10"'))
    b.append(text(x0 + (cols + 1) * cw + 8, y1 + 28, "→ no conflict", extra=f'font-size="10" fill="{GREEN}"'))
    return svg(x0 + (cols + 1) * cw + 190, y1 + rows * rh + 20, b)


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


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, fn in [("pitch", pitch), ("tiles", tiles), ("banks", banks), ("coalescing", coalescing)]:
        with open(os.path.join(OUT, name + ".svg"), "w", encoding="utf-8") as f:
            f.write(fn())


if __name__ == "__main__":
    main()
