#!/usr/bin/env python3
"""What the compiled kernels contain, for GPUs whose performance counters are locked.

    python3 scripts/measure/sass_stats.py build/bin/04_2d_tiling [--arch sm_90] [--csv OUT.csv]
    python3 scripts/measure/sass_stats.py build/bin/06_warp_tiling build/bin/07_hopper --arch sm_90 --arch sm_90a

Nsight Compute needs access to the GPU's counters, which some machines (shared clusters, cloud
VMs, laptops without admin rights) do not give. The machine code needs nothing: this script runs
`cuobjdump -sass` and `cuobjdump -res-usage` on a chapter's program and prints, for every kernel,
how many of each instruction the compiler emitted (a STATIC count: an instruction in a loop counts
once, however often it runs) and its resources:

  FFMA         fp32 fused multiply-adds: the useful work of chapters 01-04
  LDS, LDS.128 shared-memory loads, all and 128-bit (four floats per instruction); every
               instruction is counted as emitted, so placeholders the compiler predicates off
               (`@!PT LDS RZ, [RZ]`, as in 06's mma.sync kernels) count too
  LDG, LDG.128 global loads, all and 128-bit
  STS          shared-memory stores
  HMMA, LDSM   tensor-core multiply-accumulates and the shared-to-register fragment loads (05-06)
  HGMMA        wgmma, Hopper's warpgroup multiply-accumulate (07, sm_90a)
  UTMALDG      a TMA copy of a tensor tile from global to shared memory (07, sm_90a)
  LDGSTS       cp.async: global-to-shared copies that bypass registers (06)
  BAR          __syncthreads() and friends
  FFMA/LDS     the register-reuse ratio of chapters 02-04 (in the unrolled inner loop, it is
               close to the dynamic ratio Nsight Compute would measure)
  REG, STACK, LOCAL, SHARED   from -res-usage (LOCAL > 0 or STACK > 0 means local memory:
               spilled registers, or an array the compiler could not keep in registers;
               `-Xptxas -v`'s "spill stores" tells which). SHARED includes the 1 KB that sm_80
               and newer reserve per block, which `-Xptxas -v` does not count

With several binaries, a kernel is listed once, under the first that contains it: programs share
kernels (07_hopper holds chapter 06's, which run in its place off Hopper; 04 and 06 both hold
common/'s split-K and packing kernels), and each is listed where it first appears.

Needs cuobjdump (CUDA Toolkit) and c++filt (binutils) on PATH.
"""
import argparse
import collections
import csv
import re
import shutil
import subprocess
import sys

