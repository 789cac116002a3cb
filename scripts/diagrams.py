#!/usr/bin/env python3
"""The teaching diagrams, drawn from the kernels' own constants (never from numbers typed here).

    cmake --build build --target diagram_constants
    python3 scripts/diagrams.py --program build/bin/diagram_constants     # redraw every diagram
    python3 scripts/diagrams.py --check --program build/bin/diagram_constants

Every number a diagram shows comes from one of:
  - the kernels' constants: build/bin/diagram_constants (scripts/diagram_constants.cu) prints
    them as JSON, read from the chapters' headers (tile sizes, threads, stages, padding, fragment
    shapes, the tile maps, the swizzle and ldmatrix tables, the Hopper boxes and tile order);
  - what a GPU run wrote next to results.csv: machine.csv (sizes, bandwidths, latencies, SMs),
    resources.csv (blocks per SM, shared memory per block, and from it the pipeline depths that
    are chosen inside a .cu file) and results.csv (what a shape-aware launcher chose for a shape).
All of them are gathered into one dictionary, which the drawings read, and which is written to
docs/figures/diagrams/inputs.json next to the pictures. --check gathers it again (from the
program's output and the CSVs as they are now) and fails if it differs from the committed
inputs.json: a kernel constant, or a measured number, changed and the diagrams were not redrawn.
Without --program (or --constants FILE, the program's saved output), the kernels' constants come
from the committed inputs.json, so the diagrams can be redrawn without a build.

Writes into OUTDIR (default docs/figures/diagrams; --list prints the names): one PNG per idea,
named after the chapter that teaches it, and two GIFs of the pipelines. Needs matplotlib (and the
Pillow it installs, for the GIFs): scripts/requirements.txt.

House style (CONVENTIONS.md, rule 14): one idea per picture; rows go down and columns go right, as
in memory; A, B and C keep the colours below everywhere; the Okabe-Ito palette (colour-blind safe);
about 900 pixels wide, the width at which GitHub shows a README.
"""
import argparse
import csv
import json
import math
import pathlib
import re
import subprocess
import sys

try:  # --check and --list need no matplotlib (the ctest runs before CI installs it); drawing does
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    from matplotlib import animation, patches
except ImportError:
    matplotlib = None

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"
OUTDIR = FIGURES / "diagrams"
INPUTS = "inputs.json"

# The Okabe-Ito palette (Okabe and Ito, "Color Universal Design"), safe for every common form of
# colour blindness. A, B and C keep theirs in every picture.
OKABE_ITO = {"orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00",
             "reddish purple": "#CC79A7", "grey": "#999999", "black": "#000000"}
A_COLOR = OKABE_ITO["orange"]
B_COLOR = OKABE_ITO["sky blue"]
C_COLOR = OKABE_ITO["bluish green"]
HIGHLIGHT = OKABE_ITO["vermillion"]  # the one thread / warp / stage a picture follows
SECOND = OKABE_ITO["blue"]           # a second thing to tell apart from the first
WAIT = OKABE_ITO["grey"]             # waiting, idle, padding
# Four colours for the registers of a fragment (none of them A's, B's, C's or the highlight's),
# and eight for the chunks of a row: cividis, a colour map made for colour-blind readers.
FOUR = [OKABE_ITO[k] for k in ("yellow", "blue", "reddish purple", "grey")]
def chunk_color(q, n):
    """Chunk q of n: cividis, spread over the whole map; and a text colour that reads on it."""
    r, g, b, _ = matplotlib.colormaps["cividis"](q / max(n - 1, 1))
    return (r, g, b), ("black" if 0.3 * r + 0.6 * g + 0.1 * b > 0.5 else "white")

FP32_BYTES, FP16_BYTES = 4, 2  # the kernels' element types: float (chapters 00-04) and __half

DPI = 100          # 9-inch figures: 900 pixels, the width of a README on GitHub
WIDTH = 9.0
FONT = 10          # points; at 100 dpi about 14 pixels tall
SMALL = 8.5
if matplotlib:
    plt.rcParams.update({"font.size": FONT, "axes.titlesize": 11, "figure.titlesize": 12})


# ---- Inputs -------------------------------------------------------------------------------------

