#!/usr/bin/env python3
"""Markdown result tables, generated from a benchmark CSV (never typed by hand).

Each README marks where its table goes:

    <!-- results:01_naive -->
    ...generated table...
    <!-- /results -->

    python3 scripts/docs/results_table.py docs/figures/results.csv --update   # rewrite every table
    python3 scripts/docs/results_table.py docs/figures/results.csv --check    # CI: fail if any differs
    python3 scripts/docs/results_table.py docs/figures/results.csv --chapter 01_naive   # print one

A table shows the chapter's rows at M=N=K=4096 (the size every chapter is compared at) or at the
size the marker names (<!-- results:04_2d_tiling:4093 -->), with the cuBLAS baseline of the same
precision and size on top; chapter 00 shows its own rows.
Other markers take their rows from the CSVs next to results.csv (docs/figures/):

    <!-- results:h100/04_2d_tiling:4093 -->  a chapter's table from another GPU's run
                                   (docs/figures/h100/results.csv); profile, sass and waves
                                   markers take the same FOLDER/ prefix (profile:h100/07_hopper)
    <!-- results:ladder -->        every chapter's headline at 4096^3 (the top README)
    <!-- results:gpus -->          the same on every GPU measured: results.csv and the results.csv
                                   of each folder next to it (docs/figures/h100/, ...)
    <!-- profile:04_2d_tiling -->  the lab sheet: Nsight Compute metrics of each variant (profile.csv)
    <!-- profile:headlines -->     the same for each chapter's headline
    <!-- sass:04_2d_tiling -->     instruction counts from cuobjdump -sass (sass.csv)
    <!-- resources:all -->         registers, shared memory, occupancy of every kernel (resources.csv)
    <!-- machine -->               this GPU's measured bandwidths, peak, latencies, sizes (machine.csv)
    <!-- waves:06_warp_tiling -->  a shape-aware launcher against its fixed tile at 1024..8192 and the
                                   skinny shapes, with what it chose (SHAPE_AWARE, WAVE_SHAPES)
    <!-- tile_sweep:04_2d_tiling --> chapter 04's kernel 5 at several tile sizes (tile_sweep_04.csv)

Only the Python standard library is used.
"""
import argparse
import csv
import pathlib
import re
import sys

import doc_numbers

ROOT = pathlib.Path(__file__).resolve().parents[2]  # scripts/docs/ -> the repository
MARK = re.compile(r"(<!-- (?P<kind>results|profile|sass|resources|machine|waves|tile_sweep)(?::(?P<chapter>[\w@.:/-]+))? -->\n)"
                  r"(?P<body>.*?)(<!-- /(?P=kind) -->)", re.S)
SIZE = 4096

# The shape-aware launchers (docs/tile_size_tradeoffs.md, "Waves"): chapter -> (the launcher that
# chooses its tile and split-K by counting waves, the same kernel with one fixed tile, precision).
# plot.py draws waves.png from the same list.
SHAPE_AWARE = {"04_2d_tiling": ("tiling_2d_shape_aware", "tiling_2d_double_buffer", "f32"),
               "06_warp_tiling": ("mma_sync_pipelined", "mma_sync_pipelined_128x256", "f16"),
               "07_hopper": ("wgmma_persistent", "wgmma_persistent_no_split", "f16")}
# The shapes of issue "fast at every size": squares, then skinny ones (M x N x K).
WAVE_SHAPES = [(1024,) * 3, (2048,) * 3, (4096,) * 3, (8192,) * 3,
               (128, 4096, 4096), (16, 4096, 4096), (512, 512, 16384), (8192, 8192, 128)]


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fmt_pct(value):
    v = float(value)
    return "-" if v < 0 else f"{v:.1f}%"


def fmt_err(value):
    v = float(value)
    return "-" if v < 0 else f"{v:.2e}"


def parse_size(text):
    dims = [int(d) for d in text.split("x")] if text else [SIZE]
    return tuple(dims * 3) if len(dims) == 1 else tuple(dims)


