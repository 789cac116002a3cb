#!/usr/bin/env python3
"""Figures for the docs, drawn from the benchmark CSVs alone (never from numbers typed by hand).

    python3 scripts/docs/plot.py docs/figures/results.csv docs/figures

reads results.csv (scripts/run/bench_all.sh) and, when they lie next to it, machine.csv
(machine_probe), resources.csv (--resources-csv), profile.csv (scripts/measure/profile.py) and
error_study.csv (05_tensor_core --error-study), and writes into OUTDIR:

  ladder.png          each chapter's headline at 4096^3 as bars; cuBLAS fp32 and fp16 as lines;
                      the chip's FP32 and tensor-core peaks (computed from its SM count, clock and
                      architecture: fp32_peak, tensor_peak) and machine_probe's measured FMA ceiling
  gflops_vs_size.png  each headline's GFLOPS against the (square) size, with cuBLAS
  shapes.png          each headline at the awkward and skinny shapes, as % of cuBLAS
  waves.png           the lesson of waves (docs/tile_size_tradeoffs.md): a shape-aware launcher
                      against the same kernel with its one fixed tile, GFLOPS against the size and
                      % of cuBLAS at the skinny shapes, each point labelled with what ran (drawn
                      when results.csv has both variants)
  roofline.png        the roofline of this GPU (measured DRAM and L2 bandwidth; the chip's computed
                      FP32 and tensor-core peaks as roofs; the measured FMA ceiling, the measured
                      wmma and mma.sync ceilings (machine.csv rows of 06 --wmma-ceiling) and
                      cuBLAS at its best as separate lines) with each chapter at the arithmetic
                      intensity its README derives (and, with profile.csv, at the DRAM intensity
                      Nsight Compute measured)
  tile_sweep_02.png   chapter 02's tile sizes: GFLOPS next to the occupancy the occupancy API
                      computes (and the achieved occupancy, with profile.csv)
  latency.png         the latency of a dependent global load against the data's footprint
                      (machine_probe): one plateau per level of the memory hierarchy
  fp16_error.png      chapter 05's error study: fp16-input error and fp32-accumulation error vs K

Other GPUs: every folder next to results.csv that holds a results.csv of its own (docs/figures/h100/,
written by scripts/run/bench_my_gpu.sh) is another GPU's run of the same benchmark. For each, OUTDIR gets

  ladder_NAME.png     that GPU's ladder, drawn as ladder.png
  timing_NAME.png     where that folder has timing_samples.csv (a program's --samples-csv): every
                      timed run of cuBLAS and a variant, timed one after the other and in turns
                      (docs/benchmarking.md, section 5); timing.png from the reference folder's
  energy_NAME.png     where that folder has energy.csv (a program's --energy-csv): each kernel's
                      joules per GEMM as % of cuBLAS's, one panel per process, with the mean power
                      and SM clock of its run; energy.png from the reference folder's
  timing_ways_NAME.png  where that folder has power_limit/ways.csv and ways_energy.csv
                      (scripts/measure/power_limit.sh): 07's headline as % of cuBLAS, a dot per
                      process, for every way of timing (docs/notes/07_hopper.md)
  epilogue_h100.png   where docs/figures/records/L_07_epilogue_floor.csv exists: chapter 07's step 5
                      at 4096^3, a consumer's cycles after its K loop, piece by piece, from clock64
                      stamps (docs/notes/07_hopper.md, "Where the epilogue's cycles go")
  gpus.png            every GPU side by side: each chapter's headline at 4096^3 in TFLOPS and as
                      % of cuBLAS on the same GPU (drawn when there is at least one other GPU)
Exits 1 if a figure cannot be drawn because its data is missing. Needs matplotlib
(scripts/requirements.txt).
"""
import argparse
import csv
import json
import pathlib
import statistics
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from results_table import SHAPE_AWARE  # noqa: E402  (scripts/, next to this file)

SIZE = 4096
CUBLAS = {"f32": ("cuBLAS SGEMM (fp32)", "#c44e52", "--"),
          "f16": ("cuBLAS fp16 in, fp32 acc", "#8172b2", ":")}


def intensities(rows, constants):
    """The arithmetic intensity of each headline at 4096^3: FLOP per byte of global memory the
    kernel asks for, as each chapter's README derives it (docs/roofline.md collects the
    derivations), from the kernels' constants (docs/figures/diagrams/inputs.json, held to the code
    by the ctest diagrams_match_kernels) and, for the shape-aware launchers, from the tile that
    results.csv says the headline ran ("ran 128x256")."""
    k = constants.get("kernels", {})

    def ran_tile(chapter, default):
        h = headline(rows, chapter, (SIZE,) * 3)
        note = (h or {}).get("note", "")
        if note.startswith("ran ") and "x" in note:
            bm, bn = note.split()[1].split("x")[:2]
            return int(bm), int(bn)
        return default

    def fp32(bm, bn):  # per step of k: (BM + BN) floats of 4 bytes, 2 BM BN FLOP
        return bm * bn / (2.0 * (bm + bn))

    def fp16(bm, bn):  # the same with 2-byte halves
        return bm * bn / float(bm + bn)

    out = {"01_naive": 2.0 / (2 * 4)}  # one A and one B float per FMA of 2 FLOP
    if "02_shared_tiling" in k:
        out["02_shared_tiling"] = k["02_shared_tiling"]["tile"] / 4.0  # 2 / TILE loads per FMA
    if "03_thread_tiling" in k:
        out["03_thread_tiling"] = fp32(k["03_thread_tiling"]["BM"], k["03_thread_tiling"]["BN"])
    if "04_2d_tiling" in k:
        out["04_2d_tiling"] = fp32(*ran_tile("04_2d_tiling", (k["04_2d_tiling"]["BM"], k["04_2d_tiling"]["BN"])))
    if "05_tensor_core" in k:  # one m x n x k fragment product per fragment of A and of B, in halves
        f = k["05_tensor_core"]
        out["05_tensor_core"] = (2.0 * f["wmma_m"] * f["wmma_n"] * f["wmma_k"] /
                                 (2 * (f["wmma_m"] * f["wmma_k"] + f["wmma_k"] * f["wmma_n"])))
    if "06_warp_tiling" in k:
        out["06_warp_tiling"] = fp16(*ran_tile("06_warp_tiling", (k["06_warp_tiling"]["BM"], k["06_warp_tiling"]["BN"])))
    if "hopper" in k:
        out["07_hopper"] = fp16(k["hopper"]["BM"], k["hopper"]["BN"])  # each block's tile, by TMA
    return out


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def dims(r):
    return int(r["m"]), int(r["n"]), int(r["k"])


