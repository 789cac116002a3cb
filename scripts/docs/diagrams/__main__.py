"""The teaching diagrams, drawn from the kernels' own constants (never from numbers typed here).

    cmake --build build --target diagram_constants
    python3 scripts/docs/diagrams --program build/bin/diagram_constants     # redraw every diagram
    python3 scripts/docs/diagrams --check --program build/bin/diagram_constants

Every number a diagram shows comes from one of:
  - the kernels' constants: build/bin/diagram_constants (scripts/docs/diagram_constants.cu)
    prints them as JSON, read from the chapters' headers (tile sizes, threads, stages, padding,
    fragment shapes, the tile maps, the swizzle and ldmatrix tables, the Hopper boxes and tile
    order);
  - what a GPU run wrote next to results.csv: machine.csv (sizes, bandwidths, latencies, SMs),
    resources.csv (blocks per SM, shared memory per block, and from it the pipeline depths that
    are chosen inside a .cu file) and results.csv (what a shape-aware launcher chose for a shape).
All of them are gathered into one dictionary, which the drawings read, and which is written to
docs/figures/diagrams/inputs.json next to the pictures. --check gathers it again (from the
program's output and the CSVs as they are now) and fails if it differs from the committed
inputs.json: a kernel constant, or a measured number, changed and the diagrams were not redrawn.
Without --program (or --constants FILE, the program's saved output), the kernels' constants come
from the committed inputs.json, so the diagrams can be redrawn without a build.

Writes into OUTDIR (default docs/figures/diagrams; --list prints the names): one PNG per idea,
named after the chapter that teaches it, and two GIFs of the pipelines. Chapter N's pictures are
drawn by chN.py, the shared pages' by docs_pages.py, all with the kit in kit.py. Needs
matplotlib (and the Pillow it installs, for the GIFs): scripts/requirements.txt.

House style (CONVENTIONS.md, rule 14): one idea per picture; rows go down and columns go right, as
in memory; A, B and C keep the colours below everywhere; the Okabe-Ito palette (colour-blind safe);
about 900 pixels wide, the width at which GitHub shows a README.
"""
import argparse
import json
import pathlib
import sys

# Run as `python3 scripts/docs/diagrams`: the package's parent on the path, so that it imports as
# the package `diagrams` (kit.py, inputs.py and one module per chapter: ch00.py ... ch07.py, and
# docs_pages.py for the shared pages' pictures).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from diagrams.kit import FIGURES, INPUTS, OUTDIR, ROOT, matplotlib  # noqa: E402
from diagrams.inputs import gather, load_csv, run_program  # noqa: E402
from diagrams.docs_pages import memory_hierarchy, sm_budget
from diagrams.ch00 import cpu_loop_order, cpu_cache_blocking
from diagrams.ch01 import naive_thread_map, naive_coalescing
from diagrams.ch02 import shared_tiles_along_k, shared_barriers
from diagrams.ch03 import thread_column, thread_block_map
from diagrams.ch04 import (outer_product, float4_alignment_04, bank_model_04, tile_hierarchy_04,
    double_buffer, waves_04, split_k_04)
from diagrams.ch05 import wmma_warp_tiles, wmma_fragments
from diagrams.ch06 import (tile_hierarchy_06, bank_conflicts, vec_loads_06, swizzle_06,
    ldmatrix_06, mma_fragment_06, cp_async_ring, register_pipeline_06)
from diagrams.ch07 import (hopper_tma_boxes, hopper_swizzle_128b, hopper_pipeline,
    hopper_persistent, hopper_cluster, hopper_tma_store, hopper_tail_split)


# ---- Main ---------------------------------------------------------------------------------------