def table(rows, key, source="docs/figures/results.csv"):
    """key is CHAPTER[@TAG][:SIZE]: a chapter name ("01_naive"); with a tag ("01_naive@managed"),
    the rows of a special run (variants named NAME@tag...); with a size ("04_2d_tiling:4093" or
    ":4096x4096x4100"), that size instead of 4096^3. `source` is the CSV named under the table."""
    key, _, size_text = key.partition(":")
    size = parse_size(size_text)
    chapter, _, tag = key.partition("@")

    def wanted(r):
        return (("@" + tag) in r["variant"]) if tag else ("@" not in r["variant"])

    mine = [r for r in rows if r["chapter"] == chapter and wanted(r)]
    def at_size(r):
        return (int(r["m"]), int(r["n"]), int(r["k"])) == size

    if chapter != "00_cpu_reference":
        mine = [r for r in mine if at_size(r)]
    if not mine:
        raise SystemExit(f"results_table.py: no rows for {key} in the CSV")
    shown = mine
    if chapter != "00_cpu_reference":
        base = [r for r in rows if r["chapter"] == "cublas" and wanted(r)
                and r["precision"] == mine[0]["precision"] and at_size(r)]
        # The cuBLAS row of the chapter's own process: the last one before the chapter's rows (a
        # CSV may hold several runs; each program writes its baseline first).
        at = {id(r): i for i, r in enumerate(rows)}  # each row's place in the file
        before = [r for r in base if at[id(r)] < at[id(mine[0])]]
        shown = (before or base)[-1:] + mine
    first = shown[0]
    # The rated maximum (cudaDevAttrClockRate), not the clock under load (benchmarking.md, section 5).
    clock = f", max SM clock {first['sm_clock_mhz']} MHz" if first["sm_clock_mhz"] != "0" else ""
    cuda = f"CUDA {first['cuda_version']}, " if first["cuda_version"] != "-" else ""
    pct = "% of cuBLAS"
    if chapter == "00_cpu_reference":  # no cuBLAS on the CPU: compare with the all-cores variant
        pct = "% of threaded"
        best = [float(r["gflops"]) for r in shown if r["variant"] == "threaded"]
        shown = [dict(r, pct_of_cublas=(100 * float(r["gflops"]) / best[0]) if best else -1)
                 for r in shown]
    # Away from 4096^3, also show each variant's throughput relative to its own at 4096^3: an
    # awkward size should not fall off a cliff.
    ref = {}
    # A cuBLAS row is keyed by the chapter whose process timed it (the chapter of the rows after it).
    def ref_key(i, r):
        if r["chapter"] != "cublas":
            return r["chapter"], r["variant"]
        return "cublas@" + next((x["chapter"] for x in rows[i + 1:] if x["chapter"] != "cublas"), ""), r["variant"]

    if chapter != "00_cpu_reference" and size != (SIZE,) * 3:
        for i, r in enumerate(rows):
            if (int(r["m"]), int(r["n"]), int(r["k"])) == (SIZE,) * 3:
                ref[ref_key(i, r)] = float(r["gflops"])
    extra_head = " | GFLOPS vs 4096^3" if ref else ""
    lines = [
        f"Measured on {first['device']} ({cuda}{commits_of(shown)}{clock}); generated by "
        f"`scripts/docs/results_table.py` from `{source}`.",
        "",
        f"| variant | M x N x K | median ms | GFLOPS | {pct} | max err / bound | check{extra_head} |",
        "|---|---|---:|---:|---:|---:|---|" + ("---:|" if ref else ""),
    ]
    for r in shown:
        extra = ""
        if ref:
            base = ref.get(("cublas@" + chapter if r["chapter"] == "cublas" else r["chapter"], r["variant"]))
            extra = f" | {100 * float(r['gflops']) / base:.1f}%" if base else " | -"
        # What the launcher ran instead of its own kernel, if anything (Variant::runs_instead).
        note = f" ({r['note']})" if r.get("note") else ""
        lines.append(
            f"| `{r['variant']}`{note} | {r['m']} x {r['n']} x {r['k']} | {float(r['median_ms']):.3f} | "
            f"{float(r['gflops']):.1f} | {fmt_pct(r['pct_of_cublas'])} | "
            f"{fmt_err(r['err_over_bound'])} | {r['status']}{extra} |")
    return "\n".join(lines) + "\n"


def fmt(value, digits=1):
    try:
        return f"{float(value):,.{digits}f}"
    except (TypeError, ValueError):
        return "-"


def source_line(rows, name):
    first = rows[0]
    return (f"Measured on {first['device'].strip(chr(34))} ({commits_of(rows)}); generated by "
            f"`scripts/docs/results_table.py` from `docs/figures/{name}`.")


