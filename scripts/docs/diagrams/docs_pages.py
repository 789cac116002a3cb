"""The pictures of the shared pages in docs/: the memory hierarchy (memory_hierarchy.md) and one
SM's budget (tile_size_tradeoffs.md)."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)
from .inputs import BUDGET_KERNELS


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


# ---- docs/tile_size_tradeoffs.md ------------------------------------------------------------------



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
            sys.exit(f"diagrams: {name}: the SM's limits give {resident} blocks, the occupancy "
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