def plain(r):
    return "@" not in r["variant"]


def gpu_chapters(rows):
    return sorted({r["chapter"] for r in rows if r["chapter"][:2].isdigit() and
                   r["chapter"] != "00_cpu_reference"})


def headline(rows, chapter, shape):
    """The headline is the first variant a chapter program runs (and so the first row)."""
    for r in rows:
        if r["chapter"] == chapter and dims(r) == shape and plain(r):
            return r
    return None


def baseline(rows, precision, shape):
    found = [r for r in rows if r["chapter"] == "cublas" and r["precision"] == precision
             and dims(r) == shape and plain(r)]
    return max(float(r["gflops"]) for r in found) if found else None


def label(chapter):
    return chapter.split("_", 1)[1].replace("_", " ")


def save(fig, out, name, written):
    fig.tight_layout()
    fig.savefig(out / name, dpi=130)
    plt.close(fig)
    written.append(name)


def ladder(rows, out, written, name="ladder.png", machine=()):
    sq = (SIZE,) * 3
    chapters = [c for c in gpu_chapters(rows) if headline(rows, c, sq)]
    heads = [headline(rows, c, sq) for c in chapters]
    if not heads:  # a CSV without the GPU sweep (bench_all.sh with SWEEP=0 into a new folder)
        print(f"plot.py: {name} not drawn: no GPU chapter was run at {SIZE}^3")
        return
    tflops = [float(h["gflops"]) / 1000 for h in heads]
    fig, ax = plt.subplots(figsize=(8.5, 4.8))
    colors = ["#4c72b0" if h["precision"] == "f32" else "#55a868" for h in heads]
    bars = ax.bar(range(len(chapters)), tflops, color=colors)
    ax.bar_label(bars, labels=[f"{t:.1f}" for t in tflops], fontsize=8)
    for prec, (text, color, style) in CUBLAS.items():
        base = baseline(rows, prec, sq)
        if base:
            # The fastest cuBLAS of any chapter's table: each bar's own % of cuBLAS compares it
            # with the cuBLAS of its own table, which may be slower (benchmarking.md, section 5).
            ax.axhline(base / 1000, linestyle=style, color=color,
                       label=f"{text}, fastest of the chapters' tables: {base / 1000:.0f}")
    # The same peaks as roofline.png: computed from the chip's attributes, and what machine_probe
    # measured (when its machine.csv is at hand).
    tensor, how = tensor_peak(machine, heads[0]["device"]) if heads and machine else (None, "")
    if tensor:
        ax.axhline(tensor / 1000, linestyle="-", color="#8172b2", linewidth=0.8,
                   label=f"tensor-core peak, fp16 in ({how}): {tensor / 1000:.0f}")
    peak = fp32_peak(rows)
    if peak:
        ax.axhline(peak / 1000, linestyle="-", color="gray", linewidth=0.8,
                   label=f"FP32 peak ({FP32_HOW}): {peak / 1000:.1f}")
    fma = machine_value(machine, "FP32", "FMA peak") if machine else None
    if fma:
        ax.axhline(fma / 1000, linestyle="--", color="gray", linewidth=0.8,
                   label=f"measured FP32 FMA ceiling (machine_probe): {fma / 1000:.1f}")
    # Slanted, so that long variant names (tiling_2d_shape_aware, mma_sync_pipelined) do not overlap.
    ax.set_xticks(range(len(chapters)), [f"{c[:2]} {label(c)}\n{h['variant']}" for c, h in zip(chapters, heads)],
                  fontsize=7, rotation=20, ha="right", rotation_mode="anchor")
    ax.set_yscale("log")
    ax.set_ylabel("TFLOPS at 4096^3 (log scale)")
    ax.set_title(f"The ladder on the {heads[0]['device']} (blue: fp32, green: fp16 inputs)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    save(fig, out, name, written)


def other_gpus(here):
    """{folder name: rows} for every folder next to results.csv that holds a results.csv."""
    return {d.name: load(d / "results.csv") for d in sorted(here.iterdir())
            if d.is_dir() and (d / "results.csv").exists()}


def gpus(sets, out, written):
    """Each chapter's headline at 4096^3 on every GPU: TFLOPS (left), % of cuBLAS (right)."""
    sq = (SIZE,) * 3
    chapters = sorted({c for rows in sets.values() for c in gpu_chapters(rows)})
    fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(14, 4.8))
    width = 0.8 / len(sets)
    for i, (device, rows) in enumerate(sets.items()):
        heads = [headline(rows, c, sq) for c in chapters]
        x = [j + (i - (len(sets) - 1) / 2) * width for j in range(len(chapters))]
        tflops = [float(h["gflops"]) / 1000 if h else 0 for h in heads]
        pct = [max(float(h["pct_of_cublas"]), 0) if h else 0 for h in heads]
        # Each GPU's results may come from another commit: the legend says which.
        commits = sorted({h["commit"] for h in heads if h})
        name = f"{device} (commit {', '.join(commits)})"
        ax_t.bar(x, tflops, width, label=name)
        bars = ax_p.bar(x, pct, width, label=name)
        ax_p.bar_label(bars, labels=[f"{p:.0f}" if p else "" for p in pct], fontsize=6)
    # The headline is the fastest kernel that runs on each GPU, so it may differ between them.
    names = [sorted({h["variant"] for rows in sets.values() if (h := headline(rows, c, sq))})
             for c in chapters]
    ticks = [f"{c[:2]} {label(c)}\n" + "\n".join(n) for c, n in zip(chapters, names)]
    for ax in (ax_t, ax_p):
        ax.set_xticks(range(len(chapters)), ticks, fontsize=6)
    ax_t.set_yscale("log")
    ax_t.set_ylabel("TFLOPS at 4096^3 (log scale)")
    ax_p.set_ylabel("% of cuBLAS (same precision, same GPU, same process)")
    ax_p.axhline(100, color="gray", linewidth=0.8, linestyle="--")
    ax_t.legend(fontsize=7, loc="upper left")
    fig.suptitle("Each chapter's headline on every GPU measured", fontsize=10)
    save(fig, out, "gpus.png", written)


