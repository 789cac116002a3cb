#!/usr/bin/env python3
"""The profiling lab sheet: every variant of every GPU chapter under Nsight Compute, one CSV.

    python3 scripts/measure/profile.py BUILD_DIR OUT.csv [--size 4096] [--chapter 02_shared_tiling]

For each variant this runs (the command docs/profiling.md teaches, one kernel launch profiled):

    ncu --clock-control none --cache-control all --launch-count 1 --csv --page raw \
        --metrics <the list below> \
        BUILD_DIR/bin/<chapter> --variant <v> --size 4096 --iters 1 --warmup 0 --no-verify --no-baseline

--clock-control none: the GPU keeps its normal boost clock, as in the benchmark (Nsight Compute
would otherwise lock it to the base clock). --cache-control all: caches flushed before the
profiled launch, as the benchmark's timer does. --no-verify --no-baseline: no cuBLAS kernels, so
the first kernel launched is the chapter's. Chapter 07 is profiled only on compute capability 9.0:
elsewhere its variants run chapter 06's mma_sync_pipelined, which 06's rows already profile.

The CSV has one row per variant: the derived quantities the lab sheet discusses (sectors per
request, bank conflicts as a share of shared-memory wavefronts, occupancy, spills, pipe utilization,
DRAM bytes) and the raw counters they come from. scripts/docs/results_table.py turns it into the
tables of docs/profiling.md and the chapter READMEs.
"""
import argparse
import csv
import io
import os
import pathlib
import subprocess
import sys

# name in our CSV -> Nsight Compute metric. Kept short on purpose: each metric a student can look
# up in `ncu --query-metrics` and the Nsight Compute "Kernel Profiling Guide".
METRICS = {
    "duration_ns": "gpu__time_duration.sum",
    "regs_per_thread": "launch__registers_per_thread",
    "smem_static_bytes": "launch__shared_mem_per_block_static",
    "smem_dynamic_bytes": "launch__shared_mem_per_block_dynamic",
    "block_size": "launch__block_size",
    "theoretical_occupancy_pct": "sm__maximum_warps_per_active_cycle_pct",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "global_ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "shared_ld_instructions": "smsp__inst_executed_op_shared_ld.sum",
    "shared_st_instructions": "smsp__inst_executed_op_shared_st.sum",
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "ldsm_instructions": "smsp__inst_executed_op_ldsm.sum",
    "shared_ld_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_st_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "local_ld_bytes": "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum",
    "local_st_bytes": "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
    "ffma_thread_instructions": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "fma_pipe_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    # On Hopper this counter covers wgmma (HGMMA) too: 89.0% for chapter 07's wgmma_persistent in
    # docs/figures/h100/profile.csv (commit aad2af4dc5), while the wgmma-specific ..._gmma_... counter reads n/a.
    "tensor_pipe_pct": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    # Hopper's warpgroup instruction (wgmma, HGMMA in the SASS) has a pipe counter of its own; it
    # exists only on compute capability 9.x, so it is asked for only there (HOPPER_METRICS).
    "tensor_gmma_pipe_pct": "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "dram_read_bytes": "dram__bytes_read.sum",
    "dram_write_bytes": "dram__bytes_write.sum",
    "l2_read_sectors": "lts__t_sectors_srcunit_tex_op_read.sum",
    "sm_throughput_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_throughput_pct": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
}

HOPPER_METRICS = {"tensor_gmma_pipe_pct"}

# Multipliers that bring ncu's units to ours (it may print bytes as Kbyte/Mbyte, time as usecond).
UNIT = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1, "usecond": 1e3,
        "msecond": 1e6, "second": 1e9}


def variants_of(exe):
    out = subprocess.run([str(exe), "--list"], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines()[1:] if line.strip()]