def load_csv(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def machine_value(rows, level, quantity):
    """The value of the machine.csv row (level, quantity), or an error naming what is missing."""
    for r in rows:
        if r["level"] == level and r["quantity"] == quantity:
            return float(r["value"])
    sys.exit(f"diagrams.py: machine.csv has no row '{level}, {quantity}'")


def latencies(rows):
    """{footprint in KB: cycles} of machine_probe's pointer chase."""
    out = {}
    for r in rows:
        m = re.fullmatch(r"load latency, (\d+) KB footprint", r["quantity"])
        if r["level"] == "latency" and m:
            out[int(m.group(1))] = float(r["value"])
    return out


def resource(rows, kernel, column):
    for r in rows:
        if r["kernel"] == kernel:
            return int(float(r[column]))
    sys.exit(f"diagrams.py: resources.csv has no kernel '{kernel}'")


def gather(kernels, machine, resources, results):
    """Every number the diagrams draw, in one dictionary (written to inputs.json)."""
    c = {"kernels": kernels}
    lat = latencies(machine)
    l2_mb = machine_value(machine, "L2", "L2 size")
    # The latency plateaus, read where docs/memory_hierarchy.md reads them: the largest footprint
    # of at most 128 KB (inside L1), the largest that fits well inside L2 (a quarter of it), and
    # the first at least twice the L2 (DRAM; the largest footprints add a few cycles more).
    in_l1 = max(f for f in lat if f <= 128)
    in_l2 = max(f for f in lat if f * 1024 <= l2_mb * 1024 * 1024 / 4)
    in_dram = min((f for f in lat if f * 1024 >= 2 * l2_mb * 1024 * 1024), default=max(lat))
    c["machine"] = {
        "device": machine[0]["device"],
        "commit": machine[0]["commit"],
        "sms": int(machine_value(machine, "SM", "SMs")),
        "clock_mhz": machine_value(machine, "SM", "max SM clock"),
        "registers_kb": machine_value(machine, "registers", "per SM, as bytes"),
        "registers_per_sm": int(machine_value(machine, "registers", "32-bit registers per SM")),
        "shared_kb": machine_value(machine, "shared", "shared memory per SM"),
        "l2_mb": l2_mb,
        "dram_gb": machine_value(machine, "DRAM", "DRAM size"),
        "shared_gbs": machine_value(machine, "shared", "read bandwidth (all SMs)"),
        "l2_gbs": machine_value(machine, "L2", "read bandwidth"),
        "dram_gbs": machine_value(machine, "DRAM", "read bandwidth"),
        "shared_cycles": machine_value(machine, "shared", "load latency"),
        "l1_cycles": lat[in_l1], "l2_cycles": lat[in_l2], "dram_cycles": lat[in_dram],
    }
    # Chapter 04's kernel 5 is the shape-aware launcher's 128 x 128 tile; the others are listed
    # under the launcher's name.
    k04 = kernels["04_2d_tiling"]
    names = {f"{k04['BM']}x{k04['BN']}": "tiling_2d_double_buffer"}
    names.update({f"{bm}x{bn}": f"tiling_2d_shape_aware {bm}x{bn}" for bm, bn in
                  (re.fullmatch(r"tiling_2d_shape_aware (\d+)x(\d+)", r["kernel"]).groups()
                   for r in resources if re.fullmatch(r"tiling_2d_shape_aware \d+x\d+", r["kernel"]))})
    ws = "wgmma_warp_specialized"
    c["resources"] = {"04 blocks per SM": {tile: resource(resources, k, "blocks_per_sm")
                                           for tile, k in names.items()},
                      ws: {"threads": resource(resources, ws, "threads"),
                           "smem_bytes": resource(resources, ws, "smem_bytes_per_block")}}
    # The Hopper pipeline's depth is chosen inside wgmma_ws.cu; the shared memory that
    # resources.csv lists for the kernel tells it (diagram_constants lists the bytes of each depth).
    hp, ws = kernels["hopper"], c["resources"]["wgmma_warp_specialized"]
    if ws["smem_bytes"] not in hp["smem_bytes_by_stages"]:
        sys.exit("diagrams.py: wgmma_warp_specialized's shared memory in resources.csv matches no "
                 "pipeline depth of hopper_tiles.cuh's SharedLayout")
    c["hopper"] = {"stages": hp["smem_bytes_by_stages"].index(ws["smem_bytes"]) + 1,
                   "consumers": ws["threads"] // kernels["hardware"]["warpgroup_threads"] - 1}
    # So is mma_sync_pipelined's (kStages, inside mma_pipelined.cu): its 128 x 256 kernel's shared
    # memory in resources.csv is that many stages of an A tile and a B tile.
    k06 = kernels["06_warp_tiling"]
    stage = (k06["BM"] + k06["BN"]) * k06["BK"] * FP16_BYTES
    smem = resource(resources, f"mma_sync_pipelined {k06['BM']}x{k06['BN']}",
                    "smem_bytes_per_block")
    if smem % stage:
        sys.exit(f"diagrams.py: mma_sync_pipelined's shared memory in resources.csv ({smem} bytes) "
                 f"is no whole number of {stage}-byte stages")
    c["pipelined"] = {"stages": smem // stage}
    c["budget"] = {k: {"chapter": next(r["chapter"] for r in resources if r["kernel"] == k),
                       "threads": resource(resources, k, "threads"),
                       "regs": resource(resources, k, "regs_per_thread"),
                       "smem": resource(resources, k, "smem_bytes_per_block"),
                       "blocks_per_sm": resource(resources, k, "blocks_per_sm")}
                   for k in BUDGET_KERNELS if any(r["kernel"] == k for r in resources)}
    sms = c["machine"]["sms"]
    c["results"] = {"waves": shape_aware_example(results, sms, c["resources"]),
                    "persistent_size": max(int(r["m"]) for r in results
                                           if r["variant"] == "wgmma_persistent"
                                           and r["m"] == r["n"] == r["k"])}
    return c


def shape_aware_example(results, sms, resources):
    """Chapter 04's shape-aware launcher at two square sizes (results.csv): the smallest at which
    its largest tile makes more than one wave, and the largest at which it chose something else (a
    smaller tile or split-K), with what it ran there."""
    rows = [r for r in results if r["variant"] == "tiling_2d_shape_aware" and
            r["m"] == r["n"] == r["k"] and r["note"].startswith("ran ") and
            int(r["m"]) & (int(r["m"]) - 1) == 0]
    plans = {}
    for r in rows:
        plans.setdefault(int(r["m"]), r["note"][4:])
    largest = max(plans, key=lambda s: tuple(int(x) for x in plans[s].split(",")[0].split("x")))
    tile = plans[largest].split(",")[0]  # the largest tile the launcher runs: "128x256"
    bm, bn, _ = plan(tile)
    per_wave = sms * resources["04 blocks per SM"][tile]
    full = min(s for s in plans if plans[s] == tile and (s // bm) * (s // bn) > per_wave)
    other = max(s for s in plans if plans[s] != tile)
    return {"tile": tile, "full_size": full, "small_size": other, "small_plan": plans[other]}


def run_program(path):
    out = subprocess.run([str(path)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"diagrams.py: {path} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def plan(text):
    """'128x128, split-K 2' -> (128, 128, 2)."""
    m = re.fullmatch(r"(\d+)x(\d+)(?:, split-K (\d+))?", text)
    if not m:
        sys.exit(f"diagrams.py: cannot read the launch plan '{text}' from results.csv")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)


# ---- Drawing helpers ----------------------------------------------------------------------------
# Each picture is drawn on one axis in "cell" units, with y growing downwards (rows go down).

def tint(color, amount):
    """color ("#RRGGBB") blended with white: amount 0 is white, 1 the colour itself. Plain Python:
    module-level colours are tinted even where matplotlib is missing (--check, --list)."""
    r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return (1 - amount * (1 - r), 1 - amount * (1 - g), 1 - amount * (1 - b))


def canvas(width, height, xlim, ylim, title=None, equal=True):
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes([0.01, 0.01, 0.98, 1 - 0.42 / height if title else 0.98])
    ax.set_xlim(*xlim)
    ax.set_ylim(ylim[1], ylim[0])  # rows go down
    if equal:
        ax.set_aspect("equal")
    ax.axis("off")
    if title:
        fig.suptitle(title, y=1 - 0.1 / height, va="top")
    return fig, ax


def rect(ax, x, y, w, h, fc="none", ec="black", lw=1.0, text=None, fs=FONT, tc="black",
         hatch=None, alpha=1.0, z=1, **kw):
    ax.add_patch(patches.Rectangle((x, y), w, h, facecolor=fc, edgecolor=ec, linewidth=lw,
                                   hatch=hatch, alpha=alpha, zorder=z))
    if text is not None:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fs, color=tc,
                zorder=z + 1, **kw)


def grid(ax, x, y, rows, cols, size=1.0, fc="none", ec="black", lw=0.4, z=1):
    """rows x cols cells of `size`, their top left at (x, y); fc may be a function (r, c)."""
    for r in range(rows):
        for c in range(cols):
            color = fc(r, c) if callable(fc) else fc
            ax.add_patch(patches.Rectangle((x + c * size, y + r * size), size, size,
                                           facecolor=color, edgecolor=ec, linewidth=lw, zorder=z))


def arrow(ax, start, end, text=None, color="black", fs=FONT, rad=0.0, lw=1.2, offset=(0, 0),
          ha="center", va="center"):
    ax.annotate("", xy=end, xytext=start, zorder=5,
                arrowprops=dict(arrowstyle="-|>", color=color, lw=lw,
                                connectionstyle=f"arc3,rad={rad}", shrinkA=2, shrinkB=2))
    if text:
        ax.text((start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1], text,
                ha=ha, va=va, fontsize=fs, color=color, zorder=6)


def label(ax, x, y, text, fs=FONT, ha="center", va="center", color="black", **kw):
    ax.text(x, y, text, ha=ha, va=va, fontsize=fs, color=color, zorder=6, **kw)


def brace(ax, x0, x1, y, text, fs=SMALL, below=False):
    """A dimension line from x0 to x1 at height y, with its text above (or below)."""
    ax.annotate("", xy=(x1, y), xytext=(x0, y),
                arrowprops=dict(arrowstyle="<->", lw=0.8, shrinkA=0, shrinkB=0))
    label(ax, (x0 + x1) / 2, y + (0.45 if below else -0.45), text, fs=fs)


def vbrace(ax, x, y0, y1, text, fs=SMALL, right=False):
    ax.annotate("", xy=(x, y1), xytext=(x, y0),
                arrowprops=dict(arrowstyle="<->", lw=0.8, shrinkA=0, shrinkB=0))
    label(ax, x + (0.35 if right else -0.35), (y0 + y1) / 2, text, fs=fs,
          ha="left" if right else "right")


def save(fig, out, name, written):
    # No "Software" entry: a redraw with another matplotlib version then differs only where the
    # pixels do.
    fig.savefig(out / name, dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    written.append(name)


def save_gif(fig, update, frames, out, name, written, fps=1):
    anim = animation.FuncAnimation(fig, update, frames=frames, interval=1000 / fps)
    anim.save(out / name, writer=animation.PillowWriter(fps=fps), dpi=DPI)
    plt.close(fig)
    written.append(name)


def tb(gbs):
    return f"{gbs / 1000:.1f} TB/s"


# ---- docs/memory_hierarchy.md --------------------------------------------------------------------

def memory_hierarchy(c, out, written):
    m = c["machine"]
    fig, ax = canvas(WIDTH, 5.4, (0, 90), (0, 54),
                     f"The memory hierarchy of the {m['device']}, as machine_probe measured it")
    # Neutral colours for the levels: orange, sky blue and green mean A, B and C elsewhere.
    reg, smem, l2, dram = (tint(OKABE_ITO["yellow"], 0.45), tint(OKABE_ITO["blue"], 0.22),
                           tint(OKABE_ITO["reddish purple"], 0.3), tint(WAIT, 0.35))
    sm_w, sm_h, top = 21, 18, 1
    sm_x = (1, 23.5, 49)  # SM 0, SM 1, then a gap for the ellipsis, then the last SM
    for i, x in enumerate(sm_x):
        rect(ax, x, top, sm_w, sm_h, fc=tint(WAIT, 0.1), lw=1.2)
        label(ax, x + sm_w / 2, top + 1.7, f"SM {i if i < 2 else m['sms'] - 1}", weight="bold")
        rect(ax, x + 1, top + 3.3, sm_w - 2, 4.5, fc=reg,
             text=f"registers: {m['registers_kb']:.0f} KB", fs=SMALL)
        rect(ax, x + 1, top + 8.8, sm_w - 2, 8.2, fc=smem,
             text=f"shared memory\nup to {m['shared_kb']:.0f} KB, {m['shared_cycles']:.0f} cycles"
                  f"\n\nL1 cache: {m['l1_cycles']:.0f} cycles", fs=SMALL)
    label(ax, 46.75, top + sm_h / 2, "...", fs=16)
    label(ax, 81, top + 5, f"{m['sms']} SMs, each with\nits own registers,\nshared memory "
          "and L1", fs=SMALL)
    label(ax, 81, top + 14, f"shared memory of\nall SMs together:\n{tb(m['shared_gbs'])} (read)",
          fs=SMALL)
    l2_y, dram_y, box_h = 27, 43, 7.5
    rect(ax, 1, l2_y, 88, box_h, fc=l2, lw=1.2,
         text=f"L2 cache: {m['l2_mb']:.0f} MiB, shared by all {m['sms']} SMs\n"
              f"load latency {m['l2_cycles']:.0f} cycles")
    rect(ax, 1, dram_y, 88, box_h, fc=dram, lw=1.2,
         text=f"DRAM (global memory): {m['dram_gb']:.0f} GiB\nload latency {m['dram_cycles']:.0f} cycles")
    for x in (sx + sm_w / 2 for sx in sm_x):
        arrow(ax, (x, l2_y), (x, top + sm_h), lw=1.5)
    label(ax, 70, (top + sm_h + l2_y) / 2, f"L2 -> SMs:\n{tb(m['l2_gbs'])} (read)", ha="left")
    arrow(ax, (45, dram_y), (45, l2_y + box_h), lw=2.5)
    label(ax, 47, (l2_y + box_h + dram_y) / 2, f"DRAM -> L2: {tb(m['dram_gbs'])} (read)",
          ha="left")
    label(ax, 1, 52.8, "Latency: one load that depends on the last, in SM cycles (clock64; it "
          "includes the instruction that forms the next address).\nFrom docs/figures/machine.csv "
          f"(commit {m['commit']}).",
          fs=SMALL, ha="left")
    save(fig, out, "memory_hierarchy.png", written)


# ---- 00_cpu_reference ---------------------------------------------------------------------------

def cpu_loop_order(c, out, written):
    """Step 3: the cache lines that 16 steps of the innermost loop touch, i-j-k and i-k-j."""
    k00 = c["kernels"]["00_cpu_reference"]
    L = k00["cache_line_bytes"] // 4  # floats per cache line
    M, K, N = 6, L, 2 * L  # a small problem: rows of A one line long, rows of B two
    steps = L
    cell = 0.3
    gap = 1.2
    pw = (K + N) * cell + gap + 1.5  # one panel's width
    fig, ax = canvas(WIDTH, 3.8, (-1.2, 2 * pw + 0.5), (-2.2, (K + M) * cell + gap + 2.1),
                     f"00, step 3: {steps} steps of the innermost loop, and the {L * 4}-byte cache "
                     "lines they touch")
    i, j, k = 2, 5, 3  # the fixed indices of the two outer loops
    orders = [("i-j-k (steps 1 and 2): k innermost",
               {"A": [(i, kk) for kk in range(steps)], "B": [(kk, j) for kk in range(steps)],
                "C": [(i, j)]}),
              ("i-k-j (step 3): j innermost",
               {"A": [(i, k)], "B": [(k, jj) for jj in range(steps)],
                "C": [(i, jj) for jj in range(steps)]})]
    for n, (title, touched) in enumerate(orders):
        x0 = n * pw
        places = {"A": (x0, K * cell + gap, M, K, A_COLOR),
                  "B": (x0 + K * cell + gap, 0, K, N, B_COLOR),
                  "C": (x0 + K * cell + gap, K * cell + gap, M, N, C_COLOR)}
        lines = 0
        for name, (x, y, rows, cols, color) in places.items():
            hit = set(touched[name])
            hot = {(r, q // L) for r, q in hit}  # the cache lines they lie in
            lines += len(hot)
            for r in range(rows):
                for q in range(cols // L):
                    rect(ax, x + q * L * cell, y + r * cell, L * cell, cell,
                         fc=tint(color, 0.45) if (r, q) in hot else "white", lw=0.8, z=2)
            for r, q in hit:
                rect(ax, x + q * cell, y + r * cell, cell, cell, fc=color, ec="black", lw=0.4,
                     z=3)
            label(ax, x - 0.25 if name != "B" else x + cols * cell / 2,
                  y + rows * cell / 2 if name != "B" else y - 0.35, name, weight="bold",
                  ha="right" if name != "B" else "center", fs=SMALL)
        used = len(touched["B"])
        b_lines = len({(r, q // L) for r, q in touched["B"]})
        label(ax, x0 + (K + N) * cell / 2 + gap / 2, -1.5, title, weight="bold", fs=SMALL)
        label(ax, x0, (K + M) * cell + gap + 0.5,
              f"{lines} cache lines for {steps} steps; B: {used} floats from {b_lines} "
              f"line{'s' if b_lines > 1 else ''}", fs=SMALL, ha="left", va="top")
    label(ax, -1.1, (K + M) * cell + gap + 1.6,
          f"Rectangle: a {L * 4}-byte cache line ({L} floats); shaded: a line the loop touches; "
          "dark: the floats it uses. The j steps of i-k-j are independent: SIMD.",
          fs=7.5, ha="left", va="top")
    save(fig, out, "00_loop_order.png", written)


def cpu_cache_blocking(c, out, written):
    """Step 4: a BK x BN tile of B is used by BM rows of C while it is still in cache."""
    k00 = c["kernels"]["00_cpu_reference"]
    BM, BN, BK = k00["BM"], k00["BN"], k00["BK"]
    size = 2 * BN  # the problem drawn, to scale: small enough that a tile shows
    u = 16  # floats per drawing unit
    n = size / u
    gap = 4.0
    fig, ax = canvas(WIDTH, 5.0, (-30, 2 * n + gap + 56), (-3.0, 2 * n + gap + 9),
                     f"00, step 4: cache blocking: a {BK} x {BN} tile of B serves {BM} rows of C")
    xa, yb, xb, yc = 0, 0, n + gap, n + gap
    i0, j0, k0 = 5 * BM, 1 * BN, 3 * BK  # the tile the picture follows

    def tiled(x, y, rows, cols, color):
        rect(ax, x, y, n, n, fc=tint(color, 0.15), lw=0.8)
        for r in range(0, size, rows if rows < size else size):
            ax.plot([x, x + n], [y + r / u, y + r / u], color="grey", lw=0.3, zorder=2)
        for q in range(0, size, cols if cols < size else size):
            ax.plot([x + q / u, x + q / u], [y, y + n], color="grey", lw=0.3, zorder=2)
    tiled(xa, yc, BM, BK, A_COLOR)
    tiled(xb, yb, BK, BN, B_COLOR)
    tiled(xb, yc, BM, BN, C_COLOR)
    rect(ax, xa, yc, n, n, lw=0.8, z=3)
    rect(ax, xb, yb, n, n, lw=0.8, z=3)
    rect(ax, xb, yc, n, n, lw=0.8, z=3)
    label(ax, xa - 1.0, yc + n / 2, f"A, {size} x {size}:\npieces of\n{BM} x {BK}", fs=SMALL,
          weight="bold", ha="right")
    label(ax, xb - 1.0, yb + n / 2, f"B, {size} x {size}:\ntiles of\n{BK} x {BN}", fs=SMALL,
          weight="bold", ha="right")
    label(ax, xb + n / 2, yc + n + 2.0, f"C, {size} x {size}: tiles of {BM} x {BN}", fs=SMALL,
          weight="bold")
    rect(ax, xa + k0 / u, yc + i0 / u, BK / u, BM / u, fc=A_COLOR, lw=0.8, z=4)
    rect(ax, xb + j0 / u, yb + k0 / u, BN / u, BK / u, fc=B_COLOR, lw=0.8, z=4)
    rect(ax, xb + j0 / u, yc + i0 / u, BN / u, BM / u, fc=tint(C_COLOR, 0.6), lw=0.8, z=4)
    rect(ax, xb + j0 / u, yc + i0 / u + 1, BN / u, 0.6, fc=C_COLOR, lw=0.5, z=5)
    b_kib, c_kib = BK * BN * 4 // 1024, BN * 4 // 1024
    a_kib = BM * BK * 4 // 1024
    x = 2 * n + gap + 2.5
    label(ax, x, 1.0,
          f"B tile: {BK} x {BN} floats = {b_kib} KiB.\nIt stays in L2 while the {BM} rows of C\n"
          f"beside it use it: {BM} uses of each\nfloat per fetch from DRAM. In step 3\n"
          "every row of C streams through all\nof B, and a B larger than the caches\n"
          "comes from DRAM once per row.", fs=SMALL, ha="left", va="top")
    label(ax, x, yc + 1.0,
          f"A piece: {BM} x {BK} floats = {a_kib} KiB.\n\nC tile: {BM} x {BN}, one row at a "
          f"time:\nthe dark row segment, {BN} floats\n= {c_kib} KiB, stays in L1 while the "
          f"{BK}\nsteps of k add into it (step 3's\ni-k-j inner loop).",
          fs=SMALL, ha="left", va="top")
    label(ax, -29.5, 2 * n + gap + 6.0, f"Drawn to scale for {size}^3. Loops: row blocks of C, "
          "column blocks, then k blocks; inside, step 3's loop on the tile. Edge tiles are cut "
          "short: any M, N, K.", fs=7.5, ha="left", va="top")
    save(fig, out, "00_cache_blocking.png", written)


# ---- 01_naive ----------------------------------------------------------------------------------

def naive_thread_map(c, out, written):
    k = c["kernels"]["01_naive"]
    bx, by = k["block_x"], k["block_y"]
    warp = c["kernels"]["hardware"]["warp"]
    blocks_x, blocks_y = 2, 2  # a corner of C: 2 x 2 blocks
    tx, ty, bidx = 5, 2, (1, 1)  # the thread the picture follows
    w, h = blocks_x * bx, blocks_y * by
    fig, ax = canvas(WIDTH, WIDTH * (h + 14) / (w + 26), (-9, w + 17), (-7, h + 7),
                     "01: one thread per element of C (a corner of C, cell = one element)")

    def fill(r, cc):
        b = (cc // bx + r // by) % 2
        return tint(C_COLOR, 0.18 if b else 0.38)
    grid(ax, 0, 0, h, w, fc=fill, ec="white", lw=0.6)
    for i in range(blocks_x + 1):
        ax.plot([i * bx, i * bx], [0, h], color="black", lw=1.4, zorder=3)
    for j in range(blocks_y + 1):
        ax.plot([0, w], [j * by, j * by], color="black", lw=1.4, zorder=3)
    for i in range(blocks_x):
        label(ax, i * bx + bx / 2, -3.6, f"blockIdx.x = {i}: columns {i * bx}-{i * bx + bx - 1}")
    for j in range(blocks_y):
        label(ax, -0.6, j * by + by / 2, f"blockIdx.y = {j}\nrows {j * by}-{j * by + by - 1}",
              ha="right", fs=SMALL)
    for t in range(0, bx, 8):
        label(ax, t + 0.5, -1.2, str(t), fs=7)
    label(ax, bx + 0.5, -1.2, "0", fs=7)
    label(ax, bx / 2, -2.2, "threadIdx.x", fs=7)
    row, col = bidx[1] * by + ty, bidx[0] * bx + tx
    # The warp of the thread: 32 consecutive threadIdx.x, one row of the block.
    rect(ax, bidx[0] * bx, row, warp, 1, ec=SECOND, lw=2.2, z=4)
    rect(ax, col, row, 1, 1, fc=HIGHLIGHT, ec="black", lw=0.8, z=5)
    arrow(ax, (col + 0.5, h + 3.4), (col + 0.5, row + 1.1), color=HIGHLIGHT)
    label(ax, 2, h + 4.3, f"blockIdx ({bidx[0]}, {bidx[1]}), threadIdx ({tx}, {ty}) computes "
          f"C[{bidx[1]} x {by} + {ty}][{bidx[0]} x {bx} + {tx}] = C[{row}][{col}]",
          color=HIGHLIGHT, ha="left")
    label(ax, w + 0.5, row + 0.5, f"its warp: threadIdx.y = {ty},\nthreadIdx.x = 0-{warp - 1}",
          color=SECOND, ha="left", fs=SMALL)
    label(ax, w + 0.5, 2.5, f"a block:\n{bx} x {by} threads\n= {bx * by // warp} warps",
          ha="left", fs=SMALL)
    save(fig, out, "01_thread_map.png", written)


def naive_coalescing(c, out, written):
    hw = c["kernels"]["hardware"]
    warp, per_sector = hw["warp"], hw["sector_bytes"] // 4  # floats per sector
    cols_b, rows_a, cols_a, k = warp + 2 * per_sector, warp, 2 * per_sector, per_sector + 3
    left_w = cols_b
    x_a = left_w + 8
    fig, ax = canvas(WIDTH, 4.9, (-2, x_a + cols_a + 12), (-6, rows_a + 5),
                     "01: the addresses of one warp's load, and the 32-byte sectors they touch")
    # Coalesced: lane i reads B[k][col0 + i] (three rows of B shown).
    y_b = 12
    grid(ax, 0, y_b, 3, cols_b, fc=lambda r, cc: B_COLOR if r == 1 and per_sector <= cc <
         per_sector + warp else tint(B_COLOR, 0.15), ec="white", lw=0.5)
    for s in range(cols_b // per_sector):
        hit = 1 <= s <= warp // per_sector
        rect(ax, s * per_sector, y_b + 1, per_sector, 1, ec=HIGHLIGHT if hit else "black",
             lw=2 if hit else 0.5, z=3)
    label(ax, -0.4, y_b + 1.5, "B[k]", ha="right", fs=SMALL)
    label(ax, cols_b / 2, y_b - 4.5, "naive_coalesced: lane i loads B[k][col + i]", weight="bold")
    brace(ax, per_sector, per_sector + warp, y_b - 1.3, f"lanes 0-{warp - 1}: {warp} consecutive "
          "floats")
    label(ax, cols_b / 2, y_b + 5.2, f"{warp // per_sector} sectors ({warp * 4} bytes), every "
          f"byte used\n(A[row][k]: one address for the whole warp)", color=HIGHLIGHT)
    # Uncoalesced: lane i reads A[row + i][k]: 32 rows, K floats apart.
    grid(ax, x_a, 0, rows_a, cols_a,
         fc=lambda r, cc: A_COLOR if cc == k else tint(A_COLOR, 0.15), ec="white", lw=0.5)
    for r in range(rows_a):
        rect(ax, x_a + (k // per_sector) * per_sector, r, per_sector, 1, ec=HIGHLIGHT, lw=1.2, z=3)
    label(ax, x_a + cols_a / 2, -4.5, "naive_uncoalesced: lane i loads A[row + i][k]",
          weight="bold")
    label(ax, x_a + k + 0.5, -1.5, "k", fs=SMALL)
    vbrace(ax, x_a - 0.8, 0, rows_a, f"lanes\n0-{warp - 1}")
    label(ax, x_a + cols_a + 0.8, rows_a / 2, f"{warp} sectors\n({warp * per_sector * 4} bytes)"
          f"\nfor {warp * 4}\nuseful bytes", color=HIGHLIGHT, ha="left")
    label(ax, -1, rows_a + 3.2, f"Cell: one float; outlined: a {hw['sector_bytes']}-byte sector "
          "(the unit in which memory is read). Rows of A and B lie one after another in memory.",
          fs=SMALL, ha="left")
    save(fig, out, "01_coalescing.png", written)


# ---- 02_shared_tiling --------------------------------------------------------------------------

def shared_tiles_along_k(c, out, written):
    tile = c["kernels"]["02_shared_tiling"]["tile"]
    s = 3.0              # one TILE x TILE tile, drawn as s x s
    kt, mt, nt = 4, 3, 3  # the picture: K of 4 tiles, a C of 3 x 3 tiles
    phase, brow, bcol = 1, 1, 2  # the phase and the block the picture follows
    xa, yc, xs = 0.0, kt * s + 2.5, (kt + nt) * s + 7
    fig, ax = canvas(WIDTH, 5.6, (-4, xs + 2 * s + 12), (-3.5, yc + mt * s + 2.5),
                     f"02: a block walks along K one TILE x TILE tile at a time (TILE = {tile})")
    xc = xa + kt * s + 2.5
    # A (M x K), B (K x N), C (M x N): the block's strip light, this phase's tile dark.
    for r in range(mt):
        for q in range(kt):
            fc = A_COLOR if (r == brow and q == phase) else tint(A_COLOR, 0.45 if r == brow else 0.1)
            rect(ax, xa + q * s, yc + r * s, s, s, fc=fc, lw=0.6)
    for q in range(kt):
        for j in range(nt):
            fc = B_COLOR if (j == bcol and q == phase) else tint(B_COLOR, 0.45 if j == bcol else 0.1)
            rect(ax, xc + j * s, q * s, s, s, fc=fc, lw=0.6)
    for r in range(mt):
        for j in range(nt):
            rect(ax, xc + j * s, yc + r * s, s, s, lw=0.6,
                 fc=C_COLOR if (r, j) == (brow, bcol) else tint(C_COLOR, 0.1))
    for q in range(kt):
        label(ax, xa + q * s + s / 2, yc - 0.6, f"k0 = {q * tile}", fs=SMALL)
        label(ax, xc - 0.3, q * s + s / 2, f"k0 = {q * tile}", fs=SMALL, ha="right")
    label(ax, xa + kt * s / 2, yc + mt * s + 1.2, "A (M x K)", weight="bold")
    label(ax, xc + nt * s + 0.5, kt * s / 2, "B\n(K x N)", weight="bold", ha="left")
    label(ax, xc + nt * s / 2, yc + mt * s + 1.2, "C (M x N)", weight="bold")
    label(ax, xc + bcol * s + s / 2, yc + brow * s + s / 2, "this\nblock", fs=SMALL, color="white",
          weight="bold")
    # Shared memory: this phase's tiles.
    ys_b, ys_a = 1.0, yc + 0.5
    rect(ax, xs, ys_b, 2 * s, 2 * s, fc=B_COLOR, lw=1.2, text=f"Bs[{tile}][{tile}]", fs=SMALL)
    rect(ax, xs, ys_a, 2 * s, 2 * s, fc=A_COLOR, lw=1.2, text=f"As[{tile}][{tile}]", fs=SMALL)
    label(ax, xs + s, ys_b - 1.6, "shared memory", weight="bold")
    arrow(ax, (xc + bcol * s + s, phase * s + s / 2), (xs, ys_b + s), rad=-0.15)
    arrow(ax, (xa + phase * s + s / 2, yc + brow * s + s), (xs + s, ys_a + 2 * s), rad=0.35)
    arrow(ax, (xs, ys_a + 1.5 * s), (xc + bcol * s + s, yc + brow * s + s / 2))
    label(ax, xs + 2 * s + 0.8, (ys_b + ys_a + 2 * s) / 2,
          f"phase {phase} of {kt} (K = {kt} x {tile} here):\n\n{tile} x {tile} threads, each\n"
          f"copies one element of A\nand one of B, then adds\n{tile} products of As and Bs\n"
          "to its element of C", fs=SMALL, ha="left")
    save(fig, out, "02_tiles_along_k.png", written)


def shared_barriers(c, out, written):
    tile = c["kernels"]["02_shared_tiling"]["tile"]
    warps = tile * tile // c["kernels"]["hardware"]["warp"]
    # Four warps of the block; how long each takes differs, which is why the barriers are needed.
    shown = [0, 1, 2, warps - 1]
    load = [7.5, 11.0, 6.5, 9.0]
    math_ = [12.5, 10.5, 14.5, 11.5]
    b1 = max(load) + 1.0
    b2 = b1 + max(math_) + 1.0
    end = b2 + 11
    fig, ax = canvas(WIDTH, 3.3, (-9, end + 1), (-5.2, 2 * len(shown) + 2.6),
                     f"02: one phase of the {tile} x {tile} block on a timeline "
                     f"({warps} warps, four shown)")
    for i, (w, ld, mt) in enumerate(zip(shown, load, math_)):
        y = 2 * i + (0.6 if i == len(shown) - 1 else 0)
        label(ax, -0.5, y + 0.6, f"warp {w}", ha="right")
        rect(ax, 0, y, ld, 1.2, fc=tint(A_COLOR, 0.8), lw=0.6)
        rect(ax, ld, y, b1 - ld, 1.2, fc=tint(WAIT, 0.3), ec="none", hatch="///")
        rect(ax, b1, y, mt, 1.2, fc=tint(C_COLOR, 0.7), lw=0.6)
        rect(ax, b1 + mt, y, b2 - b1 - mt, 1.2, fc=tint(WAIT, 0.3), ec="none", hatch="///")
        rect(ax, b2, y, load[(i + 1) % 4] * 0.9, 1.2, fc=tint(A_COLOR, 0.8), lw=0.6)
    label(ax, -0.5, 2 * len(shown) - 2.6, "...", ha="right")
    label(ax, load[0] / 2, 0.6, "A, B -> As, Bs", fs=SMALL)
    label(ax, b1 + math_[0] / 2, 0.6, f"{tile} FMAs", fs=SMALL)
    label(ax, b2 + 4, 0.6, "next phase", fs=SMALL)
    ymax = 2 * len(shown) + 0.6
    for x, name, why, ha in (
            (b1, "barrier 1", "As and Bs are complete\nbefore anyone reads them ", "right"),
            (b2, "barrier 2", " everyone has read them\n before they are overwritten", "left")):
        ax.plot([x, x], [-2.6, ymax], color=HIGHLIGHT, lw=2.2, zorder=4)
        label(ax, x, -3.4, f"__syncthreads(): {name}\n{why}", fs=SMALL, color=HIGHLIGHT, ha=ha)
    rect(ax, 0, ymax + 0.6, 2.5, 0.9, fc=tint(WAIT, 0.3), ec="none", hatch="///")
    label(ax, 3.0, ymax + 1.05, "waiting at the barrier for the slowest warp", fs=SMALL, ha="left")
    save(fig, out, "02_barriers.png", written)


def ruled(ax, x, y, rows, cols, fc, ec="white", lw=0.4, every=1, z=1, outline="black",
          col_every=None):
    """A rows x cols block of cells: one filled rectangle with its grid lines every `every` rows
    and `col_every` (default: `every`) columns."""
    rect(ax, x, y, cols, rows, fc=fc, ec="none", z=z)
    for r in range(0, rows + 1, every):
        ax.plot([x, x + cols], [y + r, y + r], color=ec, lw=lw, zorder=z + 0.1)
    for q in range(0, cols + 1, col_every or every):
        ax.plot([x + q, x + q], [y, y + rows], color=ec, lw=lw, zorder=z + 0.1)
    rect(ax, x, y, cols, rows, ec=outline, lw=1.0, z=z + 0.2)


# ---- 03_thread_tiling --------------------------------------------------------------------------

def thread_column(c, out, written):
    t = c["kernels"]["03_thread_tiling"]
    BM, BN, BK, TM = t["BM"], t["BN"], t["BK"], t["TM"]
    band, col, k = 2, 60, 5  # the thread the picture follows, and one step k
    tid, row0 = band * BN + col, band * TM
    gap = 3
    xc, yc = BK + gap, BK + gap
    fig, ax = canvas(WIDTH, 6.0, (-6, xc + BN + 34), (-5, yc + BM + 2),
                     f"03: thread {tid} computes TM = {TM} elements of one column of C")
    ruled(ax, 0, yc, BM, BK, tint(A_COLOR, 0.25))
    ruled(ax, xc, 0, BK, BN, tint(B_COLOR, 0.25))
    ruled(ax, xc, yc, BM, BN, tint(C_COLOR, 0.15), every=TM, col_every=BN, ec="white", lw=0.8)
    for i in range(TM):
        rect(ax, k, yc + row0 + i, 1, 1, fc=A_COLOR, lw=0.5, z=3)
        rect(ax, xc + col, yc + row0 + i, 1, 1, fc=HIGHLIGHT, lw=0.5, z=3)
    rect(ax, xc + col, k, 1, 1, fc=B_COLOR, ec="black", lw=1.2, z=3)
    label(ax, BK / 2, yc + BM + 1.2, f"As [{BM}][{BK}]", weight="bold")
    label(ax, xc - 0.6, BK / 2, f"Bs\n[{BK}][{BN}]", weight="bold", ha="right")
    label(ax, xc + BN / 2, yc + BM + 1.2, f"the block's tile of C, {BM} x {BN}", weight="bold")
    label(ax, k + 0.5, yc - 0.9, "k", fs=SMALL)
    label(ax, xc + col + 0.5, -1.0, "col", fs=SMALL)
    # The register, and the TM uses of it.
    rx, ry = xc + BN + 6, yc + row0 - 8
    rect(ax, rx, ry, 6, 4, fc=B_COLOR, lw=1.2, text="b", fs=FONT, weight="bold")
    label(ax, rx + 7, ry + 2, "a register", fs=SMALL, ha="left")
    arrow(ax, (xc + col + 1, k + 0.5), (rx + 3, ry), rad=-0.25,
          text="b = Bs[k][col]:\none shared load", fs=SMALL, offset=(9, -4), ha="left")
    for i in range(0, TM, 2):
        arrow(ax, (rx, ry + 3), (xc + col + 1.1, yc + row0 + i + 0.5), lw=0.7, color=HIGHLIGHT)
    label(ax, rx - 2, yc + row0 + TM + 6,
          f"used {TM} times, one per row:\nacc[i] += As[row0 + i][k] * b\n"
          f"i = 0 .. {TM - 1}, row0 = {row0}", fs=SMALL, ha="left", color=HIGHLIGHT)
    label(ax, rx - 2, yc + BM - 8, f"per k: {TM} + 1 shared loads\nfor {TM} FMAs (chapter 02: "
          f"{2 * TM})", fs=SMALL, ha="left")
    save(fig, out, "03_thread_column.png", written)


def thread_block_map(c, out, written):
    t = c["kernels"]["03_thread_tiling"]
    BM, BN, TM, threads = t["BM"], t["BN"], t["TM"], t["threads"]
    warp = c["kernels"]["hardware"]["warp"]
    fig, ax = canvas(WIDTH, 5.0, (-18, BN + 44), (-6, BM + 3),
                     f"03: which thread owns which outputs ({threads} threads, "
                     f"{BM} x {BN} block tile)")
    shades = [tint(C_COLOR, 0.55), tint(C_COLOR, 0.25)]
    for band in range(BM // TM):
        for half in range(BN // warp):
            w = band * (BN // warp) + half
            rect(ax, half * warp, band * TM, warp, TM, fc=shades[(band + half) % 2], lw=0.6,
                 text=f"warp {w}: threads {w * warp}-{w * warp + warp - 1}", fs=SMALL)
        label(ax, -0.8, band * TM + TM / 2, f"rows {band * TM}-{band * TM + TM - 1}",
              ha="right", fs=SMALL)
    for q in range(0, BN + 1, 16):
        label(ax, min(q, BN - 1) + 0.5 if q < BN else BN - 0.5, -1.4, str(q if q < BN else BN - 1),
              fs=7)
    label(ax, BN / 2, -3.4, "column inside the tile", fs=SMALL)
    band, col = 2, 60  # as in 03_thread_column.png
    rect(ax, col, band * TM, 1, TM, fc=HIGHLIGHT, lw=0.6, z=4)
    tid = band * BN + col
    label(ax, BN + 2, TM * band + TM / 2, f"thread {tid}:\ncol = {tid} % {BN} = {col}\n"
          f"row0 = ({tid} / {BN}) x {TM} = {band * TM}", ha="left", fs=SMALL, color=HIGHLIGHT)
    label(ax, BN + 2, BM - 18,
          f"A warp: {warp} threads of one band of\n{TM} rows, on {warp} neighbouring "
          f"columns.\nPer k, its {warp} threads read\n- the same As[row0 + i][k]: a broadcast,"
          f"\n- {warp} consecutive floats of Bs[k]:\n  {warp} banks, no conflict",
          ha="left", fs=SMALL)
    save(fig, out, "03_block_map.png", written)


# ---- 04_2d_tiling ------------------------------------------------------------------------------

def outer_product(c, out, written):
    t = c["kernels"]["04_2d_tiling"]
    TM, TN = t["TM"], t["TN"]
    fig, ax = canvas(WIDTH, 4.2, (-7, TN + 17), (-3.4, TM + 0.8),
                     f"04: per k, a thread's {TM} x {TN} outputs are an outer product")
    x0, y0 = 2, 0
    pi, pj = 2, 5  # one product, followed
    for i in range(TM):
        rect(ax, x0 - 2, y0 + i, 1, 1, fc=A_COLOR, lw=1.6 if i == pi else 0.6, text=f"a{i}",
             fs=SMALL)
    for j in range(TN):
        rect(ax, x0 + j, y0 - 2, 1, 1, fc=B_COLOR, lw=1.6 if j == pj else 0.6, text=f"b{j}",
             fs=SMALL)
    for i in range(TM):
        for j in range(TN):
            rect(ax, x0 + j, y0 + i, 1, 1, fc=HIGHLIGHT if (i, j) == (pi, pj) else
                 tint(C_COLOR, 0.55), lw=0.6)
    ax.plot([x0 - 1, x0 + pj], [y0 + pi + 0.5] * 2, color="black", lw=0.8, ls=":", zorder=4)
    ax.plot([x0 + pj + 0.5] * 2, [y0 - 1, y0 + pi], color="black", lw=0.8, ls=":", zorder=4)
    label(ax, x0 + pj + 0.5, y0 + pi + 0.5, f"a{pi}b{pj}", fs=7, color="white")
    label(ax, x0 - 2.4, y0 + TM / 2, f"a[{TM}]: a\ncolumn of\nthe A tile",
          ha="right", fs=SMALL)
    label(ax, x0 + TN + 0.4, y0 - 1.5, f"b[{TN}]: a row of the B tile (Bs[k][...])", ha="left",
          fs=SMALL)
    label(ax, x0 + TN + 0.8, y0 + TM / 2,
          f"acc[i][j] += a[i] * b[j]\n\n{TM} + {TN} = {TM + TN} loads from shared\nmemory into "
          f"registers, then\n{TM} x {TN} = {TM * TN} FMAs on registers:\n"
          f"{TM * TN // (TM + TN)} FMAs per load.\n\nChapter 03's column of {TM}:\n"
          f"{TM + 1} loads for {TM} FMAs.", ha="left")
    save(fig, out, "04_outer_product.png", written)


def float4_alignment_04(c, out, written):
    """Section 2: which rows of a row-major fp32 matrix start on a 16-byte boundary, for a row
    length that is a multiple of 4 and one that is not, against the float4 loads of one B tile."""
    t = c["kernels"]["04_2d_tiling"]
    vb = t["float4_bytes"]          # a float4 load: 16 bytes, at an address that is a multiple of 16
    vec = vb // FP32_BYTES          # floats per float4
    rows = t["BK_1_3"]              # one block's B tile: BK rows of B (kernels 1-3)
    chunks = 3                      # the first 3 float4s of each row, drawn
    # Two row lengths: the reference run's 4096, and section 2's N = 4095 (one float short).
    widths = [(4096, "a multiple of 4"), (4095, "not a multiple of 4")]
    ph = rows + 3.4                 # one panel's height
    span = (vec - 1) + chunks * vec  # the widest a row can be drawn: shifted by up to vec - 1
    fig, ax = canvas(WIDTH, 6.4, (-13.5, span + 19.5), (-3.0, 2 * ph + 3.6),
                     f"04, section 2: which rows of a row-major fp32 matrix start on a "
                     f"{vb}-byte boundary", equal=False)
    for n, (N, what) in enumerate(widths):
        y0 = n * ph
        label(ax, -13.3, y0 - 1.6, f"N = {N} ({what}): row r starts {FP32_BYTES} x {N} x r "
              f"bytes after row 0", ha="left", weight="bold")
        for b in range(0, span + 2, vec):  # the 16-byte boundaries of memory
            ax.plot([b, b], [y0 - 0.35, y0 + rows + 0.15], color=WAIT, lw=0.9, ls="--", zorder=4)
        bad = 0
        for r in range(rows):
            start = FP32_BYTES * N * r
            off = start % vb
            sh = off // FP32_BYTES   # where the row's first float lies inside its 16 bytes
            ok = off == 0
            bad += not ok
            for q in range(chunks):
                x = sh + q * vec
                rect(ax, x, y0 + r + 0.08, vec, 0.84, fc=tint(B_COLOR, 0.55) if ok else
                     tint(HIGHLIGHT, 0.3), ec="black" if ok else HIGHLIGHT,
                     lw=1.4 if ok else 2.0, z=2)
                for e in range(vec):
                    label(ax, x + e + 0.5, y0 + r + 0.5, str(q * vec + e), fs=6.5)
            label(ax, -0.4, y0 + r + 0.5, f"row {r}: byte {start:,}", fs=7.5, ha="right")
            label(ax, span + 1.6, y0 + r + 0.5,
                  f"{start:,} % {vb} = 0: float4 loads fine" if ok else
                  f"{start:,} % {vb} = {off}: misaligned", fs=7.5, ha="left",
                  color="black" if ok else HIGHLIGHT)
        vbrace(ax, -8.6, y0, y0 + rows, f"one\nblock's\nB tile:\nBK = {rows}\nrows", fs=7)
        verdict = (f"all {rows} rows start on a {vb}-byte boundary" if not bad else
                   f"{bad} rows in {rows} do not: a float4 there stops the kernel "
                   "(misaligned address)")
        label(ax, 0, y0 + rows + 0.75, verdict, fs=SMALL, ha="left",
              color="black" if not bad else HIGHLIGHT, weight="bold")
    # Does every block's tile (any `rows` consecutive rows) hold a misaligned row?
    N = widths[1][0]
    every = all(any(FP32_BYTES * N * (r0 + r) % vb for r in range(rows)) for r0 in range(vb))
    label(ax, -13.3, 2 * ph - 0.2,
          f"Cell: one float, number = column; box: one float4 (columns c .. c+{vec - 1}); "
          f"dashed: {vb}-byte boundaries of memory. A float4 at\nB + {FP32_BYTES} (r N + c) needs "
          f"B % {vb} = 0, c % {vec} = 0 (the tile maps' chunks) and, for every row r, "
          f"N % {vec} = 0 (K % {vec} for A).\nOne kernel runs every block" +
          (f", and at N = {N} every block's tile has misaligned rows" if every else "") +
          ": so the launcher checks\nN, K and the pointers once (float4_ok) and runs float4 "
          "loads everywhere (VEC = true) or nowhere (VEC = false).", fs=SMALL, ha="left",
          va="top")
    save(fig, out, "04_float4_alignment.png", written)


def bank_model_04(c, out, written):
    """Section 3: the banks of one warp's LDS.128 of the A tile, kernels 1-2 (As[BM][BK], nvcc's
    merged read along k) against kernel 3 (As[BK][BM + PAD]), by the section's model."""
    t = c["kernels"]["04_2d_tiling"]
    hw = c["kernels"]["hardware"]
    banks, bb, warp = hw["banks"], hw["bank_bytes"], hw["warp"]
    BM, BN, BK, TM, TN, PAD = (t["BM_1_3"], t["BN_1_3"], t["BK_1_3"], t["TM"], t["TN"],
                               t["PAD_1_3"])
    vec = 16 // bb                 # the words of one LDS.128
    per_row = BN // TN             # threads per ty: lane l of warp 0 has ty = l / 16, tx = l % 16
    tys = sorted({l // per_row for l in range(warp)})
    lanes = {ty: [l for l in range(warp) if l // per_row == ty] for ty in tys}
    lines = 4                      # 128-byte lines of shared memory drawn
    # What each ty's 16 lanes read with one LDS.128 of A (warp 0), as tiling_2d.cu
    # indexes As: kernels 1-2, As[ty * TM + i][k .. k+3] at i = 0, k = 0 (the four k that nvcc
    # merges); kernel 3, As[k][ty * TM + 4q .. +3] at k = 0, q = 0. (row, first column, row length)
    cases = [(f"kernels 1-2: As[{BM}][{BK}], as in A", {ty: (ty * TM, 0) for ty in tys}, BK,
              "row", "col"),
             (f"kernel 3: As[{BK}][{BM} + {PAD}], transposed", {ty: (0, ty * TM) for ty in tys},
              BM + PAD, "k", "m")]
    ph = lines + 4.5
    fig, ax = canvas(WIDTH, 5.3, (-7.6, banks + 0.4), (-2.6, 2 * ph + 1.0),
                     "04, section 3, the model: one warp's LDS.128 of the A tile, bank by bank")
    for n, (name, first, ld, rname, cname) in enumerate(cases):
        y0 = n * ph
        words = {ty: set(range(r * ld + q, r * ld + q + vec)) for ty, (r, q) in first.items()}
        for line in range(lines):
            for b in range(banks):
                w = line * banks + b
                hit = any(w in words[ty] for ty in tys)
                rect(ax, b, y0 + line, 1, 1, fc=A_COLOR if hit else
                     tint(A_COLOR, 0.1 + 0.15 * ((w // ld) % 2)), ec=tint(WAIT, 0.6), lw=0.3)
            w0, w1 = line * banks, (line + 1) * banks - 1
            if ld <= banks:  # whole rows of As in a line
                text = f"{rname}s {w0 // ld}-{w1 // ld}"
            else:
                text = f"{rname} {w0 // ld}, {cname} {w0 % ld}-{w1 % ld}"
            label(ax, -0.3, y0 + line + 0.5, text, fs=7, ha="right")
            if ld <= banks:  # each row of As: ld words
                for r in range(w0 // ld, w1 // ld + 1):  # beside a float4 read, if there is one
                    read = any(r * ld in words[ty] for ty in tys)
                    label(ax, r * ld - w0 + (vec + ld) / 2 if read else r * ld - w0 + ld / 2,
                          y0 + line + 0.5, f"row {r}", fs=6.5, color=WAIT)
        for ty in tys:
            r, q = first[ty]
            w = r * ld + q
            label(ax, w % banks + vec / 2, y0 + w // banks + 0.5, f"{lanes[ty][0]}-"
                  f"{lanes[ty][-1]}", fs=7, color="white", weight="bold")
        for b in range(0, banks, 8):
            label(ax, b + 0.5, y0 - 0.45, str(b), fs=7)
        reads = " and ".join(f"lanes {lanes[ty][0]}-{lanes[ty][-1]} (ty {ty}) As[{first[ty][0]}]"
                             f"[{first[ty][1]} .. {first[ty][1] + vec - 1}]" for ty in tys)
        label(ax, 0, y0 - 1.9, f"{name}: {reads}", fs=SMALL, ha="left", weight="bold")
        use = {}
        for ty in tys:
            for w in words[ty]:
                use.setdefault(w % banks, set()).add(w)
        passes = max(len(v) for v in use.values())
        held = sorted(use)
        apart = (first[tys[1]][0] - first[tys[0]][0]) * ld + first[tys[1]][1] - first[tys[0]][1]
        where = ("the same banks" if passes > 1 else
                 f"banks {held[0]}-{held[vec - 1]} and {held[vec]}-{held[-1]}")
        label(ax, banks / 2, y0 + lines + 0.8,
              f"two float4s {apart} words apart, on {where}: " +
              (f"{passes} wavefronts ({passes}-way conflict)" if passes > 1 else "1 wavefront"),
              fs=SMALL, weight="bold", color=HIGHLIGHT if passes > 1 else "black")
    label(ax, -7.4, 2 * ph - 1.6,
          f"Cell: a {bb}-byte word; a line of cells: 128 bytes, banks 0-{banks - 1}; dark: the two "
          f"float4s the warp reads (number = lanes:\n{per_row} lanes share each one, a broadcast). "
          "The model: the 32-bit bank rule applied to 16-byte reads, as section 3\nstates it; "
          "Nsight Compute's counts, beside it in the text, are the measurement.",
          fs=SMALL, ha="left", va="top")
    save(fig, out, "04_bank_model.png", written)


def tile_hierarchy_04(c, out, written):
    t = c["kernels"]["04_2d_tiling"]
    BM, BN, WM, WN = t["BM"], t["BN"], t["WM"], t["WN"]
    TM, TN, sm, sn = t["warp_TM"], t["warp_TN"], t["stride_m"], t["stride_n"]
    lm_n, ln_n, wn_n = t["lanes_m"], t["lanes_n"], t["warps_n"]
    warp, lane = 3, 10  # the warp and the lane the picture follows
    lm, ln = lane // ln_n, lane % ln_n
    s1 = 4.0   # panel 1: elements per unit
    s2 = 1.0   # panel 2
    x2 = BN / s1 + 6
    x3 = x2 + WN / s2 + 8
    h = max(BM / s1, WM / s2)
    fig, ax = canvas(WIDTH, 4.2, (-2, x3 + 22), (-5, h + 7),
                     "04: block tile, warp tile, thread tile (kernels 4 and 5)")
    # 1. The block tile and its warps.
    for w in range(t["warps_m"] * wn_n):
        r, q = w // wn_n, w % wn_n
        rect(ax, q * WN / s1, r * WM / s1, WN / s1, WM / s1, lw=0.8,
             fc=HIGHLIGHT if w == warp else tint(C_COLOR, 0.3 + 0.25 * ((r + q) % 2)),
             text=f"warp {w}", fs=SMALL, tc="white" if w == warp else "black")
    label(ax, BN / s1 / 2, -2.5, f"block tile {BM} x {BN}\n{t['threads']} threads", fs=SMALL)
    label(ax, BN / s1 / 2, BM / s1 + 2, f"{t['warps_m']} x {wn_n} warps of {WM} x {WN}",
          fs=SMALL)
    # 2. The warp tile: 2 x 2 sub-tiles, each a lanes_m x lanes_n grid of 4 x 4 sub-blocks.
    for i in range(WM // 4):
        for j in range(WN // 4):
            l = (i % lm_n) * ln_n + (j % ln_n)
            mine = l == lane
            rect(ax, x2 + j * 4 / s2, i * 4 / s2, 4 / s2, 4 / s2, lw=0.3,
                 fc=HIGHLIGHT if mine else tint(C_COLOR, 0.25 + 0.3 * ((i // lm_n + j // ln_n) % 2)),
                 text=str(l), fs=6.5, tc="white" if mine else "black")
    for i in range(0, WM + 1, sm):
        ax.plot([x2, x2 + WN / s2], [i / s2, i / s2], color="black", lw=1.4, zorder=3)
    for j in range(0, WN + 1, sn):
        ax.plot([x2 + j / s2, x2 + j / s2], [0, WM / s2], color="black", lw=1.4, zorder=3)
    label(ax, x2 + WN / s2 / 2, -2.5, f"warp {warp}'s tile, {WM} x {WN}: cell = 4 x 4 outputs,"
          " number = lane", fs=SMALL)
    label(ax, x2 + WN / s2 / 2, WM / s2 + 2.6,
          f"2 x 2 sub-tiles of {sm} x {sn}; in each, the 32 lanes\nas a {lm_n} x {ln_n} grid: "
          f"lane = {ln_n} x (row) + (column)", fs=SMALL)
    arrow(ax, (BN / s1 + 0.3, 1.5 * WM / s1), (x2 - 0.3, WM / s2 / 2), color=HIGHLIGHT)
    # 3. The lane's thread tile.
    cell = 1.5
    for i in range(TM):
        for j in range(TN):
            rect(ax, x3 + j * cell, i * cell, cell, cell, fc=HIGHLIGHT, ec="white", lw=0.5)
    ax.plot([x3, x3 + TN * cell], [TM / 2 * cell] * 2, color="black", lw=1.4, zorder=3)
    ax.plot([x3 + TN / 2 * cell] * 2, [0, TM * cell], color="black", lw=1.4, zorder=3)
    rect(ax, x3, 0, TN * cell, TM * cell, lw=1.2, z=3)
    label(ax, x3 + TN * cell / 2, -2.5, f"lane {lane}: {TM} x {TN} outputs", fs=SMALL)
    label(ax, x3 - 1, TM * cell + 1.2, va="top", text=
          f"rows {lm * 4}-{lm * 4 + 3} and {lm * 4 + sm}-{lm * 4 + sm + 3},\ncolumns {ln * 4}-"
          f"{ln * 4 + 3} and {ln * 4 + sn}-{ln * 4 + sn + 3}\nof the warp tile: 2 x 2\n"
          "sub-blocks of 4 x 4", fs=SMALL, ha="left")
    arrow(ax, (x2 + WN / s2 + 0.3, WM / s2 / 2), (x3 - 0.3, TM * cell / 2), color=HIGHLIGHT)
    save(fig, out, "04_tile_hierarchy.png", written)


def double_buffer(c, out, written):
    t = c["kernels"]["04_2d_tiling"]
    BK = t["BK"]
    steps, w, pro = 4, 12.0, 7.0
    rows = ["registers", "stage 0", "stage 1"]
    end = pro + steps * w
    fig, ax = canvas(WIDTH, 3.4, (-9, end + 1), (-4.5, 3 * len(rows) + 3.6),
                     f"04: double buffering (kernel 5): two shared-memory stages, BK = {BK}, "
                     "one barrier per step", equal=False)
    ld, comp, st = tint(A_COLOR, 0.75), tint(C_COLOR, 0.7), tint(B_COLOR, 0.85)
    for i, name in enumerate(rows):
        label(ax, -0.6, 3 * i + 1, name, ha="right")
    rect(ax, 0.3, 0, pro * 0.55, 2, fc=ld, lw=0.6, text="tile 0", fs=SMALL)
    rect(ax, pro * 0.6, 3, pro * 0.35, 2, fc=st, lw=0.6, text="store", fs=7)
    for tt in range(steps):
        x = pro + tt * w
        stage = tt % 2
        if tt + 1 < steps:
            rect(ax, x + 0.3, 0, w * 0.62, 2, fc=ld, lw=0.6,
                 text=f"tile {tt + 1} in flight", fs=SMALL)
            rect(ax, x + w * 0.7, 3 * (2 - stage) - 0, w * 0.26, 2, fc=st, lw=0.6,
                 text=f"store {tt + 1}", fs=7)
        rect(ax, x + 0.3, 3 * (1 + stage), w * 0.62 if tt + 1 < steps else w * 0.9, 2, fc=comp,
             lw=0.6, text=f"math on tile {tt}", fs=SMALL)
        label(ax, x + w / 2, -1.3, f"step {tt}", fs=SMALL)
    label(ax, pro / 2, -1.3, "prologue", fs=SMALL)
    for tt in range(steps + 1):
        x = pro + tt * w - 0.15
        ax.plot([x, x], [-0.4, 3 * len(rows) - 0.6], color=HIGHLIGHT, lw=1.8, zorder=4)
    label(ax, 0, 3 * len(rows) + 0.9, "red lines: __syncthreads(). In step t the loads of tile "
          "t + 1 fly while the math reads stage t % 2;\nthen they are stored into the other stage, "
          "which nobody reads in step t. One barrier guards both hazards.", fs=SMALL, ha="left")
    save(fig, out, "04_double_buffer.png", written)


def waves_04(c, out, written):
    sms = c["machine"]["sms"]
    ex = c["results"]["waves"]
    res = c["resources"]
    bm, bn, _ = plan(ex["tile"])
    pbm, pbn, splits = plan(ex["small_plan"])

    def bps(tile):
        return res["04 blocks per SM"][tile]

    def blocks(size, tm, tn, s=1):
        return math.ceil(size / tm) * math.ceil(size / tn) * s
    big, small = ex["full_size"], ex["small_size"]
    rel = (pbm * pbn) / (bm * bn) / splits  # a planned block's work, in big-tile blocks
    panels = [
        (f"{big} x {big} x {big}, {ex['tile']} tiles", blocks(big, bm, bn), bps(ex["tile"]), 2.2),
        (f"{small} x {small} x {small} with the same {ex['tile']} tiles",
         blocks(small, bm, bn), bps(ex["tile"]), 7.0),
        (f"{small} x {small} x {small} as tiling_2d_shape_aware ran it: {ex['small_plan']}",
         blocks(small, pbm, pbn, splits), bps(f"{pbm}x{pbn}"), 7.0 * rel),
    ]
    heights = [math.ceil(n / (sms * b)) * h for _, n, b, h in panels]
    total = sum(heights) + 7.5 * len(panels)
    fig, ax = canvas(WIDTH, 6.2, (-1, sms + 1), (-1, total), equal=False,
                     title=f"04: waves on the {c['machine']['device']}'s {sms} SMs "
                           f"(width: the SMs; height: time)\nthe {big}^3 panel on a scale "
                           f"{big / small * panels[1][3] / panels[0][3]:.0f}x shorter: each of its "
                           f"blocks is {big // small}x as deep in K")
    y = 0.0
    for (title, n, per_sm, h), height in zip(panels, heights):
        slots = sms * per_sm
        waves = math.ceil(n / slots)
        tail = n - (waves - 1) * slots
        label(ax, 0, y + 1.2, title, ha="left", weight="bold", fs=FONT)
        idle = slots - tail
        text = (f"{n} blocks, {per_sm} per SM: " +
                (f"{waves} waves; the last has {tail} blocks" if waves > 1 else "1 wave") +
                (f", {idle // per_sm} SMs idle" if idle else ""))
        label(ax, 0, y + 3.1, text, ha="left", fs=SMALL, color=HIGHLIGHT if idle else "black")
        y0 = y + 4.3
        for w in range(waves):
            in_wave = slots if w < waves - 1 else tail
            for j in range(slots):
                x = (j % sms) + (j // sms) / per_sm
                if j < in_wave:
                    rect(ax, x, y0 + w * h, 1 / per_sm, h, fc=tint(C_COLOR, 0.85 - 0.4 * (w % 2)),
                         ec="white", lw=0.3)
                else:
                    rect(ax, x, y0 + w * h, 1 / per_sm, h, fc=tint(WAIT, 0.25), ec="none",
                         hatch="////")
        rect(ax, 0, y0, sms, waves * h, lw=0.8, z=3)
        y = y0 + height + 3.2
    label(ax, sms, total - 0.6, "SMs: docs/figures/machine.csv; blocks per SM: resources.csv; "
          "what ran: results.csv. Split-K then adds the slices up (04_split_k.png).",
          ha="right", fs=7.5)
    save(fig, out, "04_waves.png", written)


def split_k_04(c, out, written):
    ex = c["results"]["waves"]
    size = ex["small_size"]
    tm, tn, splits = plan(ex["small_plan"])
    if splits < 2:
        sys.exit("diagrams.py: the waves example ran no split-K; 04_split_k.png needs one")
    n = 14.0            # every matrix drawn n units wide
    t = tm * n / size   # one tile
    tr, tc = 2, 5       # the tile the picture follows (tile row, tile column)
    kslice = n / splits
    xb, yw = n + 7, n + 6
    ws = n * 0.8        # a workspace slice, drawn smaller
    xc = splits * (ws + 3) + 5
    fig, ax = canvas(WIDTH, 5.6, (-3, max(xc + ws + 2, 2 * n + 33)), (-2.5, yw + ws + 4),
                     f"04: split-K at {size} x {size} x {size}: {size // tm} x {size // tn} "
                     f"tiles x {splits} slices of K = {(size // tm) * (size // tn) * splits} "
                     "blocks")
    shades_a = [tint(A_COLOR, 0.3 + 0.5 * s / (splits - 1)) for s in range(splits)]
    shades_b = [tint(B_COLOR, 0.3 + 0.5 * s / (splits - 1)) for s in range(splits)]
    shades_c = [tint(C_COLOR, 0.25 + 0.4 * s / (splits - 1)) for s in range(splits)]
    for s in range(splits):
        rect(ax, s * kslice, 0, kslice, n, fc=shades_a[s], lw=0.8)
        rect(ax, xb, s * kslice, n, kslice, fc=shades_b[s], lw=0.8)
        label(ax, (s + 0.5) * kslice, -0.8, f"K slice {s}", fs=SMALL)
        label(ax, xb + n + 0.4, (s + 0.5) * kslice, f"K slice {s}", fs=SMALL, ha="left")
        rect(ax, s * kslice, tr * t, kslice, t, ec=HIGHLIGHT, lw=1.6, z=3)
        rect(ax, xb + tc * t, s * kslice, t, kslice, ec=HIGHLIGHT, lw=1.6, z=3)
        # Slice s of the workspace: the partial sums of every tile over K slice s.
        x0 = s * (ws + 3)
        rect(ax, x0, yw, ws, ws, fc=shades_c[s], lw=0.8)
        rect(ax, x0 + tc * t * ws / n, yw + tr * t * ws / n, t * ws / n, t * ws / n,
             fc=HIGHLIGHT, lw=0.6, z=3)
        label(ax, x0 + ws / 2, yw - 0.9, f"workspace slice {s}", fs=SMALL)
        label(ax, x0 + ws / 2, yw + ws + 0.9, f"A slice {s} x B slice {s}", fs=SMALL)
        if s:
            label(ax, x0 - 1.5, yw + ws / 2, "+", fs=16)
    label(ax, n / 2, n + 1.3, f"A ({size} x {size})", weight="bold")
    label(ax, xb + n / 2, n + 1.3, f"B ({size} x {size})", weight="bold")
    label(ax, n + 3.5, n / 2, "x", fs=16)
    rect(ax, xc, yw, ws, ws, fc=tint(C_COLOR, 0.8), lw=0.8)
    rect(ax, xc + tc * t * ws / n, yw + tr * t * ws / n, t * ws / n, t * ws / n, fc=HIGHLIGHT,
         lw=0.6, z=3)
    label(ax, xc + ws / 2, yw - 0.9, f"C ({size} x {size})", fs=SMALL, weight="bold")
    arrow(ax, (xc - 4.2, yw + ws / 2), (xc - 0.2, yw + ws / 2))
    label(ax, xc + ws / 2, yw + ws + 1.4, "reduce_split_k adds the slices\nin a fixed order: the "
          "same\nbits on every run", fs=SMALL)
    label(ax, 2 * n + 10.5, n / 2,
          f"The block of tile ({tr}, {tc}) and K slice s\nmultiplies {tm} rows of A by {tn} "
          f"columns\nof B over {size // splits} of K, and writes its\n{tm} x {tn} partial sums "
          "to\nworkspace slice s.", fs=SMALL, ha="left")
    save(fig, out, "04_split_k.png", written)


# ---- 05_tensor_core ----------------------------------------------------------------------------

def wmma_warp_tiles(c, out, written):
    t = c["kernels"]["05_tensor_core"]
    fm, fn, wm_n, wn_n = t["wmma_m"], t["wmma_n"], t["warps_m"], t["warps_n"]
    BM, BN = wm_n * fm, wn_n * fn
    blocks_y, blocks_x = 2, 3
    u = 4  # elements per unit
    bh, bw = BM / u, BN / u
    zoom = 2.5
    xz = blocks_x * bw + 6
    fig, ax = canvas(WIDTH, 4.0, (-6, xz + zoom * bw + 16), (-3.5, max(blocks_y * bh,
                     zoom * bh) + 2.5),
                     f"05: one warp per {fm} x {fn} tile of C; a block is {wm_n} x {wn_n} warps")
    by, bx = 1, 1
    for r in range(blocks_y):
        for q in range(blocks_x):
            for w in range(wm_n * wn_n):
                rect(ax, q * bw + (w % wn_n) * fn / u, r * bh + (w // wn_n) * fm / u, fn / u,
                     fm / u, lw=0.4, ec="white",
                     fc=tint(C_COLOR, 0.3 + 0.35 * ((w // wn_n + w % wn_n) % 2)))
            rect(ax, q * bw, r * bh, bw, bh, lw=1.4, ec=HIGHLIGHT if (r, q) == (by, bx) else "black",
                 z=3)
    label(ax, blocks_x * bw / 2, -1.6, f"C, in blocks of {BM} x {BN}", fs=SMALL)
    for w in range(wm_n * wn_n):
        wr, wc = w // wn_n, w % wn_n
        rect(ax, xz + zoom * wc * fn / u, zoom * wr * fm / u, zoom * fn / u, zoom * fm / u,
             fc=tint(C_COLOR, 0.3 + 0.35 * ((wr + wc) % 2)), lw=0.8,
             text=f"warp {w}\nrows +{wr * fm}..{wr * fm + fm - 1}\ncols +{wc * fn}..{wc * fn + fn - 1}",
             fs=SMALL)
    rect(ax, xz, 0, zoom * bw, zoom * bh, ec=HIGHLIGHT, lw=1.6, z=3)
    arrow(ax, ((bx + 1) * bw + 0.2, by * bh + bh / 2), (xz - 0.2, zoom * bh / 2), color=HIGHLIGHT)
    label(ax, xz + zoom * bw / 2, -1.6, f"block ({bx}, {by}): {wm_n * wn_n} warps, "
          f"{32 * wm_n * wn_n} threads", fs=SMALL)
    label(ax, xz + zoom * bw + 1, zoom * bh / 2,
          f"warp w owns the\n{fm} x {fn} tile at\nrow  blockIdx.y x {BM}\n     + (w / {wn_n}) x {fm}\n"
          f"col  blockIdx.x x {BN}\n     + (w % {wn_n}) x {fn}", fs=SMALL, ha="left")
    save(fig, out, "05_warp_tiles.png", written)


def wmma_fragments(c, out, written):
    t = c["kernels"]["05_tensor_core"]
    fm, fn, fk = t["wmma_m"], t["wmma_n"], t["wmma_k"]
    warp = c["kernels"]["hardware"]["warp"]
    steps, step = 4, 1  # the picture: K = 4 x 16, the warp at its second step
    s = 3.0
    xa, yb = 0.0, 0.0
    xc, yc = steps * s + 2.5, steps * s + 2.5
    fig, ax = canvas(WIDTH, 4.6, (-3, xc + s + 32), (-2.5, yc + s + 3.2),
                     f"05: a warp walks K in steps of {fk}: one mma_sync per step")
    for q in range(steps):
        rect(ax, xa + q * s, yc, s, s, fc=A_COLOR if q == step else tint(A_COLOR, 0.3), lw=0.8,
             text="a" if q == step else None, weight="bold")
        rect(ax, xc, yb + q * s, s, s, fc=B_COLOR if q == step else tint(B_COLOR, 0.3), lw=0.8,
             text="b" if q == step else None, weight="bold")
        label(ax, xa + q * s + s / 2, yc - 0.7, f"k0 = {q * fk}", fs=7.5)
        label(ax, xc - 0.3, yb + q * s + s / 2, f"k0 = {q * fk}", fs=7.5, ha="right")
    rect(ax, xc, yc, s, s, fc=C_COLOR, lw=1.2, text="acc", weight="bold")
    arrow(ax, (xa + (step + 1) * s, yc + s / 2), (xc, yc + s / 2))
    arrow(ax, (xc + s / 2, yb + (step + 1) * s), (xc + s / 2, yc))
    label(ax, xa + steps * s / 2, yc + s + 1.0, f"A: {fm} rows x K", fs=SMALL)
    label(ax, xc + s + 0.4, yb + steps * s / 2, f"B:\nK x {fn}\ncolumns", fs=SMALL, ha="left")
    label(ax, xc + s / 2, yc + s + 1.0, f"C: {fm} x {fn}", fs=SMALL)
    per_lane = fm * fk // warp
    label(ax, xc + s + 5, yc - 3.5,
          f"load_matrix_sync(a, ...)   {fm} x {fk} halves of A\n"
          f"load_matrix_sync(b, ...)   {fk} x {fn} halves of B\n"
          f"mma_sync(acc, a, b, acc)   acc += a b: {fm * fn * fk} multiply-adds\n\n"
          f"A fragment is a tile spread over the warp's {warp} lanes:\n"
          f"{fm * fk} halves, at least {per_lane} per lane (CUDA's header declares\n"
          "16: an element may be held twice). Which lane holds which\n"
          "element WMMA does not say (chapter 06 shows mma.sync's).\n"
          f"acc stays in registers (fp32, {fm * fn // warp} per lane) for all of K.",
          fs=SMALL, ha="left", family="monospace")
    save(fig, out, "05_fragments.png", written)


# ---- 06_warp_tiling ----------------------------------------------------------------------------

def tile_hierarchy_06(c, out, written):
    t = c["kernels"]["06_warp_tiling"]
    BM, BN, BK, WM, WN, F = t["BM"], t["BN"], t["BK"], t["WM"], t["WN"], t["frag"]
    wm_n, wn_n = t["warps_m"], t["warps_n"]
    u = 8  # elements per unit in the block picture
    gap = 1.5
    xc, yc = BK / u + gap, BK / u + gap
    warp = 5
    wr, wc = warp // wn_n, warp % wn_n
    xz = xc + BN / u + 5
    z = 0.25  # units per element in the warp picture
    fig, ax = canvas(WIDTH, 4.2, (-3, xz + WN * z + 19), (-2.5, yc + BM / u + 3.5),
                     f"06: a {BM} x {BN} block tile of {wm_n} x {wn_n} warps, each warp "
                     f"{WM / F:.0f} x {WN / F:.0f} WMMA fragments")
    rect(ax, 0, yc, BK / u, BM / u, fc=tint(A_COLOR, 0.5), lw=0.8)
    rect(ax, xc, 0, BN / u, BK / u, fc=tint(B_COLOR, 0.5), lw=0.8)
    rect(ax, 0, yc + wr * WM / u, BK / u, WM / u, fc=A_COLOR, lw=0.8)
    rect(ax, xc + wc * WN / u, 0, WN / u, BK / u, fc=B_COLOR, lw=0.8)
    label(ax, BK / u / 2, yc + BM / u + 1.6, f"As\n{BM} x {BK}", fs=SMALL)
    label(ax, xc - 0.3, BK / u / 2, f"Bs {BK} x {BN}", fs=SMALL, ha="right")
    for w in range(wm_n * wn_n):
        r, q = w // wn_n, w % wn_n
        rect(ax, xc + q * WN / u, yc + r * WM / u, WN / u, WM / u, lw=0.8,
             fc=HIGHLIGHT if w == warp else tint(C_COLOR, 0.3 + 0.3 * ((r + q) % 2)),
             text=f"warp {w}", fs=SMALL, tc="white" if w == warp else "black")
    label(ax, xc + BN / u / 2, yc + BM / u + 1.1, f"C block tile {BM} x {BN}, {t['threads']} "
          "threads", fs=SMALL)
    # The warp tile: FM x FN fragments; one slice: FM fragments of A, FN of B.
    fm, fn = WM // F, WN // F
    yz = yc
    for i in range(fm):
        rect(ax, xz - 2.2, yz + i * F * z, 1.6, F * z, fc=A_COLOR, lw=0.6, text=f"a{i}", fs=7.5)
        for j in range(fn):
            rect(ax, xz + j * F * z, yz + i * F * z, F * z, F * z, lw=0.6,
                 fc=tint(C_COLOR, 0.35 + 0.3 * ((i + j) % 2)), text=f"{i},{j}", fs=7.5)
    rect(ax, xz, yz, WN * z, WM * z, ec=HIGHLIGHT, lw=1.8, z=3)
    for j in range(fn):
        rect(ax, xz + j * F * z, yz - 2.2, F * z, 1.6, fc=B_COLOR, lw=0.6, text=f"b{j}", fs=7.5)
    arrow(ax, (xc + (wc + 1) * WN / u, yc + (wr + 0.5) * WM / u), (xz - 2.4, yz + WM * z / 2),
          color=HIGHLIGHT)
    label(ax, xz + WN * z + 0.8, yz + WM * z / 2,
          f"warp {warp}: {fm} x {fn} accumulator\nfragments of {F} x {F}.\nPer {F}-deep slice "
          f"of BK:\nload {fm} fragments of A\nand {fn} of B, then\n{fm * fn} mma_sync:\n"
          f"fragment (i, j) += a[i] x b[j]", fs=SMALL, ha="left")
    save(fig, out, "06_tile_hierarchy.png", written)


def bank_conflicts(c, out, written):
    t = c["kernels"]["06_warp_tiling"]
    hw = c["kernels"]["hardware"]
    banks, bb = hw["banks"], hw["bank_bytes"]
    row_banks = 16 // bb  # an ldmatrix row: 16 bytes
    cases = [(f"As[{t['BM']}][{t['BK']}]", t["a_row_bytes"], A_COLOR),
             (f"As[{t['BM']}][{t['BK']} + {t['PAD']}]", t["a_row_bytes_padded"], A_COLOR),
             (f"Bs[{t['BK']}][{t['BN']}]", t["b_row_bytes"], B_COLOR),
             (f"Bs[{t['BK']}][{t['BN']} + {t['PAD']}]", t["b_row_bytes_padded"], B_COLOR)]
    rows = len(t["a_row_bytes"])
    ph = rows + 6
    fig, ax = canvas(WIDTH, 4.5, (-7, 2 * banks + 9), (-3.8, 2 * ph),
                     f"06: the {banks} banks during one ldmatrix 8x8 read ({rows} rows of "
                     "16 bytes, one per lane)")
    for n, (name, starts, color) in enumerate(cases):
        x0 = (n % 2) * (banks + 9)
        y0 = (n // 2) * ph
        use = [0] * banks
        for r, start in enumerate(starts):
            first = (start // bb) % banks
            for q in range(row_banks):
                use[(first + q) % banks] += 1
        passes = max(use)
        for r, start in enumerate(starts):
            first = (start // bb) % banks
            for b in range(banks):
                hit = (b - first) % banks < row_banks
                rect(ax, x0 + b, y0 + r, 1, 1, fc=color if hit else "white", ec=tint(WAIT, 0.6),
                     lw=0.3)
            label(ax, x0 - 0.3, y0 + r + 0.5, f"row {r}", fs=6.5, ha="right")
        for b in range(0, banks, 8):
            label(ax, x0 + b + 0.5, y0 - 0.5, str(b), fs=6.5)
        stride = starts[1] - starts[0]
        ok = passes == 1
        label(ax, x0 + banks / 2, y0 - 2.3, f"{name}: rows {stride} bytes apart", weight="bold",
              fs=SMALL)
        label(ax, x0 + banks / 2, y0 + rows + 1.2,
              "1 pass: conflict-free" if ok else f"{passes} rows on the same banks: "
              f"{passes} passes ({passes}-way conflict)", fs=SMALL,
              color="black" if ok else HIGHLIGHT, weight="bold")
    label(ax, -6.5, 2 * ph - 1.2, f"Bank of byte address a: (a / {bb}) mod {banks}. Left: the "
          f"layouts of kernel 1; right: kernel 2's rows padded by {t['PAD']} halves.",
          fs=SMALL, ha="left")
    save(fig, out, "06_bank_conflicts.png", written)


def vec_loads_06(c, out, written):
    """Step 3: what one warp's load instruction covers of the A and B tiles, one half per lane
    (kernels 1-2, ElementMap) against one 16-byte chunk per lane (kernel 3, ChunkMap)."""
    t = c["kernels"]["06_warp_tiling"]
    hw = c["kernels"]["hardware"]
    BM, BN, BK, warp = t["BM"], t["BN"], t["BK"], hw["warp"]
    ch = t["b_chunk_col"][1] - t["b_chunk_col"][0]  # halves per chunk (8: 16 bytes)
    chunk_bytes = ch * FP16_BYTES
    sector = hw["sector_bytes"]
    arows = max(t["a_chunk_row"]) + 1  # the A rows one 16-byte warp load covers

    def covered(rows, cols, width):
        """Bytes and 32-byte sectors one warp instruction reads (rows sector-aligned)."""
        spans = {(r, (q * FP16_BYTES + b) // sector) for r, q in zip(rows, cols)
                 for b in range(0, width * FP16_BYTES, FP16_BYTES)}
        return len(rows) * width * FP16_BYTES, len(spans)
    rh = 1.35                 # the height of a row
    ya, gap_b = 2.2, 5.4      # the A panels' top; the gap before the B strips
    yb = ya + arows * rh + gap_b
    fig, ax = canvas(WIDTH, 5.6, (-5.0, 87.5), (-1.6, yb + 11.6),
                     "06, step 3: what one load instruction of warp 0 reads, 2 bytes per lane "
                     "against 16", equal=False)
    label(ax, -4.8, -0.8, f"A tile, {BM} x {BK} halves (rows of {BK * FP16_BYTES} bytes): "
          f"rows 0-{arows - 1}", ha="left", weight="bold")
    sa = 1.2                  # units per half in the A panels
    for x0, title, rows, cols, width, per in (
            (0, "2-byte loads (steps 1-2)", t["a_element_row"], t["a_element_col"], 1,
             t["a_elements_per_thread"]),
            (BK * sa + 8, "16-byte loads (step 3)", t["a_chunk_row"], t["a_chunk_col"], ch,
             t["a_chunks_per_thread"])):
        nbytes, nsec = covered(rows, cols, width)
        label(ax, x0 + BK * sa / 2, ya - 1.3, f"{title}, {per} per thread", fs=SMALL)
        rect(ax, x0, ya, BK * sa, arows * rh, fc=tint(A_COLOR, 0.15), ec="none")
        for r in range(arows):
            ax.plot([x0, x0 + BK * sa], [ya + r * rh] * 2, color="white", lw=1.0, zorder=2)
            label(ax, x0 - 0.3, ya + r * rh + rh / 2, f"row {r}", fs=7, ha="right")
        for lane, (r, q) in enumerate(zip(rows, cols)):
            rect(ax, x0 + q * sa, ya + r * rh, width * sa, rh, fc=A_COLOR, ec="white",
                 lw=0.5, z=3, text=str(lane) if width > 1 else None, fs=7)
        rect(ax, x0, ya, BK * sa, arows * rh, lw=1.0, z=4)
        for q in range(0, BK, ch):
            label(ax, x0 + q * sa + 0.4, ya - 0.35, str(q), fs=6.5, ha="left")
        label(ax, x0 + BK * sa / 2, ya + arows * rh + 0.9,
              f"{nbytes} bytes, {nsec} sectors: " +
              ("lanes 0-31, one half each" if width == 1 else
               f"lane l, chunk l % {BK // ch} of row l / {BK // ch}"), fs=SMALL)
    # The B tile: row 0, BN halves, across the page.
    u = 82.0 / BN             # units per half
    label(ax, -4.8, yb - 2.6, f"B tile, {BK} x {BN} halves (rows of {BN * FP16_BYTES} bytes): "
          "row 0", ha="left", weight="bold")
    for n, (title, rows, cols, width, per) in enumerate((
            ("2-byte loads (steps 1-2)", t["b_element_row"], t["b_element_col"], 1,
             t["b_elements_per_thread"]),
            ("16-byte loads (step 3)", t["b_chunk_row"], t["b_chunk_col"], ch,
             t["b_chunks_per_thread"]))):
        y0 = yb + n * 4.6
        nbytes, nsec = covered(rows, cols, width)
        rect(ax, 0, y0, BN * u, 1.8, fc=tint(B_COLOR, 0.15), ec="none")
        for q in range(0, BN + 1, ch):
            ax.plot([q * u, q * u], [y0, y0 + 1.8], color="white", lw=0.8, zorder=2)
        for lane, (r, q) in enumerate(zip(rows, cols)):
            rect(ax, q * u, y0, width * u, 1.8, fc=B_COLOR, ec="white", lw=0.3 if width == 1
                 else 0.6, z=3, text=str(lane) if width > 1 else None, fs=6.5)
        rect(ax, 0, y0, BN * u, 1.8, lw=1.0, z=4)
        for q in range(0, BN, 4 * ch):
            label(ax, q * u + 0.3, y0 + 2.3, str(q), fs=6.5, ha="left")
        label(ax, 0, y0 - 0.8, f"{title}, {per} per thread: {nbytes} bytes, {nsec} sectors, " +
              ("lanes 0-31 one half each" if width == 1 else
               f"lane l the {chunk_bytes} bytes of chunk l"), fs=SMALL, ha="left")
    na, nb = t["a_elements_per_thread"], t["b_elements_per_thread"]
    va, vb = t["a_chunks_per_thread"], t["b_chunks_per_thread"]
    label(ax, -4.8, yb + 11.4,
          f"Number = lane; light: read by the other warps, or by warp 0's next loads (thread t, "
          f"load p: element or chunk t + {t['threads']} p, row by row).\nPer thread and K step: "
          f"{na} + {nb} = {na + nb} load instructions of 2 bytes, {va} + {vb} = {va + vb} of 16 "
          f"(LDG.E.128). Sectors of {sector} bytes, for rows that start\non a sector boundary. "
          "From ElementMap and ChunkMap (tile_helpers.cuh): what lane l of warp 0 loads first.",
          fs=SMALL, ha="left", va="bottom")
    save(fig, out, "06_vec_loads.png", written)


def swizzle_grid(ax, x0, y0, table, line_bytes, groups, follow, logical_title, stored_title,
                 note, row_label="row"):
    """Two views of the same 16-byte chunks: as the tile has them (row r, chunk c), and where the
    swizzle stores them (128-byte line, bank group). `table[r][c]` is the byte offset of chunk c
    of row r; the chunks of column `follow` are outlined: one ldmatrix 8x8 read."""
    rows, chunks = len(table), len(table[0])
    for r in range(rows):
        label(ax, x0 - 0.3, y0 + r + 0.5, f"{row_label} {r}", fs=7, ha="right")
        for q in range(chunks):
            fc, tc = chunk_color(q, chunks)
            rect(ax, x0 + q, y0 + r, 1, 1, fc=fc, ec="white", lw=0.6, text=str(q), fs=7.5, tc=tc)
        rect(ax, x0 + follow, y0 + r, 1, 1, ec=HIGHLIGHT, lw=2.2, z=3)
    label(ax, x0 + chunks / 2, y0 - 1.6, logical_title, fs=SMALL, weight="bold")
    xs = x0 + 8 + 9
    # The 128-byte lines these chunks fill, drawn one under the other (a B row is several lines
    # long, and only its first is shown).
    lines = sorted({off // line_bytes for row in table for off in row})
    rank = {line: i for i, line in enumerate(lines)}
    for r in range(rows):
        for q in range(chunks):
            off = table[r][q]
            y, g = y0 + rank[off // line_bytes], (off % line_bytes) // 16
            fc, tc = chunk_color(q, chunks)
            rect(ax, xs + g, y, 1, 1, fc=fc, ec="white", lw=0.6, text=f"{r}.{q}", fs=6.5, tc=tc)
            if q == follow:
                rect(ax, xs + g, y, 1, 1, ec=HIGHLIGHT, lw=2.2, z=3)
    for line in lines:
        label(ax, xs - 0.3, y0 + rank[line] + 0.5, f"line {line}", fs=7, ha="right")
    for g in range(groups):
        label(ax, xs + g + 0.5, y0 - 0.5, str(g), fs=6.5)
    label(ax, xs + groups / 2, y0 - 1.6, stored_title, fs=SMALL, weight="bold")
    label(ax, xs + groups + 0.8, y0 + rows / 2, note, fs=SMALL, ha="left")


def swizzle_06(c, out, written):
    t = c["kernels"]["06_warp_tiling"]
    hw = c["kernels"]["hardware"]
    line = hw["banks"] * hw["bank_bytes"]  # 128 bytes: one pass of all banks
    groups = line // 16
    sa = t["swizzle_a_bytes"]
    sb = [row[:groups] for row in t["swizzle_b_bytes"]]  # each B row's first 128 bytes
    fig, ax = canvas(WIDTH, 5.4, (-4, 2 * groups + 31), (-3, 2 * len(sa) + 6.5),
                     "06: the XOR swizzle of kernel 5: chunk c of row r is stored at chunk "
                     "c XOR key(r)")
    swizzle_grid(ax, 0, 0, sa, line, groups, 0,
                 f"A tile: rows of {t['BK']} halves",
                 "where they are stored (bank group)",
                 "key(r) = (r / 2) % 4; two rows\nshare a 128-byte line.\nThe outlined chunk 0 "
                 "of\nrows 0-7 (one ldmatrix\nread): 8 bank groups,\none pass.")
    y1 = len(sa) + 4
    swizzle_grid(ax, 0, y1, sb, line, groups, 0,
                 f"B tile: rows of {t['BN']} halves (first 8 chunks)",
                 "where they are stored (bank group)",
                 "key(r) = r % 8; every row\nstarts a new line. Chunk 0\nof rows 0-7: 8 bank "
                 "groups,\none pass. Unswizzled:\nall in group 0, 8 passes.")
    label(ax, -3.5, 2 * len(sa) + 5.6, "Cell: a 16-byte chunk (8 halves), number = row.chunk. "
          "Bank group g = banks 4g..4g+3. From Swizzle<COLS>::offset (tile_helpers.cuh).",
          fs=SMALL, ha="left")
    save(fig, out, "06_swizzle.png", written)


def ldmatrix_06(c, out, written):
    t = c["kernels"]["06_warp_tiling"]
    M, K, N = t["mma_m"], t["mma_k"], t["mma_n"]
    colors = FOUR
    cw = 4.0  # one 16-byte chunk (8 halves) drawn 4 units wide
    fig, ax = canvas(WIDTH, 3.9, (-5, 4 * cw + 40), (-3.5, 16 + 1),
                     "06: ldmatrix.x4: each lane gives the address of one 16-byte row")
    panels = [(0, "A (m16 x k16), ldmatrix.x4", t["ldmatrix_a_row"], t["ldmatrix_a_col"],
               "a[{}]", "row", "k"),
              (2 * cw + 14, "B (k16 x n16), ldmatrix.x4.trans", t["ldmatrix_b_row"],
               t["ldmatrix_b_col"], "", "k", "n")]
    for x0, title, rows, cols, reg, rname, cname in panels:
        label(ax, x0 + cw, -2.4, title, weight="bold", fs=SMALL)
        for lane, (r, q) in enumerate(zip(rows, cols)):
            m = lane // 8
            rect(ax, x0 + (q // 8) * cw, r, cw, 1, fc=tint(colors[m], 0.8), ec="white", lw=0.6,
                 text=f"lane {lane}", fs=7)
        for q in range(2):
            label(ax, x0 + q * cw + cw / 2, -0.8, f"{cname} {8 * q}-{8 * q + 7}", fs=7)
        for r in range(0, 16, 4):
            label(ax, x0 - 0.3, r + 0.5, f"{rname} {r}", fs=7, ha="right")
        rect(ax, x0, 0, 2 * cw, 16, lw=1.2, z=3)
    y = 0.5
    xl = 4 * cw + 16
    label(ax, xl, y, "matrix q = lane / 8 (colour): lanes 8q .. 8q+7\ngive its 8 row addresses; "
          "then lane l\nreceives row l / 4, halves 2 (l % 4), +1\nof matrix q in register q.",
          fs=SMALL, ha="left", va="top")
    label(ax, xl, y + 6.2, "A: matrices 0-3 are a[0] .. a[3] of the\nm16n8k16 A fragment "
          "(rows 0-7 / 8-15,\nk 0-7 / 8-15).", fs=SMALL, ha="left", va="top")
    label(ax, xl, y + 10.6, f".trans: B arrives transposed: matrices\n0, 1 are b[0], b[1] of n8 "
          f"tile 0 (n 0-7),\n2, 3 of n8 tile 1 (n 8-15): two {M}x{N}x{K}\nB fragments per "
          "ldmatrix.", fs=SMALL, ha="left", va="top")
    save(fig, out, "06_ldmatrix.png", written)


def mma_fragment_06(c, out, written):
    t = c["kernels"]["06_warp_tiling"]
    M, N, K = t["mma_m"], t["mma_n"], t["mma_k"]
    warp = c["kernels"]["hardware"]["warp"]
    # The fragment layouts of mma.sync.m16n8k16 (PTX ISA, "Matrix fragments for mma.m16n8k16";
    # mma_ptx.cuh quotes them): lane l, g = l / 4, t = l % 4.
    cell = 1.0
    xb, xc = K + 4, K + 4 + N + 4
    fig, ax = canvas(WIDTH, 4.9, (-3, xc + N + 14), (-3.4, M + 3.2),
                     f"06: mma.sync m{M}n{N}k{K}: which lane holds which element "
                     "(number = lane)")
    for lane in range(warp):
        g, q = lane // 4, lane % 4
        for reg in range(4):  # A: a[0]: row g, k 2t..; a[1]: row g+8; a[2]: k+8; a[3]: both
            r, k0 = g + 8 * (reg % 2), 2 * q + 8 * (reg // 2)
            for h in range(2):
                rect(ax, k0 + h, r, cell, cell, fc=tint(FOUR[reg], 0.6), ec="white", lw=0.5,
                     text=str(lane), fs=6)
        for reg in range(2):  # B: b[0]: k 2t..2t+1, column g; b[1]: k + 8
            for h in range(2):
                rect(ax, xb + g, 2 * q + 8 * reg + h, cell, cell, fc=tint(FOUR[reg], 0.6),
                     ec="white", lw=0.5, text=str(lane), fs=6)
        for reg in range(4):  # C: c[0], c[1]: row g, columns 2t, 2t+1; c[2], c[3]: row g + 8
            rect(ax, xc + 2 * q + reg % 2, g + 8 * (reg // 2), cell, cell,
                 fc=tint(FOUR[reg], 0.6), ec="white", lw=0.5, text=str(lane), fs=6)
    for x0, w, h, name in ((0, K, M, f"A: {M} x {K} (row x k), fp16"),
                           (xb, N, K, f"B: {K} x {N}\n(k x n), fp16"),
                           (xc, N, M, f"C, D: {M} x {N}, fp32")):
        rect(ax, x0, 0, w, h, lw=1.2, z=3)
        ax.plot([x0, x0 + w], [8, 8], color="black", lw=0.8, zorder=3)
        label(ax, x0 + w / 2, -1.6, name, fs=SMALL, weight="bold")
    ax.plot([8, 8], [0, M], color="black", lw=0.8, zorder=3)
    for reg in range(4):
        rect(ax, xc + N + 1.5, 1 + 2 * reg, 1, 1, fc=tint(FOUR[reg], 0.6), lw=0.5)
        label(ax, xc + N + 3, 1.5 + 2 * reg,
              f"register {reg}:\na[{reg}]" + (f", b[{reg}]" if reg < 2 else "") + f", c[{reg}]",
              fs=7.5, ha="left")
    label(ax, -2.5, M + 1.8, "Lane l: g = l / 4, t = l % 4. A: row g and g + 8, k 2t, 2t+1 and "
          "+8 (a 32-bit register holds 2 halves). B: column g, k 2t, 2t+1 and +8. "
          "C: rows g, g + 8, columns 2t, 2t+1.", fs=7.5, ha="left")
    save(fig, out, "06_mma_fragment.png", written)


COPYING = tint(OKABE_ITO["yellow"], 0.7)  # a tile on its way into shared memory


def cp_async_cells(S, steps):
    """(stage, column) -> (text, colour, hatch) of the cp.async ring: column 0 is the prologue,
    column t + 1 step t. In step t the stage t % S is computed on and tile t + S - 1 is issued into
    stage (t - 1) % S, the stage step t - 1 computed on."""
    cells = {}
    for s in range(S - 1):
        cells[(s, 0)] = (f"copy tile {s}", COPYING, None)
    for t in range(steps):
        for s in range(S):
            j = t + (s - t) % S  # the tile stage s holds during step t
            if s == t % S:
                cells[(s, t + 1)] = (f"math on tile {t}", tint(C_COLOR, 0.75), None)
            elif j == t + S - 1:
                cells[(s, t + 1)] = (f"copy tile {j}", COPYING, None)
            else:
                cells[(s, t + 1)] = (f"tile {j} landing", tint(OKABE_ITO["yellow"], 0.3), None)
    return cells


def draw_cp_async(ax, S, steps, upto, w=11.0):
    cells = cp_async_cells(S, steps)
    for s in range(S):
        label(ax, -0.5, 2.5 * s + 1, f"stage {s}", ha="right")
    for col in range(steps + 1):
        x = col * w
        if col > upto:
            continue
        head = "prologue" if col == 0 else f"step {col - 1}"
        label(ax, x + w / 2, -1.1, head, fs=SMALL, weight="bold" if col == upto else "normal")
        for s in range(S):
            if (s, col) in cells:
                text, fc, _ = cells[(s, col)]
                rect(ax, x + 0.3, 2.5 * s, w - 0.6, 2, fc=fc, lw=0.6, text=text, fs=SMALL)
        if col:
            ax.plot([x, x], [-0.5, 2.5 * S - 0.3], color=HIGHLIGHT, lw=1.8, zorder=4)
    if 0 <= upto <= steps:
        rect(ax, upto * w + 0.1, -0.35, w - 0.2, 2.5 * S - 0.15, ec="black", lw=1.6, z=4)


def cp_async_ring(c, out, written):
    t = c["kernels"]["06_warp_tiling"]
    S, steps, w = t["cp_async_stages"], 2 * t["cp_async_stages"], 11.0
    title = f"06: wmma_cp_async's ring of {S} stages"

    def base(fig_h):
        fig, ax = canvas(WIDTH, fig_h, (-7, (steps + 1) * w + 0.5), (-2.6, 2.5 * S + 4.2), title,
                         equal=False)
        label(ax, -6.5, 2.5 * S + 1.2, f"Red line: cp.async.wait_group {S - 2} (tile t has "
              f"landed), then __syncthreads(); then issue tile t + {S - 1} into the stage that "
              f"step t - 1 computed on,\nand compute on stage t % {S}. {S - 1} tiles are in flight"
              " while one is computed.", fs=SMALL, ha="left", va="top")
        return fig, ax
    fig, ax = base(3.6)
    draw_cp_async(ax, S, steps, steps + 1, w)
    save(fig, out, "06_cp_async_ring.png", written)
    fig, ax = base(3.6)

    def frame(i):
        for p in list(ax.patches) + list(ax.texts[1:]) + list(ax.lines):
            p.remove()
        draw_cp_async(ax, S, steps, i, w)
    save_gif(fig, frame, range(steps + 1), out, "06_cp_async_ring.gif", written)


def register_pipeline_06(c, out, written):
    """Step 6 (mma_pipelined.cu, k_step): one K step of one warp in program order: the ldmatrix
    of the next slice before this slice's mma.sync (fragments double-buffered in registers); the
    barrier before the last slice; after it the next step's first ldmatrix and the cp.async
    refill of the stage just read, then the last slice's mma. (The compiled loop interleaves
    these: the copies go out among the last slice's HMMA.)"""
    t = c["kernels"]["06_warp_tiling"]
    S = c["pipelined"]["stages"]
    slices = t["BK"] // t["mma_k"]
    if slices != 2:
        sys.exit("diagrams.py: 06_register_pipeline.png draws a K step of 2 slices")
    n_ld = t["WM"] // t["mma_m"] + t["WN"] // (2 * t["mma_n"])  # ldmatrix.x4 (A) + .x4.trans (B)
    n_mma = (t["WM"] // t["mma_m"]) * (t["WN"] // t["mma_n"])
    chunk = 16 // FP16_BYTES  # halves per cp.async
    n_cp = (t["BM"] + t["BN"]) * t["BK"] // chunk // t["threads"]
    u = 0.6                    # the width of one warp instruction
    L, M, C, Wt, lat = n_ld * u, n_mma * u, n_cp * u, 1.2, 7.0
    xb = L + M                 # the barrier
    x_ld = xb + Wt             # after it: the next step's slice 0, the refill, slice 1's mma
    x_cp = x_ld + L
    x_m1 = x_cp + C
    xe = x_m1 + M              # the end of step i
    right = xe + L + 9.0
    h = 2.0
    rows_y = {"ldmatrix": 0.0, "mma.sync": 2.7, "cp.async": 5.4, "buf0": 8.9, "buf1": 11.6}
    fig, ax = canvas(WIDTH, 4.8, (-9.5, right + 0.3), (-4.4, 18.5),
                     f"06, step 6 (mma_sync_pipelined): one K step of one warp, {slices} slices "
                     "of k16", equal=False)
    ld_c, mma_c = tint(SECOND, 0.35), tint(C_COLOR, 0.75)
    names = {"ldmatrix": f"ldmatrix\n{n_ld} per slice", "mma.sync": f"mma.sync\n{n_mma} per "
             "slice", "cp.async": f"cp.async\n{n_cp} per K step",
             "buf0": "registers\na[0], b[0]", "buf1": "registers\na[1], b[1]"}
    for k, y in rows_y.items():
        label(ax, -0.6, y + h / 2, names[k], fs=7.5, ha="right")
    white = dict(boxstyle="round,pad=0.15", fc="white", ec="none")

    def flight(row, x0, x1, text, faded=False):  # hatched: issued, not arrived
        y = rows_y[row]
        ax.add_patch(patches.Rectangle((x0, y + 0.4), x1 - x0, h - 0.8, facecolor="white",
                                       edgecolor=tint(WAIT, 0.8), hatch="////", linewidth=0,
                                       alpha=0.45 if faded else 1.0, zorder=2))
        if text:
            label(ax, x0 + 0.3, y + h / 2, text, fs=7, ha="left", bbox=white)

    def issue(row, x, w, fc, text=None, faded=False):
        rect(ax, x, rows_y[row], w, h, fc=fc, lw=0.6, text=text, fs=7.5,
             alpha=0.45 if faded else 1.0, z=3)

    def frags(row, x0, x1, text, loading=False, faded=False):  # upper half A, lower half B
        y, a = rows_y[row], (0.45 if faded else 1.0)
        for k, col in ((0, A_COLOR), (1, B_COLOR)):
            ax.add_patch(patches.Rectangle((x0, y + k * h / 2), x1 - x0, h / 2,
                                           facecolor=tint(col, 0.3 if loading else 0.75),
                                           edgecolor=tint(WAIT, 0.8) if loading else "none",
                                           hatch="////" if loading else None, linewidth=0,
                                           alpha=a, zorder=2))
        rect(ax, x0, y, x1 - x0, h, lw=0.6, alpha=a, z=3)
        if text:
            label(ax, (x0 + x1) / 2, y + h / 2, text, fs=7, alpha=a,
                  bbox=dict(white, alpha=0.9 * a))

    # Slice 0: the ldmatrix of slice 1 (stage s -> a[1], b[1]) first, then slice 0's mma.
    issue("ldmatrix", 0, L, ld_c, "slice 1")
    flight("ldmatrix", L, L + lat, "in flight")
    issue("mma.sync", L, M, mma_c, "slice 0, from a[0], b[0]")
    # The barrier; then step i + 1's slice 0 (stage s + 1 -> a[0], b[0]), the refill of stage s,
    # and slice 1's mma.
    issue("ldmatrix", x_ld, L, ld_c, "step i+1")
    flight("ldmatrix", x_cp, x_cp + lat, "in flight")
    issue("cp.async", x_cp, C, COPYING)
    flight("cp.async", x_m1, right, f"step i + {S} into stage s, in flight until the barrier "
           f"of step i + {S - 1}")
    issue("mma.sync", x_m1, M, mma_c, "slice 1, from a[1], b[1]")
    # Step i + 1 begins the same way (faded).
    issue("ldmatrix", xe, L, ld_c, "slice 1", faded=True)
    issue("mma.sync", xe + L, right - xe - L, mma_c, "slice 0 ...", faded=True)
    # What the two register buffers hold.
    frags("buf0", 0, xb, "step i, slice 0: read by the mma")
    frags("buf0", x_ld, x_cp + lat, "step i+1, slice 0", loading=True)
    frags("buf0", x_cp + lat, xe + L, "ready")
    frags("buf0", xe + L, right, "read by the mma", faded=True)
    frags("buf1", 0, L + lat, "slice 1: loading", loading=True)
    frags("buf1", L + lat, x_m1, "slice 1: ready")
    frags("buf1", x_m1, xe, "slice 1: read by the mma")
    frags("buf1", xe, right, None, loading=True, faded=True)
    # Headers: the step, its slices, the stage.
    top = -1.0
    for x0, x1, text in ((0, xb, "slice 0"), (xb, xe, "slice 1")):
        label(ax, (x0 + x1) / 2, top, text, fs=SMALL, weight="bold")
    brace(ax, 0, xe, top - 1.3, f"K step i, from stage s = i % {S}")
    label(ax, xe + (right - xe) / 2, top - 1.3, "step i + 1,\nstage s + 1", fs=SMALL,
          color=WAIT)
    for x in (0, xe):
        ax.plot([x, x], [top + 0.6, rows_y["buf1"] + h], color=WAIT, lw=0.8, ls=":", zorder=1)
    ax.plot([xb + Wt / 2] * 2, [top + 0.6, rows_y["buf1"] + h + 0.4], color=HIGHLIGHT, lw=2.2,
            zorder=5)
    label(ax, xb + Wt / 2, rows_y["buf1"] + h + 1.1,
          f"cp.async.wait_group {S - 2} + __syncthreads(): step i + 1 has landed, and no warp "
          "reads stage s any more (slice 1 is in registers)", fs=SMALL, color=HIGHLIGHT)
    label(ax, -9.3, 18.3,
          "One warp's instructions in program order (k_step in mma_pipelined.cu; the compiled "
          "loop interleaves them, the copies among slice 1's HMMA); width: warp instructions;\n"
          "hatched: in flight (not to scale). The mma of a slice use fragments loaded one slice "
          "earlier. After the barrier come step i + 1's first ldmatrix\nand the refill of stage "
          "s, and slice 1's mma, whose fragments are ready: no warp leaves the barrier with "
          "nothing to issue.",
          fs=7.5, ha="left", va="bottom")
    save(fig, out, "06_register_pipeline.png", written)


# ---- The Hopper kernels (07_hopper/README.md) --------------------------------------------------

def hopper_tma_boxes(c, out, written):
    h = c["kernels"]["hopper"]
    BM, BN, BK, bm, bn = h["BM"], h["BN"], h["BK"], h["box_m"], h["box_n"]
    u = 8  # elements per unit
    gap = 2
    xb = BK / u + gap
    na, nb = BM // bm, BN // bn
    fig, ax = canvas(WIDTH, 4.2, (-7, xb + BN / u + 12), (-3.2, BK / u + gap + BM / u + 2.5),
                     f"Hopper: one K step of a {BM} x {BN} tile arrives as {na} + {nb} TMA boxes")
    ya = BK / u + gap
    for a in range(na):
        rect(ax, 0, ya + a * bm / u, BK / u, bm / u, fc=tint(A_COLOR, 0.45 + 0.4 * (a % 2)), lw=1,
             text=f"box\n{bm} x {BK}", fs=SMALL)
    for b in range(nb):
        rect(ax, xb + b * bn / u, 0, bn / u, BK / u, fc=tint(B_COLOR, 0.45 + 0.4 * (b % 2)), lw=1,
             text=f"box {BK} x {bn}", fs=SMALL)
    rect(ax, xb, ya, BN / u, BM / u, fc=tint(C_COLOR, 0.3), lw=1,
         text=f"C tile {BM} x {BN}\n(accumulators in registers)", fs=SMALL)
    label(ax, BK / u / 2, ya + BM / u + 1.2, f"A: {BM} x {BK}", fs=SMALL, weight="bold")
    label(ax, xb - 0.4, BK / u / 2, f"B: {BK} x {BN}", fs=SMALL, weight="bold", ha="right")
    label(ax, xb + BN / u + 1, ya + 0.5,
          f"Each box: {BK} halves = 128 bytes\nper row (the most a 128-byte-\nswizzled box may be "
          f"wide),\n{h['box_a_bytes']} bytes.\n\nOne thread issues the {na + nb}\ncopies of a "
          f"K step; the copy\nengine counts their\n{h['stage_bytes']} bytes into the\nstage's "
          "full barrier.", fs=SMALL, ha="left", va="top")
    save(fig, out, "hopper_tma_boxes.png", written)


def hopper_swizzle_128b(c, out, written):
    h = c["kernels"]["hopper"]
    hw = c["kernels"]["hardware"]
    line = hw["banks"] * hw["bank_bytes"]
    table = h["swizzle_128b_bytes"]
    fig, ax = canvas(WIDTH, 3.3, (-4, 2 * len(table[0]) + 30), (-3, len(table) + 3.2),
                     "Hopper: TMA's 128-byte swizzle of a box row: 16-byte chunk c of row r "
                     "lands at c XOR (r % 8)")
    kk = 1  # the k16 slice the picture follows: 32 bytes, chunks 2 kk and 2 kk + 1
    swizzle_grid(ax, 0, 0, table, line, line // 16, 2 * kk,
                 f"a box, rows of {h['BK']} halves (128 bytes)", "in shared memory (bank group)",
                 f"8 rows = 1024 bytes, the period\nof the pattern. wgmma's k16\nslice {kk} "
                 f"reads chunks {2 * kk}, {2 * kk + 1} of\neach row: the 8 rows' chunk\n{2 * kk} "
                 "lie in 8 different\nbank groups. The descriptor\nnames the swizzle; no "
                 "lane\ncomputes an address.")
    label(ax, -3.5, len(table) + 2.4, "Cell: a 16-byte chunk (8 halves), number = row.chunk. "
          "The same permutation as chapter 06's Swizzle<64> (tile_helpers.cuh).",
          fs=SMALL, ha="left")
    save(fig, out, "hopper_swizzle_128b.png", written)


def hopper_schedule(S, tiles):
    """A model of the producer/consumer pipeline over `tiles` K steps: times of each copy's issue
    and landing, and of each step's wgmma (start, end), and of its stage's release. Shapes, not
    measurements: a copy takes 2.2 steps of math to land, the producer needs 0.35 to issue one."""
    issue, land, start, end, release = [], [], [], [], []
    for i in range(tiles):
        t = i * 0.35
        if i >= S:
            t = max(t, release[i - S])  # the producer waits for empty[s]
        issue.append(t)
        land.append(t + 2.2)
        start.append(max(land[i], end[i - 1] if i else 0))
        end.append(start[i] + 1.0)
        release.append(end[i] + 0.12)  # the consumers arrive on empty[s] when it is read
    return issue, land, start, end, release


def draw_hopper_pipeline(ax, S, tiles, now=None):
    issue, land, start, end, release = hopper_schedule(S, tiles)
    rows = ["producer"] + [f"stage {s}" for s in range(S)] + ["consumers"]
    for r, name in enumerate(rows):
        label(ax, -0.15, 1.4 * r + 0.5, name, ha="right", fs=SMALL)
    for i in range(tiles):
        if now is not None and issue[i] > now:
            continue
        s, n = i % S, i // S
        y = 1.4 * (1 + s)
        clip = (lambda x: x) if now is None else (lambda x: min(x, now))
        rect(ax, issue[i], 0, 0.3, 1, fc=COPYING, lw=0.5)
        label(ax, issue[i] + 0.15, -0.35, str(i), fs=6.5)
        if i >= S and issue[i] > i * 0.35 + 1e-9:
            rect(ax, max(i * 0.35, issue[i - 1] + 0.3), 0.15, issue[i] - max(i * 0.35, issue[i - 1]
                 + 0.3), 0.7, fc=tint(WAIT, 0.3), ec="none", hatch="///")
        rect(ax, issue[i], y, clip(land[i]) - issue[i], 1, fc=COPYING, lw=0.5,
             text=f"TMA {i}" if now is None or now >= land[i] else None, fs=6.5)
        if now is None or now >= land[i]:
            ax.plot([land[i]], [y + 0.5], marker="v", color=SECOND, ms=7, zorder=5)
            label(ax, land[i], y - 0.22, f"F{n}", fs=6.5, color=SECOND)
        if now is None or now >= start[i]:
            rect(ax, start[i], y, clip(end[i]) - start[i], 1, fc=tint(C_COLOR, 0.7), lw=0.5)
            rect(ax, start[i], 1.4 * (S + 1), clip(end[i]) - start[i], 1, fc=tint(C_COLOR, 0.7),
                 lw=0.5, text=f"wgmma {i}" if now is None or now >= end[i] else None, fs=6.5)
        if now is None or now >= release[i]:
            ax.plot([release[i]], [y + 0.5], marker="^", color=HIGHLIGHT, ms=7, zorder=5)
            label(ax, release[i] + 0.05, y + 1.2, f"E{n}", fs=6.5, color=HIGHLIGHT, ha="left")
    if now is not None:
        ax.plot([now, now], [-0.6, 1.4 * (S + 2)], color="black", lw=1.0, ls="--", zorder=6)
    return end[-1]


def hopper_pipeline(c, out, written):
    S, cons = c["hopper"]["stages"], c["hopper"]["consumers"]
    tiles = 2 * S + 2
    total = hopper_schedule(S, tiles)[3][-1]
    title = (f"Hopper: the producer/consumer pipeline, {S} stages (1 producer thread, "
             f"{cons} consumer warpgroups)")
    note = (f"v Fn: full[s] completes phase n (the copy's bytes landed; consumers wait for parity "
            f"n % 2).   ^ En: empty[s] completes phase n\n(all consumer warps arrived; the "
            f"producer's next use of the stage waits for it). Hatched: the producer waits, "
            f"{S} copies ahead. Number: K step.")

    def base():
        fig, ax = canvas(WIDTH, 4.4, (-1.6, total + 0.3), (-1.0, 1.4 * (S + 2) + 1.6), title,
                         equal=False)
        label(ax, -1.5, 1.4 * (S + 2) + 0.4, note, fs=7.5, ha="left", va="top")
        return fig, ax
    fig, ax = base()
    draw_hopper_pipeline(ax, S, tiles)
    save(fig, out, "hopper_pipeline.png", written)
    fig, ax = base()
    times = [i * 0.5 for i in range(int(total / 0.5) + 2)]

    def frame(t):
        for p in list(ax.patches) + list(ax.texts[1:]) + list(ax.lines):
            p.remove()
        draw_hopper_pipeline(ax, S, tiles, now=t)
    save_gif(fig, frame, times, out, "hopper_pipeline.gif", written, fps=2)


def tile_grouped(t, tiles_m, tiles_n, group_m):
    """tile_grouped (06_warp_tiling/tile_helpers.cuh), the order wgmma_persistent walks C in."""
    band = t // (group_m * tiles_n)
    first = band * group_m
    rows = min(group_m, tiles_m - first)
    in_band = t - band * group_m * tiles_n
    return first + in_band % rows, in_band // rows


def hopper_persistent(c, out, written):
    h = c["kernels"]["hopper"]
    BM, BN, BK, group = h["BM"], h["BN"], h["BK"], h["group_m"]
    size, sms = c["results"]["persistent_size"], c["machine"]["sms"]
    tm, tn = size // BM, size // BN
    cw = BN / BM  # a tile is drawn BN / BM units wide and 1 tall: C keeps its shape
    gap = tn * cw + 12
    fig, ax = canvas(WIDTH, 5.5, (-4, 2 * gap - 8), (-3.4, tm + 7.5),
                     f"Hopper: the first {sms} tiles (one per SM) of wgmma_persistent at {size}^3")
    orders = [("row-major order", lambda t: (t // tn, t % tn)),
              (f"tile_grouped, bands of {group} tile rows",
               lambda t: tile_grouped(t, tm, tn, group))]
    for n, (name, where) in enumerate(orders):
        x0 = n * gap
        first = [where(t) for t in range(sms)]
        rows = sorted({r for r, _ in first})
        cols = sorted({q for _, q in first})
        rect(ax, x0, 0, tn * cw, tm, fc=tint(C_COLOR, 0.12), lw=0.8)
        for r, q in first:
            rect(ax, x0 + q * cw, r, cw, 1, fc=C_COLOR, ec="white", lw=0.3, z=2)
        for r in rows:
            rect(ax, x0 - 1.8, r, 1.2, 1, fc=A_COLOR, ec="none")
        for q in cols:
            rect(ax, x0 + q * cw, -1.8, cw, 1.2, fc=B_COLOR, ec="none")
        a_bytes, b_bytes = len(rows) * BM * BK * 2, len(cols) * BK * BN * 2
        label(ax, x0 + tn * cw / 2, -2.8, name, weight="bold", fs=SMALL)
        label(ax, x0 + tn * cw / 2, tm + 2.6,
              f"{len(rows)} panels of A (orange) + {len(cols)} of B (blue):\n"
              f"{(a_bytes + b_bytes) // 1024} KiB into L2 per K step of {BK}", fs=SMALL)
    label(ax, -3.5, tm + 6.3, f"C: {tm} x {tn} tiles of {BM} x {BN}. The {sms} tiles that run "
          "at once read a panel of A per tile row and a panel of B per tile column.",
          fs=SMALL, ha="left")
    save(fig, out, "hopper_persistent.png", written)


def hopper_cluster(c, out, written):
    """Step 4: a cluster of blocks stacked along M shares one copy of B per K step."""
    h = c["kernels"]["hopper"]
    BM, BN, BK, bn, n = h["BM"], h["BN"], h["BK"], h["box_n"], h["cluster_blocks"]
    u = 16  # elements per unit
    nb, share = BN // bn, BN // bn // n
    a_kb, b_kb = BM * BK * 2 // 1024, BK * BN * 2 // 1024
    xb, yc = BK / u + 2.5, BK / u + 2
    block_colors = [HIGHLIGHT, SECOND, WAIT, A_COLOR]
    fig, ax = canvas(WIDTH, 6.0, (-2.5, xb + BN / u + 27), (-2.6, yc + n * BM / u + 5.4),
                     f"Hopper, step 4: a cluster of {n} blocks stacked along M reads B once "
                     "(TMA multicast)")
    # Global memory: B's panel for this K step, in boxes, coloured by the block that fetches each.
    for b in range(nb):
        who = b // share
        rect(ax, xb + b * bn / u, 0, bn / u, BK / u, fc=tint(B_COLOR, 0.8), lw=1.0,
             text=f"box {b}", fs=SMALL)
        rect(ax, xb + b * bn / u, -0.7, bn / u, 0.5, fc=block_colors[who], ec="none")
    label(ax, xb + BN / u / 2, -1.5, f"B: {BK} x {BN}, the same for both blocks; the bar above a "
          "box: the block that fetches it", fs=SMALL)
    for r in range(n):
        y = yc + r * BM / u
        rect(ax, 0, y, BK / u, BM / u, fc=tint(A_COLOR, 0.5 + 0.3 * (r % 2)), lw=1.0,
             text=f"A\n{BM} x {BK}", fs=SMALL)
        rect(ax, -0.7, y, 0.5, BM / u, fc=block_colors[r], ec="none")
        rect(ax, xb, y, BN / u, BM / u, fc=tint(C_COLOR, 0.25 + 0.25 * (r % 2)), lw=1.0,
             text=f"block {r} (rank {r}): rows {r * BM}..{(r + 1) * BM - 1}\nof the cluster's "
                  f"{n * BM} x {BN} tile", fs=SMALL)
    # Shared memory of each block: its own A, and all of B, half of it copied by the other block.
    x0 = xb + BN / u + 2.5
    bw = 2.2
    for r in range(n):
        y = yc + r * (BM / u) + 0.5
        label(ax, x0, y - 0.2, f"block {r}'s stage in shared memory", fs=SMALL, ha="left",
              va="bottom", weight="bold")
        for a in range(BM // h["box_m"]):
            rect(ax, x0 + a * bw, y + 0.2, bw, 1.6, fc=tint(A_COLOR, 0.5 + 0.3 * (r % 2)),
                 lw=0.8, text=f"A{a}", fs=SMALL)
        for b in range(nb):
            who = b // share
            xx = x0 + (BM // h["box_m"] + b) * bw + 0.3
            rect(ax, xx, y + 0.2, bw, 1.6, fc=tint(B_COLOR, 0.8), lw=0.8, text=f"B{b}", fs=SMALL)
            rect(ax, xx, y + 1.9, bw, 0.35, fc=block_colors[who], ec="none")
        label(ax, x0, y + 3.0,
              f"full(s): 1 arrival + {a_kb + b_kb} KiB, {b_kb // n} KiB of them from block "
              f"{(r + 1) % n}'s copies\nempty(s): {4 * BM // 64} + {4 * BM // 64} arrivals, the "
              f"consumer warps of both blocks", fs=7.5, ha="left", va="top")
    label(ax, x0, yc + n * BM / u + 1.2,
          f"Read from L2 per block and K step:\n{a_kb} KiB of A + {b_kb // n} KiB of B = "
          f"{a_kb + b_kb // n} KiB (step 3, no\ncluster: {a_kb} + {b_kb} = {a_kb + b_kb} "
          "KiB). A multicast copy\nis read once and written into every\nblock of the cluster.",
          fs=SMALL, ha="left", va="top")
    save(fig, out, "hopper_cluster.png", written)


def tail_slices(left, clusters, k_steps, max_splits, min_steps):
    """tail_slices (07_hopper/wgmma_ws.cu): the slices of K that finish the last wave soonest."""
    if left == 0:
        return 1  # the last wave is a whole one
    best, best_time = 1, 1.0
    s = 2
    while s <= max_splits and k_steps >= s * min_steps:
        time = -(-left * s // clusters) / s
        if time < best_time:
            best, best_time = s, time
        s += 1
    return best


def hopper_tail_split(c, out, written):
    """wgmma_persistent_tail_split: the last wave's tiles cut into slices of K."""
    h = c["kernels"]["hopper"]
    BM, BN, BK, n = h["BM"], h["BN"], h["BK"], h["cluster_blocks"]
    big = c["results"]["persistent_size"]
    clusters = c["machine"]["sms"] // n
    W, H, gap, row = 20.0, 8.0, 4.0, 12.5  # a chart: clusters across, two waves down
    fig, ax = canvas(WIDTH, 6.6, (-1.0, 2 * W + gap + 1.0), (-2.0, 2 * row + 2.2),
                     f"wgmma_persistent_tail_split: the last wave cut into slices of K "
                     f"({clusters} clusters of {n})")
    col = W / clusters
    for p, size in enumerate((big // 2, big)):
        y0 = p * row
        tiles = (size // (BM * n)) * (size // BN)
        rounds, left = divmod(tiles, clusters)
        k_steps = size // BK
        s = tail_slices(left, clusters, k_steps, h["tail_max_splits"], h["tail_min_steps"])
        for q, (name, slices) in enumerate((("whole tiles", 1),
                                            (f"{s} slices of K" if s > 1 else "no split", s))):
            x0 = q * (W + gap)
            # The wave before the last: every cluster busy with a whole tile (time runs down).
            rect(ax, x0, y0, W, H / 2, fc=tint(C_COLOR, 0.35), lw=0.6,
                 text=f"wave {rounds}: {clusters} whole tiles", fs=SMALL)
            rect(ax, x0, y0 + H / 2, W, H / 2, fc=tint(WAIT, 0.25), ec="none", z=1)  # idle
            pieces = left * slices
            end = -(-pieces // clusters) / slices  # when the last cluster is done, in tiles
            for piece in range(pieces):
                cl, r = piece % clusters, piece // clusters
                rect(ax, x0 + cl * col, y0 + H / 2 + r * H / 2 / slices, col, H / 2 / slices,
                     fc=chunk_color(piece // left, max(slices, 2))[0] if slices > 1 else C_COLOR,
                     ec="white", lw=0.2, z=2)
            rect(ax, x0, y0, W, H, lw=0.8, z=3)
            ax.plot([x0 - 0.4, x0 + W + 0.4], [y0 + H / 2 + end * H / 2] * 2, color=HIGHLIGHT,
                    lw=1.6, zorder=4)
            if slices == 1 and q == 1:
                label(ax, x0 + W / 2, y0 + 3 * H / 4, f"no number of slices beats whole "
                      f"tiles:\n{left} tiles are {left / clusters:.2f} of a wave", fs=SMALL,
                      bbox=dict(fc="white", ec="none", alpha=0.85))
            label(ax, x0 + W / 2, y0 + H + 0.9, f"{name}: the last wave takes {end:.2f} of a "
                  "tile's time", fs=SMALL)
        label(ax, W + gap / 2, y0 - 1.0,
              f"{size}^3: {tiles} tiles of {n * BM} x {BN}, {k_steps} K steps each: {rounds} "
              f"waves + {left} tiles", fs=SMALL, weight="bold")
    label(ax, -0.5, 2 * row - 1.6, "A column is a cluster; time runs down; the red line: the "
          "last cluster is done. Colours: slices 0, 1, 2, ... Each piece's warps write their\n"
          f"partial sums (16 x {BN} floats) to a workspace, and the warp that arrives last adds "
          f"the slices in order. At most {h['tail_max_splits']} slices, of at least "
          f"{h['tail_min_steps']} K steps.\nWhat it cost and what it gained on an H100: "
          "docs/notes/07_hopper.md, \"What did not pay\".", fs=SMALL, ha="left", va="top")
    save(fig, out, "hopper_tail_split.png", written)


def hopper_tma_store(c, out, written):
    """Step 5: a consumer warpgroup's tile of C leaves through shared memory, by TMA."""
    h = c["kernels"]["hopper"]
    BN, rows, cols = h["BN"], h["box_c_rows"], h["box_c_cols"]
    chunk = h["staging_bytes"] // (rows * 4)  # columns per chunk: the staging buffer's width
    chunks, boxes = BN // chunk, chunk // cols
    u = 8
    fig, ax = canvas(WIDTH, 5.0, (-3, BN / u + 4), (-2.4, rows / u + 17.5),
                     "Hopper, step 5: C goes out through shared memory, by TMA, under the "
                     "next tile's wgmma")
    for q in range(chunks):
        for b in range(boxes):
            x = (q * chunk + b * cols) / u
            rect(ax, x, 0, cols / u, rows / u, fc=tint(C_COLOR, 0.35 + 0.35 * (q % 2)), lw=0.6,
                 text=f"{q}.{b}", fs=SMALL)
    label(ax, BN / u / 2, -1.2, f"A consumer warpgroup's accumulators: {rows} x {BN} fp32, in "
          f"{chunks} chunks of {chunk} columns, each {boxes} TMA boxes of {rows} x {cols} (128-byte "
          "rows)", fs=SMALL)
    ys = rows / u + 2.0
    for b in range(boxes):
        rect(ax, b * cols / u, ys, cols / u, rows / u, fc=COPYING, lw=0.8,
             text=f"box {b}", fs=SMALL)
    label(ax, boxes * cols / u + 0.8, ys + rows / u / 2,
          f"the staging buffer in shared memory: {h['staging_bytes'] // 1024} KiB per warpgroup, "
          "128-byte swizzled.\n1. all 128 threads write one chunk into it   2. fence.proxy.async, "
          "then a named barrier\n3. one thread issues the chunk's TMA stores   4. before the next "
          "chunk: wait until\n   the copy has READ the buffer (cp.async.bulk.wait_group.read)",
          fs=7.8, ha="left")
    # The time line of one warpgroup at the end of a tile: shapes, not measurements.
    yt = ys + rows / u + 2.2
    width = BN / u

    def lane(y, name, parts):
        label(ax, -0.3, y + 0.5, name, fs=SMALL, ha="right")
        for x0, w, fc, text in parts:
            rect(ax, x0 * width, y, w * width, 1, fc=fc, lw=0.5, text=text, fs=7)
    lane(yt, "step 4", [(0, 0.22, tint(C_COLOR, 0.7), "wgmma, last K steps"),
                        (0.22, 0.26, tint(WAIT, 0.4), "stores from registers"),
                        (0.48, 0.52, tint(C_COLOR, 0.7), "next tile's wgmma")])
    # Chunk q + 1 is written only once copy q has READ the one staging buffer (wait_group.read):
    # a copy reads the buffer first (short), then writes C (longer), while the next chunk is written.
    wr, rd, wc = 0.035, 0.012, 0.03  # writing a chunk, the copy's read of it, its write to C
    start = [0.22 + q * (wr + rd) for q in range(chunks)]
    lane(yt + 1.7, "step 5", [(0, 0.22, tint(C_COLOR, 0.7), "wgmma, last K steps")]
         + [(s, wr, COPYING, str(q)) for q, s in enumerate(start)]
         + [(s + wr, rd, tint(WAIT, 0.4), "") for s in start[:-1]]
         + [(start[-1] + wr, 1 - start[-1] - wr, tint(C_COLOR, 0.7), "next tile's wgmma")])
    lane(yt + 2.9, "copy engine", [part for q, s in enumerate(start) for part in
                                   ((s + wr, rd, tint(B_COLOR, 0.9), ""),
                                    (s + wr + rd, wc, tint(B_COLOR, 0.5), f"{q}"))])
    label(ax, (start[-1] + wr + rd + wc + 0.02) * width, yt + 3.4,
          "dark: a copy reads the buffer; light: it writes C. The warpgroup waits (grey) for the "
          "read\nbefore it writes the next chunk; the last chunk's copy runs under the next "
          "tile's wgmma", fs=7.5, ha="left")
    save(fig, out, "hopper_tma_store.png", written)


# ---- docs/tile_size_tradeoffs.md ------------------------------------------------------------------

# The kernels of the page's worked examples (section 3), in chapter order, and the Hopper kernel
# (drawn where resources.csv lists it: a GPU without sm_90a does not run it).
BUDGET_KERNELS = ["shared_tiling_8", "thread_tiling_tm8", "tiling_2d_double_buffer",
                  "wmma_direct (tiles inside C)", "mma_sync_ptx", "wgmma_persistent"]


def sm_budget(c, out, written):
    """Which of an SM's limits binds: each kernel's blocks laid into the SM's threads, registers
    and shared memory, from resources.csv and the SM's sizes."""
    hw, m = c["kernels"]["hardware"], c["machine"]
    regs, smem_kb = int(m["registers_per_sm"]), int(m["shared_kb"])
    rows = []
    for name in BUDGET_KERNELS:
        if name not in c["budget"]:  # not run on this GPU (07's kernels off Hopper)
            continue
        r = c["budget"][name]
        t, rg, sh = r["threads"], r["regs"], r["smem"]
        unit = hw["register_unit_per_thread"]
        per = {"threads": (t, hw["max_threads_per_sm"]),
               "registers": (t * (-(-rg // unit) * unit), regs),
               "shared memory": (sh + hw["shared_reserved_per_block"], smem_kb * 1024)}
        fits = {k: cap // need for k, (need, cap) in per.items()}
        fits["blocks"] = hw["max_blocks_per_sm"]
        resident = min(fits.values())
        if resident != r["blocks_per_sm"]:
            sys.exit(f"diagrams.py: {name}: the SM's limits give {resident} blocks, the occupancy "
                     f"API {r['blocks_per_sm']} (resources.csv)")
        rows.append((name, r, per, fits, resident))
    W = 40.0  # the length of a bar: the whole of one SM resource
    bar, gap = 0.9, 1.3
    height = len(rows) * (3 * bar + gap)
    fig, ax = canvas(WIDTH, 7.0, (-21, W + 21), (-0.8, height + 1.6),
                     f"Which limit binds: each kernel's blocks laid into one SM of the {m['device']}",
                     equal=False)
    y = 0.0
    for name, r, per, fits, resident in rows:
        bind = [k for k, v in fits.items() if v == resident]
        label(ax, -20.5, y + 1.5 * bar, f"{r['chapter']}\n{name.split(' (')[0]}", fs=7.5,
              ha="left", weight="bold")
        for i, (k, (need, cap)) in enumerate(per.items()):
            yy = y + i * bar
            rect(ax, 0, yy, W, bar * 0.85, fc="white", lw=0.6)
            step = W * need / cap
            for b in range(min(fits[k], 400)):
                fc = C_COLOR if b < resident else tint(WAIT, 0.35)
                rect(ax, b * step, yy, step, bar * 0.85, fc=fc, ec="white",
                     lw=0.3 if step > 0.4 else 0, z=2)
            label(ax, -0.3, yy + 0.42 * bar, k, fs=7, ha="right")
            blocks = f"{fits[k]} block{'s' if fits[k] != 1 else ''}"
            label(ax, W + 0.4, yy + 0.42 * bar, blocks,
                  fs=7, ha="left", color=HIGHLIGHT if k in bind else "black",
                  weight="bold" if k in bind else "normal")
        occ = resident * r["threads"] / hw["max_threads_per_sm"]
        label(ax, W + 6.5, y + 1.5 * bar,
              f"{resident} resident\n({', '.join(bind)})"
              f"\noccupancy {occ * 100:g}%", fs=7.5, ha="left")
        y += 3 * bar + gap
    label(ax, -20.5, height + 0.2, "Each bar is the whole SM; a block takes one cell (its threads; "
          f"its registers, rounded up to {hw['register_unit_per_thread']} per thread; its shared "
          f"memory + {hw['shared_reserved_per_block']} bytes).\nGreen: the blocks that are "
          "resident; grey: more that would fit, but another limit binds (in red). At most "
          f"{hw['max_blocks_per_sm']} blocks per SM.", fs=7, ha="left", va="top")
    save(fig, out, "sm_budget.png", written)


# ---- Main ---------------------------------------------------------------------------------------

# Every diagram: the function that draws it and the files it writes (in OUTDIR).
DIAGRAMS = [
    (memory_hierarchy, ["memory_hierarchy.png"]),
    (cpu_loop_order, ["00_loop_order.png"]),
    (cpu_cache_blocking, ["00_cache_blocking.png"]),
    (naive_thread_map, ["01_thread_map.png"]),
    (naive_coalescing, ["01_coalescing.png"]),
    (shared_tiles_along_k, ["02_tiles_along_k.png"]),
    (shared_barriers, ["02_barriers.png"]),
    (thread_column, ["03_thread_column.png"]),
    (thread_block_map, ["03_block_map.png"]),
    (outer_product, ["04_outer_product.png"]),
    (float4_alignment_04, ["04_float4_alignment.png"]),
    (bank_model_04, ["04_bank_model.png"]),
    (tile_hierarchy_04, ["04_tile_hierarchy.png"]),
    (double_buffer, ["04_double_buffer.png"]),
    (waves_04, ["04_waves.png"]),
    (split_k_04, ["04_split_k.png"]),
    (wmma_warp_tiles, ["05_warp_tiles.png"]),
    (wmma_fragments, ["05_fragments.png"]),
    (tile_hierarchy_06, ["06_tile_hierarchy.png"]),
    (bank_conflicts, ["06_bank_conflicts.png"]),
    (vec_loads_06, ["06_vec_loads.png"]),
    (swizzle_06, ["06_swizzle.png"]),
    (ldmatrix_06, ["06_ldmatrix.png"]),
    (mma_fragment_06, ["06_mma_fragment.png"]),
    (cp_async_ring, ["06_cp_async_ring.png", "06_cp_async_ring.gif"]),
    (register_pipeline_06, ["06_register_pipeline.png"]),
    (hopper_tma_boxes, ["hopper_tma_boxes.png"]),
    (hopper_swizzle_128b, ["hopper_swizzle_128b.png"]),
    (hopper_pipeline, ["hopper_pipeline.png", "hopper_pipeline.gif"]),
    (hopper_persistent, ["hopper_persistent.png"]),
    (hopper_cluster, ["hopper_cluster.png"]),
    (hopper_tma_store, ["hopper_tma_store.png"]),
    (hopper_tail_split, ["hopper_tail_split.png"]),
    (sm_budget, ["sm_budget.png"]),
]


def differences(old, new, path=""):
    """The keys at which two nested dictionaries differ, with both values."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            out += differences(old.get(k), new.get(k), f"{path}.{k}" if path else k)
        return out
    return [] if old == new else [(path, old, new)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--program", help="run this diagram_constants binary for the kernel constants")
    src.add_argument("--constants", help="read the kernel constants from this JSON file (the "
                     "output of diagram_constants)")
    ap.add_argument("--figures", default=str(FIGURES),
                    help="folder of machine.csv, resources.csv and results.csv (default: %(default)s)")
    ap.add_argument("--out", default=str(OUTDIR), help="where to draw (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="draw nothing: fail if the committed diagrams were drawn from other "
                         "numbers than the kernels and the CSVs have now, or one is missing")
    ap.add_argument("--list", action="store_true", help="print the names of the files it draws")
    args = ap.parse_args()
    names = [n for _, files in DIAGRAMS for n in files]
    if args.list:
        print("\n".join(names))
        return 0
    out = pathlib.Path(args.out)
    committed = OUTDIR / INPUTS
    if args.program:
        kernels = run_program(args.program)
    elif args.constants:
        kernels = json.loads(pathlib.Path(args.constants).read_text())
    elif committed.exists():
        kernels = json.loads(committed.read_text())["kernels"]
    else:
        sys.exit(f"diagrams.py: no {committed}: give --program build/bin/diagram_constants")
    figures = pathlib.Path(args.figures)
    c = gather(kernels, load_csv(figures / "machine.csv"), load_csv(figures / "resources.csv"),
               load_csv(figures / "results.csv"))
    if args.check:
        problems = []
        if not committed.exists():
            problems.append(f"{committed.relative_to(ROOT)} is missing")
        else:
            for key, old, new in differences(json.loads(committed.read_text()), c):
                problems.append(f"{key}: the diagrams were drawn with {old}, now {new}")
        problems += [f"{n} is missing" for n in names if not (OUTDIR / n).exists()]
        if problems:
            print("diagrams.py --check: the diagrams in docs/figures/diagrams/ do not match the "
                  "kernels and the CSVs:\n  " + "\n  ".join(problems) + "\nRedraw them: "
                  "cmake --build build --target diagram_constants && python3 scripts/diagrams.py"
                  " --program build/bin/diagram_constants", file=sys.stderr)
            return 1
        print(f"diagrams.py --check: {len(names)} diagrams, drawn from the kernels' constants and "
              "the CSVs as they are now")
        return 0
    if matplotlib is None:
        sys.exit("diagrams.py: drawing needs matplotlib (pip install -r scripts/requirements.txt)")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for draw, files in DIAGRAMS:
        draw(c, out, written)
        missing = [f for f in files if f not in written]
        if missing:
            sys.exit(f"diagrams.py: {draw.__name__} did not write {', '.join(missing)}")
    (out / INPUTS).write_text(json.dumps(c, indent=1, sort_keys=True) + "\n")
    print(f"diagrams.py: {len(written)} diagrams -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