def gflops_vs_size(rows, out, written):
    # The powers of two of the sweep (1000 and 4093 are on the shapes figure).
    sizes = sorted({dims(r)[0] for r in rows if dims(r)[0] == dims(r)[1] == dims(r)[2]
                    and dims(r)[0] & (dims(r)[0] - 1) == 0})
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for c in gpu_chapters(rows):
        pts = [(s, headline(rows, c, (s,) * 3)) for s in sizes]
        pts = [(s, float(h["gflops"])) for s, h in pts if h]
        if pts:
            name = headline(rows, c, (pts[0][0],) * 3)["variant"]
            ax.plot(*zip(*pts), "o-", markersize=4, label=f"{c[:2]} {name}")
    for prec, (text, color, style) in CUBLAS.items():
        pts = [(s, baseline(rows, prec, (s,) * 3)) for s in sizes]
        pts = [p for p in pts if p[1]]
        if pts:
            ax.plot(*zip(*pts), style, color=color, linewidth=2, label=text)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.set_xlabel("M = N = K")
    ax.set_ylabel("GFLOPS (log scale)")
    ax.set_title("Each chapter's headline against the problem size")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, which="major", alpha=0.3)
    save(fig, out, "gflops_vs_size.png", written)


def shapes(rows, out, written):
    odd = []
    for r in rows:
        s = dims(r)
        if r["chapter"] == "cublas" and plain(r) and not (s[0] == s[1] == s[2] and s[0] != 4093 and s[0] != 1000) \
                and s not in odd:
            odd.append(s)
    chapters = gpu_chapters(rows)
    fig, ax = plt.subplots(figsize=(9, 4.8))
    width = 0.8 / max(len(chapters), 1)
    for i, c in enumerate(chapters):
        vals = []
        for s in odd:
            h = headline(rows, c, s)
            vals.append(float(h["pct_of_cublas"]) if h and float(h["pct_of_cublas"]) >= 0 else 0)
        ax.bar([j + i * width for j in range(len(odd))], vals, width, label=f"{c[:2]} {label(c)}")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(odd))], ["x".join(map(str, s)) for s in odd],
                  fontsize=8, rotation=30, ha="right")
    ax.set_ylabel("% of cuBLAS (same precision, same shape)")
    ax.set_yscale("log")
    ax.set_title("Headlines at awkward and skinny shapes (M x N x K)")
    ax.legend(fontsize=7, ncol=3)
    save(fig, out, "shapes.png", written)


# The shape-aware launchers and the same kernel with its one large tile (the "fixed" variant):
# SHAPE_AWARE, imported from results_table.py with the tables.


def variant_row(rows, chapter, variant, shape):
    for r in rows:
        if r["chapter"] == chapter and r["variant"] == variant and dims(r) == shape:
            return r
    return None


