"""Chapter 00's pictures: the CPU's loop order and cache blocking."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)


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