# Every diagram: the function that draws it and the files it writes (in OUTDIR).
DIAGRAMS = [
    (memory_hierarchy, ["memory_hierarchy.png"]),
    (cpu_loop_order, ["00_loop_order.png"]),
    (cpu_cache_blocking, ["00_cache_blocking.png"]),
    (naive_thread_map, ["01_thread_map.png"]),
    (naive_coalescing, ["01_coalescing.png"]),
    (shared_tiles_along_k, ["02_tiles_along_k.png"]),
    (shared_barriers, ["02_barriers.png"]),
    (thread_column, ["03_thread_column.png"]),
    (thread_block_map, ["03_block_map.png"]),
    (outer_product, ["04_outer_product.png"]),
    (float4_alignment_04, ["04_float4_alignment.png"]),
    (bank_model_04, ["04_bank_model.png"]),
    (tile_hierarchy_04, ["04_tile_hierarchy.png"]),
    (double_buffer, ["04_double_buffer.png"]),
    (waves_04, ["04_waves.png"]),
    (split_k_04, ["04_split_k.png"]),
    (wmma_warp_tiles, ["05_warp_tiles.png"]),
    (wmma_fragments, ["05_fragments.png"]),
    (tile_hierarchy_06, ["06_tile_hierarchy.png"]),
    (bank_conflicts, ["06_bank_conflicts.png"]),
    (vec_loads_06, ["06_vec_loads.png"]),
    (swizzle_06, ["06_swizzle.png"]),
    (ldmatrix_06, ["06_ldmatrix.png"]),
    (mma_fragment_06, ["06_mma_fragment.png"]),
    (cp_async_ring, ["06_cp_async_ring.png", "06_cp_async_ring.gif"]),
    (register_pipeline_06, ["06_register_pipeline.png"]),
    (hopper_tma_boxes, ["hopper_tma_boxes.png"]),
    (hopper_swizzle_128b, ["hopper_swizzle_128b.png"]),
    (hopper_pipeline, ["hopper_pipeline.png", "hopper_pipeline.gif"]),
    (hopper_persistent, ["hopper_persistent.png"]),
    (hopper_cluster, ["hopper_cluster.png"]),
    (hopper_tma_store, ["hopper_tma_store.png"]),
    (hopper_tail_split, ["hopper_tail_split.png"]),
    (sm_budget, ["sm_budget.png"]),
]


def differences(old, new, path=""):
    """The keys at which two nested dictionaries differ, with both values."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            out += differences(old.get(k), new.get(k), f"{path}.{k}" if path else k)
        return out
    return [] if old == new else [(path, old, new)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--program", help="run this diagram_constants binary for the kernel constants")
    src.add_argument("--constants", help="read the kernel constants from this JSON file (the "
                     "output of diagram_constants)")
    ap.add_argument("--figures", default=str(FIGURES),
                    help="folder of machine.csv, resources.csv and results.csv (default: %(default)s)")
    ap.add_argument("--out", default=str(OUTDIR), help="where to draw (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="draw nothing: fail if the committed diagrams were drawn from other "
                         "numbers than the kernels and the CSVs have now, or one is missing")
    ap.add_argument("--list", action="store_true", help="print the names of the files it draws")
    args = ap.parse_args()
    names = [n for _, files in DIAGRAMS for n in files]
    if args.list:
        print("\n".join(names))
        return 0
    out = pathlib.Path(args.out)
    committed = OUTDIR / INPUTS
    if args.program:
        kernels = run_program(args.program)
    elif args.constants:
        kernels = json.loads(pathlib.Path(args.constants).read_text())
    elif committed.exists():
        kernels = json.loads(committed.read_text())["kernels"]
    else:
        sys.exit(f"diagrams: no {committed}: give --program build/bin/diagram_constants")
    figures = pathlib.Path(args.figures)
    c = gather(kernels, load_csv(figures / "machine.csv"), load_csv(figures / "resources.csv"),
               load_csv(figures / "results.csv"))
    if args.check:
        problems = []
        if not committed.exists():
            problems.append(f"{committed.relative_to(ROOT)} is missing")
        else:
            for key, old, new in differences(json.loads(committed.read_text()), c):
                problems.append(f"{key}: the diagrams were drawn with {old}, now {new}")
        problems += [f"{n} is missing" for n in names if not (OUTDIR / n).exists()]
        if problems:
            print("diagrams --check: the diagrams in docs/figures/diagrams/ do not match the "
                  "kernels and the CSVs:\n  " + "\n  ".join(problems) + "\nRedraw them: "
                  "cmake --build build --target diagram_constants && python3 scripts/docs/diagrams"
                  " --program build/bin/diagram_constants", file=sys.stderr)
            return 1
        print(f"diagrams --check: {len(names)} diagrams, drawn from the kernels' constants and "
              "the CSVs as they are now")
        return 0
    if matplotlib is None:
        sys.exit("diagrams: drawing needs matplotlib (pip install -r scripts/requirements.txt)")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for draw, files in DIAGRAMS:
        draw(c, out, written)
        missing = [f for f in files if f not in written]
        if missing:
            sys.exit(f"diagrams: {draw.__name__} did not write {', '.join(missing)}")
    (out / INPUTS).write_text(json.dumps(c, indent=1, sort_keys=True) + "\n")
    print(f"diagrams: {len(written)} diagrams -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
