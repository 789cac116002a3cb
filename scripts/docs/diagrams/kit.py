"""The drawing kit of the teaching diagrams: the palette (A, B and C keep their colours in every
picture), the canvas, rectangles, grids, arrows, braces and labels, and saving PNGs and GIFs.
Every chapter's module draws with these and nothing else."""

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

ROOT = pathlib.Path(__file__).resolve().parents[3]  # scripts/docs/diagrams/kit.py -> the repository
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


COPYING = tint(OKABE_ITO["yellow"], 0.7)  # a tile on its way into shared memory
