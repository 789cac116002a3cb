"""The numbers the diagrams show, gathered into one dictionary: the kernels' constants (from
diagram_constants or the committed inputs.json) and what a GPU run wrote (machine.csv,
resources.csv, results.csv)."""

from .kit import *  # noqa: F401,F403 (the drawing kit: palette, canvas, shapes)


# The kernels of the page's worked examples (section 3), in chapter order, and the Hopper kernel
# (drawn where resources.csv lists it: a GPU without sm_90a does not run it).
BUDGET_KERNELS = ["shared_tiling_8", "thread_tiling_tm8", "tiling_2d_double_buffer",
                  "wmma_direct (tiles inside C)", "mma_sync_ptx", "wgmma_persistent"]


# ---- Inputs -------------------------------------------------------------------------------------

def load_csv(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def machine_value(rows, level, quantity):
    """The value of the machine.csv row (level, quantity), or an error naming what is missing."""
    for r in rows:
        if r["level"] == level and r["quantity"] == quantity:
            return float(r["value"])
    sys.exit(f"diagrams: machine.csv has no row '{level}, {quantity}'")


def latencies(rows):
    """{footprint in KB: cycles} of machine_probe's pointer chase."""
    out = {}
    for r in rows:
        m = re.fullmatch(r"load latency, (\d+) KB footprint", r["quantity"])
        if r["level"] == "latency" and m:
            out[int(m.group(1))] = float(r["value"])
    return out


def resource(rows, kernel, column):
    for r in rows:
        if r["kernel"] == kernel:
            return int(float(r[column]))
    sys.exit(f"diagrams: resources.csv has no kernel '{kernel}'")


def gather(kernels, machine, resources, results):
    """Every number the diagrams draw, in one dictionary (written to inputs.json)."""
    c = {"kernels": kernels}
    lat = latencies(machine)
    l2_mb = machine_value(machine, "L2", "L2 size")
    # The latency plateaus, read where docs/memory_hierarchy.md reads them: the largest footprint
    # of at most 128 KB (inside L1), the largest that fits well inside L2 (a quarter of it), and
    # the first at least twice the L2 (DRAM; the largest footprints add a few cycles more).
    in_l1 = max(f for f in lat if f <= 128)
    in_l2 = max(f for f in lat if f * 1024 <= l2_mb * 1024 * 1024 / 4)
    in_dram = min((f for f in lat if f * 1024 >= 2 * l2_mb * 1024 * 1024), default=max(lat))
    c["machine"] = {
        "device": machine[0]["device"],
        "commit": machine[0]["commit"],
        "sms": int(machine_value(machine, "SM", "SMs")),
        "clock_mhz": machine_value(machine, "SM", "max SM clock"),
        "registers_kb": machine_value(machine, "registers", "per SM, as bytes"),
        "registers_per_sm": int(machine_value(machine, "registers", "32-bit registers per SM")),
        "shared_kb": machine_value(machine, "shared", "shared memory per SM"),
        "l2_mb": l2_mb,
        "dram_gb": machine_value(machine, "DRAM", "DRAM size"),
        "shared_gbs": machine_value(machine, "shared", "read bandwidth (all SMs)"),
        "l2_gbs": machine_value(machine, "L2", "read bandwidth"),
        "dram_gbs": machine_value(machine, "DRAM", "read bandwidth"),
        "shared_cycles": machine_value(machine, "shared", "load latency"),
        "l1_cycles": lat[in_l1], "l2_cycles": lat[in_l2], "dram_cycles": lat[in_dram],
    }
    # Chapter 04's kernel 5 is the shape-aware launcher's 128 x 128 tile; the others are listed
    # under the launcher's name.
    k04 = kernels["04_2d_tiling"]
    names = {f"{k04['BM']}x{k04['BN']}": "tiling_2d_double_buffer"}
    names.update({f"{bm}x{bn}": f"tiling_2d_shape_aware {bm}x{bn}" for bm, bn in
                  (re.fullmatch(r"tiling_2d_shape_aware (\d+)x(\d+)", r["kernel"]).groups()
                   for r in resources if re.fullmatch(r"tiling_2d_shape_aware \d+x\d+", r["kernel"]))})
    ws = "wgmma_warp_specialized"
    c["resources"] = {"04 blocks per SM": {tile: resource(resources, k, "blocks_per_sm")
                                           for tile, k in names.items()},
                      ws: {"threads": resource(resources, ws, "threads"),
                           "smem_bytes": resource(resources, ws, "smem_bytes_per_block")}}
    # The Hopper pipeline's depth is chosen inside wgmma_persistent.cu; the shared memory that
    # resources.csv lists for the kernel tells it (diagram_constants lists the bytes of each depth).
    hp, ws = kernels["hopper"], c["resources"]["wgmma_warp_specialized"]
    if ws["smem_bytes"] not in hp["smem_bytes_by_stages"]:
        sys.exit("diagrams: wgmma_warp_specialized's shared memory in resources.csv matches no "
                 "pipeline depth of hopper_tiles.cuh's SharedLayout")
    c["hopper"] = {"stages": hp["smem_bytes_by_stages"].index(ws["smem_bytes"]) + 1,
                   "consumers": ws["threads"] // kernels["hardware"]["warpgroup_threads"] - 1}
    # So is mma_sync_pipelined's (kStages, inside mma_pipelined.cu): its 128 x 256 kernel's shared
    # memory in resources.csv is that many stages of an A tile and a B tile.
    k06 = kernels["06_warp_tiling"]
    stage = (k06["BM"] + k06["BN"]) * k06["BK"] * FP16_BYTES
    smem = resource(resources, f"mma_sync_pipelined {k06['BM']}x{k06['BN']}",
                    "smem_bytes_per_block")
    if smem % stage:
        sys.exit(f"diagrams: mma_sync_pipelined's shared memory in resources.csv ({smem} bytes) "
                 f"is no whole number of {stage}-byte stages")
    c["pipelined"] = {"stages": smem // stage}
    c["budget"] = {k: {"chapter": next(r["chapter"] for r in resources if r["kernel"] == k),
                       "threads": resource(resources, k, "threads"),
                       "regs": resource(resources, k, "regs_per_thread"),
                       "smem": resource(resources, k, "smem_bytes_per_block"),
                       "blocks_per_sm": resource(resources, k, "blocks_per_sm")}
                   for k in BUDGET_KERNELS if any(r["kernel"] == k for r in resources)}
    sms = c["machine"]["sms"]
    c["results"] = {"waves": shape_aware_example(results, sms, c["resources"]),
                    "persistent_size": max(int(r["m"]) for r in results
                                           if r["variant"] == "wgmma_persistent"
                                           and r["m"] == r["n"] == r["k"])}
    return c


def shape_aware_example(results, sms, resources):
    """Chapter 04's shape-aware launcher at two square sizes (results.csv): the smallest at which
    its largest tile makes more than one wave, and the largest at which it chose something else (a
    smaller tile or split-K), with what it ran there."""
    rows = [r for r in results if r["variant"] == "tiling_2d_shape_aware" and
            r["m"] == r["n"] == r["k"] and r["note"].startswith("ran ") and
            int(r["m"]) & (int(r["m"]) - 1) == 0]
    plans = {}
    for r in rows:
        plans.setdefault(int(r["m"]), r["note"][4:])
    largest = max(plans, key=lambda s: tuple(int(x) for x in plans[s].split(",")[0].split("x")))
    tile = plans[largest].split(",")[0]  # the largest tile the launcher runs: "128x256"
    bm, bn, _ = plan(tile)
    per_wave = sms * resources["04 blocks per SM"][tile]
    full = min(s for s in plans if plans[s] == tile and (s // bm) * (s // bn) > per_wave)
    other = max(s for s in plans if plans[s] != tile)
    return {"tile": tile, "full_size": full, "small_size": other, "small_plan": plans[other]}


def run_program(path):
    out = subprocess.run([str(path)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"diagrams: {path} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def plan(text):
    """'128x128, split-K 2' -> (128, 128, 2)."""
    m = re.fullmatch(r"(\d+)x(\d+)(?:, split-K (\d+))?", text)
    if not m:
        sys.exit(f"diagrams: cannot read the launch plan '{text}' from results.csv")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
