"""Chapter 05's pictures: a warp per 16 x 16 tile, and WMMA's fragments."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)


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