GROUPS = [  # (column, predicate on the full opcode such as "LDS.U.128")
    ("FFMA", lambda op: op.split(".")[0] == "FFMA"),
    ("LDS", lambda op: op.split(".")[0] == "LDS"),
    ("LDS.128", lambda op: op.split(".")[0] == "LDS" and op.endswith(".128")),
    ("LDG", lambda op: op.split(".")[0] == "LDG"),
    ("LDG.128", lambda op: op.split(".")[0] == "LDG" and ".128" in op),
    ("STS", lambda op: op.split(".")[0] == "STS"),
    ("HMMA", lambda op: op.split(".")[0] == "HMMA"),
    ("LDSM", lambda op: op.split(".")[0] == "LDSM"),
    ("LDGSTS", lambda op: op.split(".")[0] == "LDGSTS"),
    ("HGMMA", lambda op: op.split(".")[0] == "HGMMA"),      # wgmma (Hopper)
    ("UTMALDG", lambda op: op.split(".")[0] == "UTMALDG"),  # a TMA tensor load (Hopper)
    ("BAR", lambda op: op.split(".")[0] == "BAR"),
]
INSTR = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def run(cmd, required=True):
    """cuobjdump's output; "" when it fails and the architecture is an optional one."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        if not required:
            return ""
        sys.exit(f"sass_stats.py: {' '.join(cmd)} failed:\n{p.stderr.strip()}")
    return p.stdout


def default_arch(binary):
    """sm_90 where the binary has it (the reference GPUs' code), else the newest SASS it embeds: a
    build for this machine's GPU alone (the default) embeds only that GPU's."""
    found = set(re.findall(r"\.(sm_\d+a?)\.cubin", run(["cuobjdump", "-lelf", binary], False)))
    if "sm_90" in found or not found:
        return "sm_90"
    return max(found, key=lambda a: (int(re.sub(r"\D", "", a)), a))


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.splitlines()))


def short(name):
    """'void gemm::tiling_2d::(anonymous namespace)::k<128, 128>(float const*, ...)' -> 'k<128, 128>'.
    """
    name = re.sub(r"^void ", "", name.replace("(anonymous namespace)::", ""))
    name = name.split("(")[0]
    depth, cut = 0, 0
    for i, ch in enumerate(name):  # the last '::' outside template brackets
        depth += ch == "<"
        depth -= ch == ">"
        if depth == 0 and name[i:i + 2] == "::":
            cut = i + 2
    # A type among the template arguments keeps its own name only: SplitKUnits, not
    # gemm::hopper::SplitKUnits; and 'TailSplitUnits<2> >' as C++17 writes it, '<2>>'.
    return re.sub(r"\b\w+::", "", name[cut:]).replace("> >", ">>")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary", nargs="+")
    ap.add_argument("--arch", action="append",
                    help="an embedded architecture (default: sm_90 where the first binary has it, "
                         "else the newest it has); repeat for more, e.g. --arch sm_90 "
                         "--arch sm_90a for chapter 07's kernels (binaries without the second "
                         "are skipped for it)")
    ap.add_argument("--csv", help="also write the table to this CSV")
    args = ap.parse_args()
    if not shutil.which("cuobjdump"):
        sys.exit("sass_stats.py: cuobjdump (CUDA Toolkit) is not on PATH.")

    archs = args.arch or [default_arch(args.binary[0])]
    rows = []
    seen = {}  # binary -> the mangled names of the kernels listed under it
    for binary, arch in [(b, a) for b in args.binary for a in archs]:
        required = arch == archs[0]
        counts = collections.OrderedDict()
        current = None
        for line in run(["cuobjdump", "-sass", "-arch", arch, binary], required).splitlines():
            m = re.search(r"Function : (\S+)", line)
            if m:
                current = m.group(1)
                counts[current] = collections.Counter()
                continue
            m = INSTR.search(line)
            if m and current:
                op = m.group(1)
                for col, pred in GROUPS:
                    counts[current][col] += pred(op)
        usage = {}
        func = None
        for line in run(["cuobjdump", "-res-usage", "-arch", arch, binary], required).splitlines():
            m = re.search(r"Function (\S+):", line)
            if m:
                func = m.group(1)
                continue
            if func and "REG:" in line:
                usage[func] = dict(re.findall(r"(REG|STACK|SHARED|LOCAL):(\d+)", line))
                func = None
        names = demangle(list(counts))
        for mangled, c in counts.items():
            row = {"binary": binary.split("/")[-1], "kernel": short(names[mangled])}
            if mangled in seen.get(row["binary"], set()):
                continue  # listed under both architectures
            if any(mangled in kernels for b, kernels in seen.items() if b != row["binary"]):
                continue  # listed under an earlier binary, whose chapter it belongs to
            seen.setdefault(row["binary"], set()).add(mangled)
            row.update({col: c[col] for col, _ in GROUPS})
            row["FFMA/LDS"] = f"{c['FFMA'] / c['LDS']:.1f}" if c["LDS"] else "-"
            for key in ("REG", "STACK", "LOCAL", "SHARED"):
                row[key] = usage.get(mangled, {}).get(key, "?")
            rows.append(row)

    if not rows:
        sys.exit(f"sass_stats.py: no {'/'.join(archs)} kernels found (was it built for them? see --arch).")
    cols = ["binary", "kernel"] + [c for c, _ in GROUPS] + ["FFMA/LDS", "REG", "STACK", "LOCAL", "SHARED"]
    width = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    width["kernel"] = min(width["kernel"], 60)
    print("  ".join(c.ljust(width[c]) if c in ("binary", "kernel") else c.rjust(width[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c])[:width[c]].ljust(width[c]) if c in ("binary", "kernel")
                        else str(r[c]).rjust(width[c]) for c in cols))
    print(f"(static counts from cuobjdump -sass -arch {'/'.join(archs)}: an instruction inside a loop counts once)")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
