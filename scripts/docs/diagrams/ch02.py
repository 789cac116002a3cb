"""Chapter 02's pictures: tiles of A and B along K in shared memory, and the two barriers."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)


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
