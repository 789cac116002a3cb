"""Chapter 06's pictures: block and warp tiles, bank conflicts, 128-bit loads, the swizzle,
ldmatrix, the mma.sync fragment, the cp.async ring and the register pipeline."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)


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
        sys.exit("diagrams: 06_register_pipeline.png draws a K step of 2 slices")
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