def profile_one(ncu, exe, variant, size, metrics):
    cmd = [ncu, "--clock-control", "none", "--cache-control", "all", "--launch-count", "1",
           "--csv", "--page", "raw", "--metrics", ",".join(metrics.values()),
           str(exe), "--variant", variant, "--size", str(size), "--iters", "1", "--warmup", "0",
           "--no-verify", "--no-baseline"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    # ncu prints its own "==PROF==" lines and the program's output before the CSV block.
    lines = p.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if p.returncode != 0 or start is None:
        raise RuntimeError(f"ncu failed for {exe.name} --variant {variant} (exit {p.returncode}):\n"
                           + "\n".join((p.stdout + p.stderr).splitlines()[-15:]))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, units, values = rows[0], rows[1], rows[2]
    raw = {}
    for ours, metric in METRICS.items():
        if metric not in metrics.values() or metric not in header:
            raw[ours] = ""  # not available on this GPU (e.g. no tensor pipe before Volta)
            continue
        i = header.index(metric)
        text = values[i].replace(",", "")
        try:
            raw[ours] = float(text) * UNIT.get(units[i], 1)
        except ValueError:
            raw[ours] = ""
    raw["kernel"] = values[header.index("Kernel Name")].split("(")[0]
    return raw


def ratio(a, b):
    return a / b if isinstance(a, float) and isinstance(b, float) and b > 0 else ""


def pct(a, b):
    q = ratio(a, b)
    return 100.0 * q if q != "" else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dir")
    ap.add_argument("out_csv")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--chapter", action="append", help="only these chapters (repeatable)")
    ap.add_argument("--ncu", default="ncu")
    args = ap.parse_args()

    exes = sorted(pathlib.Path(args.build_dir, "bin").glob("0[1-9]_*"))
    exes = [e for e in exes if not e.name.endswith("_exercise") and
            (not args.chapter or e.name in args.chapter)]
    if not exes:
        sys.exit(f"profile.py: no chapter programs in {args.build_dir}/bin (build first).")
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.splitlines()
    cap = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.split()
    hopper = bool(cap) and cap[0].startswith("9.")
    # Chapter 07's kernels are sm_90a code. Elsewhere every variant of 07 runs chapter 06's
    # mma_sync_pipelined (the results table says so), whose rows are 06's: not profiled again.
    if not hopper and any(e.name == "07_hopper" for e in exes):
        print("profile.py: 07_hopper skipped: its kernels need compute capability 9.0 (here its "
              "variants run 06's mma_sync_pipelined, profiled under 06)")
        exes = [e for e in exes if e.name != "07_hopper"]
    if not exes:
        sys.exit("profile.py: nothing to profile on this GPU.")
    jobs = [(e, v) for e in exes for v in variants_of(e)]
    metrics = {k: v for k, v in METRICS.items() if hopper or k not in HOPPER_METRICS}
    commit = os.environ.get("GEMM_COMMIT") or subprocess.run(
        ["git", "-C", str(pathlib.Path(__file__).parent), "describe", "--always", "--dirty", "--abbrev=10"],
        capture_output=True, text=True).stdout.strip() or "unknown"
    derived = ["chapter", "variant", "kernel", "size", "duration_ms", "sectors_per_request",
               "shared_ld_conflict_pct", "shared_st_conflict_pct",
               "smem_bytes_per_block", "spill_bytes", "dram_mb", "ffma_per_shared_ld"]
    out_rows, failed = [], 0
    for n, (exe, variant) in enumerate(jobs, 1):
        print(f"[{n}/{len(jobs)}] ncu {exe.name} --variant {variant}", flush=True)
        try:
            r = profile_one(args.ncu, exe, variant, args.size, metrics)
        except RuntimeError as e:
            print(e, file=sys.stderr)
            failed += 1
            continue
        def num(key):
            return r[key] if isinstance(r[key], float) else 0.0
        row = dict(r)
        row.update({
            "chapter": exe.name, "variant": variant, "size": args.size,
            "device": gpu[0] if gpu else "", "commit": commit,
            "duration_ms": num("duration_ns") / 1e6,
            "sectors_per_request": ratio(r["global_ld_sectors"], r["global_ld_requests"]),
            # A bank conflict costs one extra wavefront (one more pass through the 32 banks), so
            # conflicts / wavefronts is the share of shared-memory time lost to conflicts.
            "shared_ld_conflict_pct": pct(r["shared_ld_bank_conflicts"], r["shared_ld_wavefronts"]),
            "shared_st_conflict_pct": pct(r["shared_st_bank_conflicts"], r["shared_st_wavefronts"]),
            "smem_bytes_per_block": num("smem_static_bytes") + num("smem_dynamic_bytes"),
            "spill_bytes": num("local_ld_bytes") + num("local_st_bytes"),
            "dram_mb": (num("dram_read_bytes") + num("dram_write_bytes")) / 1e6,
            # FFMA per shared-memory load instruction, per warp: the register-reuse story of 02-04.
            "ffma_per_shared_ld": ratio(num("ffma_thread_instructions") / 32.0, r["shared_ld_instructions"]),
        })
        out_rows.append(row)
    fields = derived + ["device", "commit"] + list(METRICS)
    with open(args.out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for row in out_rows:
            # Whole numbers (byte and sector counts) exactly; other floats to 6 significant digits.
            w.writerow({k: (f"{v:.0f}" if isinstance(v, float) and v.is_integer()
                            else f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    print(f"profile.py: {len(out_rows)} kernels profiled, {failed} failed -> {args.out_csv}")
    sys.exit(1 if failed or not out_rows else 0)


if __name__ == "__main__":
    main()
