"""Chapter 04's pictures: the outer product, float4 alignment, the bank model, the hierarchy of
tiles, the double buffer, waves and split-K."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)
from .inputs import plan, shape_aware_example  # noqa: F401


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
        sys.exit("diagrams: the waves example ran no split-K; 04_split_k.png needs one")
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
