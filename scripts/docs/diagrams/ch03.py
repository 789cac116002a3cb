"""Chapter 03's pictures: a column of TM outputs per thread, and the block's map of threads."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)


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