def ladder(rows):
    """Each GPU chapter's headline (the first variant its program runs) at 4096^3."""
    sq = (SIZE,) * 3
    seen, lines = set(), []
    first = None
    for r in rows:
        if (int(r["m"]), int(r["n"]), int(r["k"])) != sq or "@" in r["variant"]:
            continue
        if r["chapter"] == "00_cpu_reference":  # the CPU chapter: its fastest loop
            best = max((x for x in rows if x["chapter"] == r["chapter"]), key=lambda x: float(x["gflops"]))
            r = best if best["variant"] == r["variant"] or r["chapter"] not in seen else r
        if r["chapter"][:2].isdigit() and r["chapter"] not in seen:
            seen.add(r["chapter"])
            if r["chapter"] != "00_cpu_reference":
                first = first or r
            base = "cuBLAS fp16" if r["precision"] == "f16" else ("cuBLAS SGEMM" if r["chapter"] != "00_cpu_reference" else "- (CPU)")
            lines.append(f"| {r['chapter']} | `{r['variant']}` | {r['precision']} | {float(r['gflops']):,.0f} | "
                         f"{fmt_pct(r['pct_of_cublas'])} | {base} | {timed(r)} |")
    lines.sort()  # chapter order (chapter 00, on the CPU, runs last in the sweep)
    for prec, name in (("f32", "cuBLAS SGEMM (no TF32)"), ("f16", "cuBLAS fp16 in, fp32 accumulate")):
        b = [r for r in rows if r["chapter"] == "cublas" and r["precision"] == prec
             and (int(r["m"]), int(r["n"]), int(r["k"])) == sq and "@" not in r["variant"]]
        if b:
            lines.append(f"| baseline | {name} | {prec} | {float(b[-1]['gflops']):,.0f} | 100% | | {timed(b[-1])} |")
    head = [f"Measured on {first['device']} (CUDA {first['cuda_version']}, {commits_of(rows)}); "
            f"generated by `scripts/docs/results_table.py` from `docs/figures/results.csv`. Each "
            f"chapter's % is against the cuBLAS timed in its own process; a baseline row gives the "
            f"last of those runs in the CSV.", "",
            "| chapter | headline variant | inputs | GFLOPS at 4096^3 | % of cuBLAS | baseline | timed |",
            "|---|---|---|---:|---:|---|---|"]
    return "\n".join(head + lines) + "\n"


# How the rows were timed (the CSV's timing column; docs/benchmarking.md, section 5).
TIMING = {"turns": "timed in turns with cuBLAS",
          "alone": "timed one after the other, cuBLAS first"}
# The same, as the ladder's short "timed" cell.
TIMING_CELL = {"turns": "in turns", "alone": "alone, cuBLAS first"}


def timed(r):
    """The ladder's 'timed' cell: how this row was timed (the CSV's timing column); chapter 00, on
    the CPU, has no cuBLAS to be timed with."""
    if r.get("chapter") == "00_cpu_reference":
        return "-"
    return TIMING_CELL.get(r.get("timing", ""), "-")


def commits_of(rows):
    """'commit A, timed in turns with cuBLAS', or 'commits A (timed ...), B (timed ...)' where
    chapters of one CSV were measured at different commits (a chapter re-run after a change, its
    rows replaced). Chapter 00 (the CPU, each loop timed on its own) says only its commit."""
    seen = {}
    for r in rows:
        how = TIMING.get(r.get("timing", ""), "") if r.get("chapter") != "00_cpu_reference" else ""
        seen.setdefault(r.get("commit", "?"), set()).add(how)
    hows = {c: ", ".join(sorted(h for h in s if h)) for c, s in seen.items()}
    if len(seen) == 1:
        (commit, how), = hows.items()
        return f"commit {commit}" + (f", {how}" if how else "")
    if len(set(hows.values())) == 1:
        how = next(iter(hows.values()))
        return "commits " + ", ".join(seen) + (f", {how}" if how else "")
    return "commits " + ", ".join(f"{c} ({h})" if h else c for c, h in hows.items())


def gpus_table(sets):
    """Each GPU chapter's headline at 4096^3 on every GPU: {folder: rows}, the reference first."""
    sq = (SIZE,) * 3
    heads = {}
    for name, rows in sets.items():
        for r in rows:
            c = r["chapter"]
            if (c[:2].isdigit() and c != "00_cpu_reference" and "@" not in r["variant"]
                    and (int(r["m"]), int(r["n"]), int(r["k"])) == sq and (name, c) not in heads):
                heads[name, c] = r
    chapters = sorted({c for _, c in heads})
    devices = {name: rows[0]["device"] for name, rows in sets.items() if rows}
    lines = ["Measured on " + "; ".join(f"{devices[n]} ({commits_of(sets[n])}, `{p}`)"
                                         for n, p in zip(sets, paths_of(sets))) +
             "; generated by `scripts/docs/results_table.py`.", "",
             "| chapter | " + " | ".join(f"{devices[n]}: headline | GFLOPS | % of cuBLAS" for n in sets) + " |",
             "|---|" + "---|---:|---:|" * len(sets)]
    for c in chapters:
        cells = []
        for n in sets:
            r = heads.get((n, c))
            cells.append(f"`{r['variant']}` | {float(r['gflops']):,.0f} | {fmt_pct(r['pct_of_cublas'])}"
                         if r else "- | - | -")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def paths_of(sets):
    return ["docs/figures/results.csv" if n == "" else f"docs/figures/{n}/results.csv" for n in sets]


