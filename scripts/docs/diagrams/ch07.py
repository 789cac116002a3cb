"""Chapter 07's pictures: TMA boxes, the 128-byte swizzle, the warp-specialized pipeline, the
persistent tile order, clusters, the TMA store and the tail split."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)
from .ch06 import swizzle_grid  # 06's grid of a swizzled row, drawn again for TMA's swizzle


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
    """tail_slices (07_hopper/wgmma_persistent_tail_split.cu): the slices of K that finish the
    last wave soonest."""
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