def waves(rows, out, written):
    pairs = [(c, *v) for c, v in SHAPE_AWARE.items()
             if any(r["chapter"] == c and r["variant"] == v[0] for r in rows)]
    if not pairs:
        return False
    sizes = sorted({dims(r)[0] for r in rows if dims(r)[0] == dims(r)[1] == dims(r)[2]
                    and dims(r)[0] & (dims(r)[0] - 1) == 0})
    skinny = []
    for r in rows:
        s = dims(r)
        if r["chapter"] == "cublas" and plain(r) and 8 * min(s) <= max(s) and s not in skinny:
            skinny.append(s)  # one dimension at most 1/8 of another (4096 x 4096 x 4100 is not)
    fig, axes = plt.subplots(len(pairs), 2, figsize=(12, 4.4 * len(pairs)), squeeze=False)
    for (chapter, aware, fixed, prec), (ax, bx) in zip(pairs, axes):
        # The chapter's headline too, where it is another kernel than the shape-aware launcher, as
        # the tables of results_table.py show it.
        headline = next(r["variant"] for r in rows if r["chapter"] == chapter and "@" not in r["variant"])
        series = [(fixed, "s--", "#888888"), (aware, "o-", "#4c72b0")]
        if headline not in (aware, fixed):
            series.append((headline, "^-", "#55a868"))
        for variant, style, color in series:
            pts = [(s, variant_row(rows, chapter, variant, (s,) * 3)) for s in sizes]
            pts = [(s, float(r["gflops"]) / 1000, r["note"]) for s, r in pts if r]
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, label=variant)
            if variant != fixed:  # what the launcher chose, at each size
                for x, y, note in pts:
                    ax.annotate(note.replace("ran ", ""), (x, y), textcoords="offset points",
                                xytext=(0, -12 if variant == aware else 6), ha="center",
                                fontsize=6, color=color)
        text, color, style = CUBLAS[prec]
        pts = [(s, baseline(rows, prec, (s,) * 3)) for s in sizes]
        pts = [(s, g / 1000) for s, g in pts if g]
        if pts:
            ax.plot(*zip(*pts), style, color=color, linewidth=2, label=text)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [str(s) for s in sizes])
        ax.set_xlabel("M = N = K")
        ax.set_ylabel("TFLOPS")
        ax.set_title(f"{chapter[:2]}: one fixed tile against a choice by waves")
        ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
        width = 0.78 / len(series)
        top = 0
        notes_at = []
        for i, (variant, _, color) in enumerate(series):
            vals, notes = [], []
            for s in skinny:
                r = variant_row(rows, chapter, variant, s)
                vals.append(max(float(r["pct_of_cublas"]), 0) if r else 0)
                notes.append(r["note"].replace("ran ", "") if r and variant != fixed else "")
            top = max([top] + vals)
            xs = [j + i * width for j in range(len(skinny))]
            bx.bar(xs, vals, width, color=color, label=variant)
            notes_at.append((xs, vals, notes))
        # What the launcher chose, written up each bar from its foot: each note keeps to its own
        # bar, so neighbouring notes cannot overlap (written above the bars, long notes ran into
        # each other and into the legend). A bar too short for its note gets it above, in black.
        for xs, vals, notes in notes_at:
            for x, v, n in zip(xs, vals, notes):
                if not n:
                    continue
                inside = v >= 0.4 * top
                bx.text(x, top * 0.02 if inside else v + top * 0.02, n, rotation=90, ha="center",
                        va="bottom", fontsize=6, color="white" if inside else "black")
        bx.set_ylim(0, top * 1.3 + 1)  # room for the legend above the bars
        bx.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(skinny))],
                      ["x".join(map(str, s)) for s in skinny], fontsize=7, rotation=20)
        bx.set_ylabel("% of cuBLAS")
        bx.set_title(f"{chapter[:2]}: skinny shapes (M x N x K)")
        bx.legend(fontsize=7, loc="upper left", ncol=len(series))
    save(fig, out, "waves.png", written)
    return True


def machine_value(machine, level, prefix, source="measured"):
    for r in machine:
        if r["level"] == level and r["quantity"].startswith(prefix) and r["source"] == source:
            return float(r["value"])
    return None


# Dense fp16 tensor-core multiply-adds per SM per clock with fp32 accumulation, by compute
# capability (docs/roofline.md, section 2), as the datasheets of the data-centre parts give them
# (V100, T4, A100, A40, L4, H100: peak / (2 x SMs x boost clock)). GeForce cards of 7.5, 8.6 and
# 8.9 accumulate in fp32 at half that rate. 8.7 (Jetson Orin) is an assumption, 8.6's rate: no
# NVIDIA document found gives Orin's fp16 tensor rate. (The FP32 peak needs no table here: the
# programs compute it, DeviceInfo::peak_fp32_gflops, and write it into every row of results.csv.)
TENSOR_MACS_PER_SM = {7.0: 512, 7.5: 512, 8.0: 1024, 8.6: 512, 8.7: 512, 8.9: 512, 9.0: 2048}
# machine.csv files written before machine_probe recorded the compute capability: by the name.
CC_BY_NAME = {"H100": 9.0, "H200": 9.0, "GH200": 9.0, "A100": 8.0, "V100": 7.0, "T4": 7.5}
FP32_HOW = "SMs x FP32 lanes x 2 x max clock"


def fp32_peak(rows):
    """The chip's FP32 peak in GFLOPS, as the programs computed it (0 if unknown)."""
    return max((float(r["peak_fp32_gflops"]) for r in rows if r.get("peak_fp32_gflops")), default=0)


def tensor_peak(machine, device):
    """The chip's fp16 tensor-core peak in GFLOPS from its SM count, maximum SM clock and
    TENSOR_MACS_PER_SM, with a label saying how; (None, "") when the architecture is unknown."""
    sms = machine_value(machine, "SM", "SMs", "attribute")
    mhz = machine_value(machine, "SM", "max SM clock", "attribute")
    cc = machine_value(machine, "SM", "compute capability", "attribute")
    if cc is None:
        cc = next((v for k, v in CC_BY_NAME.items() if k in device.split()), None)
    if not sms or not mhz or cc is None or round(cc, 1) not in TENSOR_MACS_PER_SM:
        return None, ""
    macs = TENSOR_MACS_PER_SM[round(cc, 1)]
    if round(cc, 1) in (7.5, 8.6, 8.9) and "GeForce" in device:
        macs //= 2  # GeForce cards accumulate fp16 products in fp32 at half the rate (above)
    return sms * macs * 2 * mhz / 1000, f"{sms:.0f} SMs x {macs} MAC x 2 x {mhz:.0f} MHz"


