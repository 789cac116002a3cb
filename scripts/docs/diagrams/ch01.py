"""Chapter 01's pictures: one thread per element of C, and coalescing."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)


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