def profile_table(rows, key, source="docs/figures/profile.csv"):
    if key == "headlines":
        seen, mine = set(), []
        for r in rows:
            if r["chapter"] not in seen:
                seen.add(r["chapter"])
                mine.append(r)
    else:
        mine = [r for r in rows if r["chapter"] == key]
    if not mine:
        raise SystemExit(f"results_table.py: no rows for {key} in profile.csv")
    head = ["| kernel | ms | regs/thread | smem/block | occupancy theor. / achieved | global ld sectors/request |"
            " shared ld / st bank conflicts | local ld+st bytes (launch) | FFMA per LDS (warp) | FMA pipe | tensor pipe | DRAM MB |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines = []
    for r in mine:
        name = f"{r['chapter'][:2]} `{r['variant']}`" if key == "headlines" else f"`{r['variant']}`"
        lines.append(
            f"| {name} | {fmt(r['duration_ms'], 3)} | {fmt(r['regs_per_thread'], 0)} | "
            f"{fmt(r['smem_bytes_per_block'], 0)} B | {fmt(r['theoretical_occupancy_pct'], 1)}% / "
            f"{fmt(r['achieved_occupancy_pct'], 1)}% | {fmt(r['sectors_per_request'], 1)} | "
            f"{fmt(r['shared_ld_conflict_pct'], 1)}% / {fmt(r['shared_st_conflict_pct'], 1)}% | "
            f"{fmt(r['spill_bytes'], 0)} | {fmt(r['ffma_per_shared_ld'], 1)} | {fmt(r['fma_pipe_pct'], 1)}% | "
            f"{fmt(r['tensor_pipe_pct'], 1)}% | {fmt(r['dram_mb'], 0)} |")
    first = mine[0]
    intro = (f"Measured with Nsight Compute (`--clock-control none`, one launch at {first['size']}^3) on "
             f"{first['device']} ({commits_of(mine)}); generated by `scripts/docs/results_table.py` "
             f"from `{source}`.")
    return "\n".join([intro, ""] + head + lines) + "\n"


def sass_table(rows, key, source="docs/figures/sass.csv"):
    mine = [r for r in rows if r["binary"] == key]
    if not mine:
        raise SystemExit(f"results_table.py: no rows for {key} in sass.csv")
    cols = ["FFMA", "LDS", "LDS.128", "LDG", "LDG.128", "STS", "HMMA", "LDSM", "LDGSTS", "HGMMA", "UTMALDG",
            "BAR", "FFMA/LDS", "REG", "STACK", "LOCAL", "SHARED"]
    lines = ["Static instruction counts from `cuobjdump -sass` (an instruction inside a loop counts once), "
             f"generated by `scripts/docs/results_table.py` from `{source}`.", "",
             "| kernel | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for r in mine:
        lines.append(f"| `{r['kernel']}` | " + " | ".join(str(r.get(c) or "-") for c in cols) + " |")
    return "\n".join(lines) + "\n"


def resources_table(rows, key, name="resources.csv"):
    mine = rows if key == "all" else [r for r in rows if r["chapter"] == key]
    if not mine:
        raise SystemExit(f"results_table.py: no rows for {key} in {name}")
    lines = [source_line(mine, name) + " Occupancy = resident threads / the SM's maximum, from "
             "`cudaOccupancyMaxActiveBlocksPerMultiprocessor`.", "",
             "| chapter | kernel | threads/block | regs/thread | smem/block | local B/thread | blocks/SM | warps/SM | occupancy |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in mine:
        lines.append(f"| {r['chapter']} | `{r['kernel']}` | {r['threads']} | {r['regs_per_thread']} | "
                     f"{int(r['smem_bytes_per_block']):,} B | {r['local_bytes_per_thread']} | {r['blocks_per_sm']} | "
                     f"{r['warps_per_sm']} | {float(r['occupancy_pct']):.1f}% |")
    return "\n".join(lines) + "\n"


def machine_table(rows, name="machine.csv"):
    lines = [source_line(rows, name) + " Measured by `build/bin/machine_probe`, except the "
             "tensor-core ceilings (`06_warp_tiling --wmma-ceiling`); sizes from `cudaDeviceGetAttribute` "
             "(DRAM: `cudaMemGetInfo`).", "",
             "| level | quantity | value | unit | source |", "|---|---|---:|---|---|"]
    for r in rows:
        v = float(r["value"])
        lines.append(f"| {r['level']} | {r['quantity']} | {v:,.0f} | {r['unit']} | {r['source']} |"
                     if v >= 100 else f"| {r['level']} | {r['quantity']} | {v:,.1f} | {r['unit']} | {r['source']} |")
    return "\n".join(lines) + "\n"


def waves_table(rows, chapter, source="docs/figures/results.csv"):
    """A shape-aware launcher against the same kernel with its fixed tile, at WAVE_SHAPES: % of the
    cuBLAS timed in the same process, and the configuration the launcher chose."""
    aware, fixed, _ = SHAPE_AWARE[chapter]

    def row(variant, shape):
        return next((r for r in rows if r["chapter"] == chapter and r["variant"] == variant
                     and (int(r["m"]), int(r["n"]), int(r["k"])) == shape), None)

    measured = [r for r in rows if r["chapter"] == chapter and r["variant"] == aware]
    if not measured:
        return (f"Not measured yet: `{source}` has no `{aware}` rows; "
                f"`scripts/run/bench_all.sh` writes them.\n")
    first = measured[0]
    # The chapter's headline (the first variant its program runs), where it is another kernel than
    # the shape-aware launcher, gets a column of its own.
    headline = next(r["variant"] for r in rows if r["chapter"] == chapter and "@" not in r["variant"])
    extra = [headline] if headline not in (aware, fixed) else []
    lines = [f"Measured on {first['device']} (CUDA {first['cuda_version']}, {commits_of(measured)}); "
             f"generated by `scripts/docs/results_table.py` from `{source}`.", "",
             f"| M x N x K | cuBLAS GFLOPS | fixed tile: `{fixed}` | shape-aware: `{aware}` | "
             f"what the shape-aware launcher ran |" + "".join(f" headline: `{v}` |" for v in extra),
             "|---|---:|---:|---:|---|" + "---:|" * len(extra)]
    for shape in WAVE_SHAPES:
        a, f = row(aware, shape), row(fixed, shape)
        if not a:
            continue
        pct = float(a["pct_of_cublas"])
        cublas = f"{100 * float(a['gflops']) / pct:,.0f}" if pct > 0 else "-"
        # The headline's % of cuBLAS, with what it ran where it chose something (its note).
        cells = [fmt_pct(r["pct_of_cublas"]) + (f" ({r['note'].replace('ran ', '')})"
                                                if r.get("note") else "") if r else "-"
                 for r in (row(v, shape) for v in extra)]
        lines.append(f"| {' x '.join(map(str, shape))} | {cublas} | "
                     f"{fmt_pct(f['pct_of_cublas']) if f else '-'} | {fmt_pct(a['pct_of_cublas'])} | "
                     f"{a.get('note', '').replace('ran ', '') or '-'} |" + "".join(f" {c} |" for c in cells))
    return "\n".join(lines) + "\n"


def tile_sweep_table(rows):
    """Chapter 04's kernel 5 at each tile size of scripts/measure/tile_sweep_04.cu, against cuBLAS SGEMM."""
    first = rows[0]
    how = TIMING.get(first.get("timing", ""), "")
    lines = [f"Measured on {first['device']} (commit {first['commit']}{', ' + how if how else ''}) at "
             f"{first['size']}^3, cuBLAS SGEMM {float(first['cublas_ms']):.3f} ms in the same process; generated by "
             f"`scripts/docs/results_table.py` from `docs/figures/tile_sweep_04.csv`.", "",
             "| BM x BN x BK | warp tile | thread tile | MIN_BLOCKS | threads | regs | spill B | "
             "smem B | blocks/SM | median ms | GFLOPS | % of cuBLAS | check |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        tile, warp, thread, blocks = r["params"].split()
        lines.append(f"| {tile.replace('x', ' x ')} | {warp[1:]} | {thread[1:]} | {blocks[1:]} | "
                     f"{r['threads']} | {r['regs']} | {r['local_bytes']} | {int(r['smem_bytes']):,} | "
                     f"{r['blocks_per_sm']} | {float(r['median_ms']):.3f} | {fmt(r['gflops'])} | "
                     f"{fmt_pct(r['pct_of_cublas'])} | {r['status']} |")
    return "\n".join(lines) + "\n"


class Tables:
    """Loads each CSV once, from the directory of results.csv, when a marker first needs it."""

    def __init__(self, results_csv):
        self.dir = pathlib.Path(results_csv).parent
        self.cache = {"results": load(results_csv)}

    def rows(self, kind, folder=""):
        """The rows of KIND.csv next to results.csv, or in its subfolder FOLDER (another GPU's)."""
        name = f"{folder}/{kind}" if folder else kind
        if name not in self.cache:
            path = self.dir / folder / f"{kind}.csv"
            if not path.exists():
                raise SystemExit(f"results_table.py: a <!-- {kind} --> marker needs {path}")
            self.cache[name] = load(path)
        return self.cache[name]

    def render(self, kind, key):
        # FOLDER/KEY: the same table from another GPU's run (docs/figures/FOLDER/).
        folder = ""
        if key and "/" in key:
            folder, _, key = key.partition("/")
        source = lambda name: f"docs/figures/{folder + '/' if folder else ''}{name}.csv"
        if kind == "results":
            if key == "gpus":  # the reference GPU ("") first, then each folder with a results.csv
                sets = {"": self.rows("results")}
                sets.update({d.name: load(d / "results.csv") for d in sorted(self.dir.iterdir())
                             if d.is_dir() and (d / "results.csv").exists()})
                return gpus_table(sets)
            rows = self.rows("results", folder)
            return ladder(rows) if key == "ladder" else table(rows, key, source("results"))
        if kind == "profile":
            return profile_table(self.rows("profile", folder), key, source("profile"))
        if kind == "sass":
            return sass_table(self.rows("sass", folder), key, source("sass"))
        if kind == "resources":
            return resources_table(self.rows("resources", folder), key or "all",
                                   source("resources").removeprefix("docs/figures/"))
        if kind == "waves":
            return waves_table(self.rows("results", folder), key, source("results"))
        if kind == "tile_sweep":
            if not (self.dir / "tile_sweep_04.csv").exists():
                return ("Not measured yet: `docs/figures/tile_sweep_04.csv` does not exist; "
                        "`scripts/run/bench_all.sh` writes it.\n")
            return tile_sweep_table(self.rows("tile_sweep_04"))
        return machine_table(self.rows("machine", folder), source("machine").removeprefix("docs/figures/"))


def markdown_files():
    return sorted(p for p in ROOT.rglob("*.md")
                  if not any(part.startswith(("build", ".")) for part in p.relative_to(ROOT).parts))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--chapter")
    mode.add_argument("--update", action="store_true")
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--lint", action="store_true",
                      help="list the figures in prose that are not in a marker")
    ap.add_argument("--files", nargs="+", metavar="MD",
                    help="only these Markdown files (default: every one in the repository)")
    args = ap.parse_args()
    tables = Tables(args.csv)
    if args.chapter:
        sys.stdout.write(tables.render("results", args.chapter))
        return 0
    stale, unmarked = [], []
    sources = doc_numbers.Sources(tables.dir)
    files = [pathlib.Path(f).resolve() for f in args.files] if args.files else markdown_files()
    for path in files:
        text = path.read_text()
        new = MARK.sub(lambda m: m.group(1) + tables.render(m.group("kind"), m.group("chapter")) + m.group(5),
                       text)
        new = doc_numbers.fill(new, sources, path.relative_to(ROOT))
        unmarked += [(path.relative_to(ROOT), line, figure) for line, figure in doc_numbers.lint(new)]
        if new != text:
            stale.append(path.relative_to(ROOT))
            if args.update:
                path.write_text(new)
    if args.check and stale:
        for p in stale:
            print(f"results_table.py: a table or a figure in {p} does not match the CSVs; "
                  f"run: python3 scripts/docs/results_table.py {args.csv} --update")
        return 1
    if (args.check or args.lint) and unmarked:
        for p, line, figure in unmarked:
            print(f"{p}:{line}: '{figure}' looks measured but is typed by hand: write it as "
                  "<!--= EXPRESSION -->VALUE<!--/--> (scripts/docs/doc_numbers.py) or point to its table")
        return 1 if args.check else 0
    print(("updated: " if args.update else "all tables match: ") + (", ".join(map(str, stale)) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