def roofline(rows, machine, profile, out, written, constants):
    INTENSITY = intensities(rows, constants)  # noqa: N806 (a table, read like the constant it was)
    dram = machine_value(machine, "DRAM", "read bandwidth")
    l2 = machine_value(machine, "L2", "read bandwidth")
    fma = machine_value(machine, "FP32", "FMA peak")  # machine_probe's measured FMA ceiling
    sq = (SIZE,) * 3
    device = next(r["device"] for r in rows if r["chapter"] == "cublas")
    tensor_roof, how = tensor_peak(machine, device)
    # The roofs are the chip's: computed peaks (solid). What code reached is drawn separately:
    # the measured FMA ceiling (dashed), cuBLAS at its best (dotted).
    computed = fp32_peak(rows)
    fp32_roof = computed or fma
    cublas16 = max([b for b in (baseline(rows, "f16", (s,) * 3) for s in (4096, 8192)) if b] or [0])
    cublas32 = max([b for b in (baseline(rows, "f32", (s,) * 3) for s in (4096, 8192)) if b] or [0])
    fig, ax = plt.subplots(figsize=(12.5, 5.6))
    x = [2 ** (e / 4) for e in range(-12, 41)]  # 1/8 to 1024 FLOP per byte
    roof_label = (f"FP32 peak {fp32_roof / 1000:.1f} TFLOPS ({FP32_HOW})" if computed
                  else f"FP32 peak {fma / 1000:.1f} TFLOPS (measured)")
    for bw, name, style in ((dram, "DRAM", "-"), (l2, "L2", "-.")):
        ax.plot(x, [min(bw * i, fp32_roof) for i in x], style, color="black", linewidth=1.2,
                label=f"{name} {bw / 1000:.1f} TB/s (measured); {roof_label}")
    if tensor_roof:
        ax.plot(x, [min(dram * i, tensor_roof) for i in x], "-", color="#8172b2", linewidth=1.0,
                label=f"tensor-core peak, fp16 in, fp32 acc: {tensor_roof / 1000:.0f} TFLOPS ({how})")
    lines = [(fma, "--", "gray", "measured FP32 FMA ceiling (machine_probe)")] if computed else []
    # The tensor-core ceilings that 06_warp_tiling --wmma-ceiling measured (kernels that issue only
    # mma instructions): what wmma and mma.sync can reach on this chip, below its wgmma peak.
    lines += [(machine_value(machine, "tensor", "wmma::mma_sync ceiling"), "--", "#55a868",
               "measured wmma ceiling (06 --wmma-ceiling)"),
              (machine_value(machine, "tensor", "mma.sync m16n8k16 ceiling"), "-.", "#55a868",
               "measured mma.sync ceiling (06 --wmma-ceiling)")]
    lines += [(cublas32, ":", "#c44e52", "cuBLAS SGEMM at its best"),
              (cublas16, ":", "#8172b2", "cuBLAS fp16 at its best")]
    for value, style, color, text in lines:
        if value:
            ax.axhline(value, linestyle=style, color=color, linewidth=0.9,
                       label=f"{text}: {value / 1000:.1f} TFLOPS")
    measured_ai = {}
    for p in profile:
        if p["chapter"] in INTENSITY and p["chapter"] not in measured_ai and p.get("dram_read_bytes"):
            m, n, k = (int(p["size"]),) * 3
            bytes_ = float(p["dram_read_bytes"] or 0) + float(p["dram_write_bytes"] or 0)
            if bytes_ > 0:
                measured_ai[p["chapter"]] = (2.0 * m * n * k / bytes_, p["variant"])
    for i, c in enumerate(gpu_chapters(rows)):
        h = headline(rows, c, sq)
        if not h or c not in INTENSITY:
            continue
        color = f"C{i}"
        g = float(h["gflops"])
        ax.plot(INTENSITY[c], g, "o", color=color, markersize=8, label=f"{c[:2]} {h['variant']}")
        ax.annotate(c[:2], (INTENSITY[c], g), textcoords="offset points", xytext=(6, -3), fontsize=8)
        if c in measured_ai and measured_ai[c][1] == h["variant"]:
            ax.plot(measured_ai[c][0], g, "o", mfc="none", color=color, markersize=8)
            ax.plot([INTENSITY[c], measured_ai[c][0]], [g, g], color=color, linewidth=0.6, alpha=0.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per byte of global memory)")
    ax.set_ylabel("GFLOPS at 4096^3")
    note = " (hollow: per byte of DRAM traffic, Nsight Compute)" if measured_ai else ""
    ax.set_title(f"Roofline of the {device}\nfilled: the intensity each README derives{note}",
                 fontsize=9)
    # Said on the figure, not only in the text: a filled dot above the DRAM roof is no error.
    above = [c[:2] for c in gpu_chapters(rows) if c in INTENSITY and headline(rows, c, sq)
             and float(headline(rows, c, sq)["gflops"]) > dram * INTENSITY[c]]
    if above:
        ax.text(0.01, 0.99, f"Filled dots above the DRAM roof ({', '.join(above)}) are not errors: "
                "the README's\nintensity counts every load as if it came from DRAM, but most "
                "of the\noperands come from L1 and L2. The hollow dot is what DRAM really served.",
                transform=ax.transAxes, fontsize=6.5, va="top", ha="left",
                bbox=dict(boxstyle="round", facecolor="white", alpha=0.85, linewidth=0.5))
    # Beside the axes, where it hides no dot.
    ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, which="major", alpha=0.3)
    save(fig, out, "roofline.png", written)


def tile_sweep(rows, resources, profile, out, written):
    sq = (SIZE,) * 3
    tiles = [r for r in rows if r["chapter"] == "02_shared_tiling" and dims(r) == sq and plain(r)]
    occ = {r["kernel"]: float(r["occupancy_pct"]) for r in resources if r["chapter"] == "02_shared_tiling"}
    achieved = {p["variant"]: float(p["achieved_occupancy_pct"]) for p in profile
                if p["chapter"] == "02_shared_tiling" and p.get("achieved_occupancy_pct")}
    names = [r["variant"] for r in tiles]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    bars = ax.bar(range(len(names)), [float(r["gflops"]) for r in tiles], color="#4c72b0", label="GFLOPS")
    ax.bar_label(bars, labels=[f"{float(r['gflops']):.0f}" for r in tiles], fontsize=8,
                 label_type="center", color="white")
    ax.set_ylabel("GFLOPS at 4096^3")
    ax.set_ylim(0, 1.35 * max(float(r["gflops"]) for r in tiles))
    threads = {r["kernel"]: (r["threads"], r["blocks_per_sm"]) for r in resources
               if r["chapter"] == "02_shared_tiling"}
    ticks = []
    for n in names:
        t, b = threads.get(n, ("?", "?"))
        ticks.append(n.replace("shared_tiling_", "TILE ") + f"\n{t} threads, {b} blocks/SM")
    ax.set_xticks(range(len(names)), ticks, fontsize=8)
    ax2 = ax.twinx()
    ax2.plot(range(len(names)), [occ.get(n, float("nan")) for n in names], "s--", color="#dd8452",
             label="occupancy, computed (occupancy API)")
    if achieved:
        ax2.plot(range(len(names)), [achieved.get(n, float("nan")) for n in names], "^:", color="#c44e52",
                 label="occupancy, achieved (Nsight Compute)")
    ax2.set_ylim(0, 135)
    ax2.set_ylabel("occupancy (% of the SM's warps)")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=7, loc="upper right")
    ax.set_title("Chapter 02: the tile size against speed and occupancy", fontsize=10)
    save(fig, out, "tile_sweep_02.png", written)


def latency(machine, out, written):
    pts = [(int(r["quantity"].split(",")[1].split()[0]), float(r["value"])) for r in machine
           if r["level"] == "latency"]
    smem = machine_value(machine, "shared", "load latency")
    l2_mb = next((float(r["value"]) for r in machine if r["quantity"] == "L2 size"), None)
    clock = next((float(r["value"]) for r in machine if r["quantity"] == "max SM clock"), None)
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label="global load (pointer chase)")
    if smem:
        ax.axhline(smem, color="#55a868", linestyle=":", label=f"shared memory: {smem:.0f} cycles")
    if l2_mb:
        ax.axvline(l2_mb * 1024, color="gray", linestyle="--", linewidth=0.8)
        ax.text(l2_mb * 1024 * 1.08, ax.get_ylim()[0] + 10, f"L2 = {l2_mb:.0f} MiB", fontsize=8, color="gray")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("footprint of the chain (KB, log scale)")
    ax.set_ylabel("cycles per dependent load")
    extra = f" (at {clock / 1000:.2f} GHz, 100 cycles = {100000 / clock:.0f} ns)" if clock else ""
    ax.set_title(f"Load latency against footprint on the {machine[0]['device']}{extra}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    save(fig, out, "latency.png", written)


def fp16_error(rows, out, written):
    k = [int(r["K"]) for r in rows]
    inputs = [float(r["err_fp16_inputs_vs_fp32_exact"]) for r in rows]
    accum = [float(r["err_fp32acc_vs_fp16_exact"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.loglog(k, inputs, "o-", label="fp16 inputs vs the exact product of the fp32 inputs")
    ax.loglog(k, accum, "s-", label="fp32 accumulation vs the exact product of the fp16 inputs")
    ax.axhline(2.0 ** -11, color="gray", linestyle="--", linewidth=0.8)
    ax.text(k[0], 2.0 ** -11 * 0.75, "fp16 unit roundoff 2^-11", fontsize=8, color="gray", va="top")
    ax.axhline(2.0 ** -24, color="gray", linestyle=":", linewidth=0.8)
    ax.text(k[0], 2.0 ** -24 * 1.3, "fp32 unit roundoff 2^-24", fontsize=8, color="gray")
    ax.set_xlabel("K (terms per dot product)")
    ax.set_ylabel("max |error| / sum_k |a_ik b_kj|")
    ax.set_title("Where the error of fp16-input GEMM comes from")
    ax.legend(fontsize=8, loc="center right")
    save(fig, out, "fp16_error.png", written)


def timing(samples, out, written, name="timing.png"):
    """Every timed run of one process per way of timing (a program's --samples-csv): the time of
    each run against the seconds since the process started timing, cuBLAS and each variant in
    its own colour, one panel per way (one after the other, in turns)."""
    ways = [w for w in ("alone", "turns") if any(r["timing"] == w for r in samples)]
    titles = {"alone": "one after the other, cuBLAS first (--timing alone)",
              "turns": "in turns, one run of each per round (the default)"}
    fig, axes = plt.subplots(len(ways), 1, figsize=(9, 3.2 * len(ways)), sharey=True, squeeze=False)
    colours = ["#8172b2", "#55a868", "#c44e52", "#4c72b0", "#dd8452"]
    for ax, way in zip(axes[:, 0], ways):
        mine = [r for r in samples if r["timing"] == way]
        variants = list(dict.fromkeys(r["variant"] for r in mine))  # the program's order: cuBLAS first
        medians = {v: statistics.median(float(r["ms"]) for r in mine if r["variant"] == v)
                   for v in variants}
        base = medians[variants[0]] if variants[0].startswith("cublas") else None
        for v, colour in zip(variants, colours):
            xs = [float(r["seconds"]) for r in mine if r["variant"] == v]
            ys = [float(r["ms"]) for r in mine if r["variant"] == v]
            pct = f", {100 * base / medians[v]:.1f}% of cuBLAS" if base and v != variants[0] else ""
            ax.plot(xs, ys, ".", ms=3, color=colour,
                    label=f"{v}: median {medians[v]:.3f} ms{pct}")
            ax.axhline(medians[v], color=colour, lw=0.8, ls="--")
        first = mine[0]
        ax.set_title(f"{titles[way]}: {first['chapter']} at {first['m']} x {first['n']} x {first['k']}",
                     fontsize=10)
        ax.set_ylabel("ms per run")
        ax.legend(fontsize=8, loc="upper left")
    axes[-1, 0].set_xlabel("seconds since the program's timer was made (warm-up runs untimed)")
    fig.suptitle(f"The same two kernels timed two ways on one {samples[0]['device']}", fontsize=11)
    save(fig, out, name, written)


def energy(rows, out, written, name="energy.png"):
    """Each kernel's joules per GEMM against cuBLAS's (a program's --energy-csv): one panel per
    run of a program (its cuBLAS row, then its variants, at one size), a bar per kernel in the
    program's order, labelled with its mean power and SM clock."""
    runs = []  # a process's rows: its cuBLAS row (if any) and its variants, at one size
    for r in rows:
        shape = (r["m"], r["n"], r["k"])
        last = runs[-1] if runs else None
        same = (last and shape == (last[-1]["m"], last[-1]["n"], last[-1]["k"])
                and r["chapter"] != "cublas"
                and all(x["chapter"] in ("cublas", r["chapter"]) for x in last))
        if same:
            last.append(r)
        else:
            runs.append([r])
    skipped = [run for run in runs if run[0]["chapter"] != "cublas"]
    for run in skipped:  # nothing to compare with: a --no-baseline run, or cuBLAS not measured
        print(f"plot.py: {name}: {run[0]['chapter']} at {run[0]['m']} x {run[0]['n']} x "
              f"{run[0]['k']} has no cuBLAS row; not drawn")
    runs = [run for run in runs if run[0]["chapter"] == "cublas"]
    if not runs:
        return
    height = 0.42 * max(len(run) for run in runs) + 1.6
    fig, axes = plt.subplots(1, len(runs), figsize=(5.8 * len(runs), height), squeeze=False)
    for ax, run in zip(axes[0], runs):
        base = float(run[0]["joules_per_gemm"])
        pct = [100 * float(r["joules_per_gemm"]) / base for r in run]
        ys = range(len(run))
        ax.barh(ys, pct, color=["#8172b2" if r["chapter"] == "cublas" else "#4c72b0" for r in run])
        ax.axvline(100, color="#8172b2", lw=0.8, ls="--")
        for y, p, r in zip(ys, pct, run):
            ax.text(p + 1, y, f"{p:.1f}%  ({float(r['mean_watts']):.0f} W, "
                    f"{float(r['mean_sm_mhz']):,.0f} MHz)", va="center", fontsize=7)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([r["variant"] for r in run], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, max(pct) * 1.6 + 20)  # room for the labels
        ax.set_xlabel("joules per GEMM, % of cuBLAS's")
        chapter = run[-1]["chapter"]
        ax.set_title(f"{chapter} at {run[0]['m']} x {run[0]['n']} x {run[0]['k']}\n"
                     f"{run[0]['variant']}: {1000 * base:,.0f} mJ per GEMM", fontsize=9)
    devices = ", ".join(dict.fromkeys(r["device"] for r in rows))
    commits = ", ".join(dict.fromkeys(r["commit"] for r in rows))
    fig.suptitle(f"Energy per GEMM, each kernel alone, back to back ({devices}, "
                 f"commit{'s' if ',' in commits else ''} {commits})", fontsize=10)
    fig.tight_layout()
    save(fig, out, name, written)


def timing_ways(ways, energies, out, written, name="timing_ways.png"):
    """07's headline as % of cuBLAS, every way of timing (scripts/measure/power_limit.sh's ways.csv
    and ways_energy.csv): one dot per process, one panel per size; back to back is cuBLAS's time
    per GEMM over ours in the energy table of the same process."""
    head, base = "wgmma_persistent", "cublas_gemm_f16_f32acc"
    kinds = [("turns", "in turns (default)"), ("turns-no-flush", "in turns, --no-flush"),
            ("alone", "alone, cuBLAS first"), ("alone-cublas-last", "alone, --cublas-last"),
            ("alone-no-flush", "alone, --no-flush"),
            ("alone-no-flush-cublas-last", "alone, --no-flush --cublas-last"),
            ("energy", "back to back (--energy)")]
    sizes = sorted({r["m"] for r in ways}, key=int)
    if not sizes:
        return
    key = lambda r: (r["pass"], r["seed"], r["m"], r["order"])  # noqa: E731
    cublas = {key(r): float(r["ms_per_gemm"]) for r in energies if r["variant"] == base}
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 3.6), squeeze=False)
    runs = sorted({r["pass"] for r in ways})
    colors = dict(zip(runs, ("#4c72b0", "#dd8452", "#55a868", "#c44e52")))
    for ax, m in zip(axes[0], sizes):
        for y, (way, label) in enumerate(kinds):
            for run in runs:
                if way == "energy":
                    xs = [100 * cublas[key(r)] / float(r["ms_per_gemm"]) for r in energies
                          if r["variant"] == head and r["m"] == m and r["pass"] == run
                          and key(r) in cublas]
                else:
                    xs = [float(r["pct_of_cublas"]) for r in ways if r["variant"] == head
                          and r["m"] == m and r["timing"] == way and r["pass"] == run]
                ax.scatter(xs, [y + (0.12 if run != runs[0] else -0.12)] * len(xs), s=18,
                           color=colors.get(run, "#333333"), zorder=3,
                           label=f"run {run} ({commit_of(ways, run)})" if y == 0 else None)
        ax.axvline(100, color="#8172b2", lw=0.8, ls="--")
        ax.set_yticks(range(len(kinds)))
        ax.set_yticklabels([label for _, label in kinds], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("07's headline, % of cuBLAS")
        ax.set_title(f"{m} x {m} x {m}", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0, 0].legend(fontsize=7, loc="lower left")
    devices = ", ".join(dict.fromkeys(r["device"] for r in ways))
    fig.suptitle(f"One kernel pair, every way of timing: a dot per process ({devices})", fontsize=10)
    save(fig, out, name, written)


def epilogue(records, out, written, name="epilogue_h100.png"):
    """Step 5's epilogue at 4096^3, from the clock64 stamps in records/L_07_epilogue_floor.csv:
    a consumer's cycles after its K loop, piece by piece (medians per piece), for the tree, the
    build that writes the staging buffer without copies, and the build without stores."""
    rec = {r["key"]: r for r in records}
    if "07_floor_stamp_tree_4096_epilogue" not in rec:
        return
    v = lambda key: float(rec[f"07_floor_stamp_{key}"]["value"])  # noqa: E731
    first = "chunk 0, before its first barrier"
    wait = "chunks 1-3, before the first barrier (with copies: the engine reading the chunk before)"
    colors = {first: "#e8a5a7", wait: "#c44e52", "st.shared": "#4c72b0",
              "fence and barrier": "#8c8c8c", "issue the copies": "#8172b2",
              "wait for the last wgmmas": "#dd8452"}
    builds = [("step 5 (the tree)", "tree"), ("staging written, no copies", "nocopy"),
              ("no store of C", "nostore")]
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    seen = set()
    for y, (label, b) in enumerate(builds):
        pieces = [("wait for the last wgmmas", v(f"{b}_4096_drain"))]
        if b != "nostore":
            for q in range(4):
                pieces += [(first if q == 0 else wait, v(f"{b}_4096_q{q}_waitread")),
                           ("st.shared", v(f"{b}_4096_q{q}_sts")),
                           ("fence and barrier", v(f"{b}_4096_q{q}_fence"))]
                if b == "tree":
                    pieces.append(("issue the copies", v("tree_4096_issue")))
        x = 0.0
        for kind, width in pieces:
            ax.barh(y, width, left=x, color=colors[kind], edgecolor="white", linewidth=0.5,
                    label=kind if kind not in seen else None)
            seen.add(kind)
            x += width
    ax.set_yticks(range(len(builds)))
    ax.set_yticklabels([label for label, _ in builds], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("SM cycles after the consumer's K loop (medians of each piece; four chunks of 64 "
                  "columns each)", fontsize=8)
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    ax.grid(axis="x", alpha=0.3)
    src = rec["07_floor_stamp_tree_4096_kloop"]
    ax.set_title(f"Step 5 at 4096^3: what a consumer does after its K loop, until its store returns"
                 f"\n(clock64 stamps, {src['gpu']}, commit {src['commit']})", fontsize=9)
    fig.tight_layout()
    save(fig, out, name, written)


def commit_of(rows, run):
    return ", ".join(dict.fromkeys(r["commit"] for r in rows if r["pass"] == run))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("outdir")
    args = ap.parse_args()
    out = pathlib.Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    here = pathlib.Path(args.csv).parent
    if not pathlib.Path(args.csv).exists():
        print(f"plot.py: {args.csv} does not exist: run the benchmark sweep first "
              "(scripts/run/bench_all.sh).", file=sys.stderr)
        return 1
    rows = load(args.csv)

    def sibling(name):
        p = here / name
        return load(p) if p.exists() else []

    machine, resources, profile, errors = (sibling(n) for n in
                                           ("machine.csv", "resources.csv", "profile.csv", "error_study.csv"))
    written, missing = [], []
    ladder(rows, out, written, machine=machine)
    others = other_gpus(here)
    for name, other in others.items():
        other_machine = load(here / name / "machine.csv") if (here / name / "machine.csv").exists() else []
        ladder(other, out, written, f"ladder_{name}.png", other_machine)
        if (here / name / "timing_samples.csv").exists():
            timing(load(here / name / "timing_samples.csv"), out, written, f"timing_{name}.png")
        if (here / name / "energy.csv").exists():
            energy(load(here / name / "energy.csv"), out, written, f"energy_{name}.png")
        ways_csv = here / name / "power_limit" / "ways.csv"
        if ways_csv.exists() and ways_csv.with_name("ways_energy.csv").exists():
            timing_ways(load(ways_csv), load(ways_csv.with_name("ways_energy.csv")), out, written,
                        f"timing_ways_{name}.png")
    stamps = here / "records" / "L_07_epilogue_floor.csv"
    if stamps.exists():
        epilogue(load(stamps), out, written)
    if (here / "timing_samples.csv").exists():
        timing(load(here / "timing_samples.csv"), out, written)
    if (here / "energy.csv").exists():
        energy(load(here / "energy.csv"), out, written)
    if others:
        device = lambda r: r[0]["device"] if r else "?"  # noqa: E731
        gpus({device(rows): rows, **{device(o): o for o in others.values()}}, out, written)
    gflops_vs_size(rows, out, written)
    shapes(rows, out, written)
    if not waves(rows, out, written):  # not an error: a results.csv from before the launchers
        print("plot.py: no shape-aware launcher in this results.csv; waves.png not drawn")
    # machine.csv may hold only 06's tensor ceilings (a sweep without machine_probe): the roofline
    # needs the measured bandwidths, and the latency figure the probe's latencies.
    if machine_value(machine, "DRAM", "read bandwidth") and machine_value(machine, "L2", "read bandwidth"):
        inputs = here / "diagrams" / "inputs.json"
        roofline(rows, machine, profile, out, written,
                 json.loads(inputs.read_text()) if inputs.exists() else {})
        latency(machine, out, written)
    else:
        missing.append("roofline.png and latency.png (need machine.csv from machine_probe)")
    if resources:
        tile_sweep(rows, resources, profile, out, written)
    else:
        missing.append("tile_sweep_02.png (needs resources.csv from --resources-csv)")
    if errors:
        fp16_error(errors, out, written)
    else:
        missing.append("fp16_error.png (needs error_study.csv from 05_tensor_core --error-study)")
    print("plot.py: wrote", ", ".join(str(out / w) for w in written))
    for m in missing:
        print("plot.py: could not draw", m, file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
