#!/usr/bin/env python3
"""Figures for the docs, drawn from the benchmark CSVs alone (never from numbers typed by hand).

    python3 scripts/plot.py docs/figures/results.csv docs/figures
        [--error-study docs/figures/error_study.csv]

Writes into OUTDIR:
  ladder.png       each chapter's headline GFLOPS at 4096^3, with cuBLAS fp32 and fp16 as lines
  fp16_error.png   chapter 05's error study: the error of fp16 inputs and of fp32 accumulation
                   against K (when --error-study is given; `05_tensor_core --error-study --csv F`)
Needs matplotlib (scripts/requirements.txt).
"""
import argparse
import csv
import pathlib

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

SIZE = 4096


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def at_size(r, size=SIZE):
    return int(r["m"]) == int(r["n"]) == int(r["k"]) == size and "@" not in r["variant"]


def ladder(rows, out):
    """The headline (first variant listed) of every GPU chapter at 4096^3."""
    headline = {}
    for r in rows:
        ch = r["chapter"]
        if ch[:2].isdigit() and ch != "00_cpu_reference" and at_size(r) and ch not in headline:
            headline[ch] = r  # the program runs the headline first
    chapters = sorted(headline)
    tflops = [float(headline[c]["gflops"]) / 1000 for c in chapters]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    bars = ax.bar(range(len(chapters)), tflops, color="#4c72b0")
    ax.bar_label(bars, labels=[f"{t:.1f}" for t in tflops], fontsize=8)
    for prec, style, label in (("f32", "--", "cuBLAS SGEMM (fp32)"), ("f16", ":", "cuBLAS fp16 in, fp32 acc")):
        base = [float(r["gflops"]) / 1000 for r in rows
                if r["chapter"] == "cublas" and r["precision"] == prec and at_size(r)]
        if base:
            ax.axhline(max(base), linestyle=style, color="#c44e52", label=label)
    ax.set_xticks(range(len(chapters)), [c.split("_", 1)[1] + "\n" + headline[c]["variant"] for c in chapters],
                  fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("TFLOPS at 4096^3 (log scale)")
    device = headline[chapters[0]]["device"] if chapters else "?"
    ax.set_title(f"The ladder: each chapter's headline kernel on the {device}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "ladder.png", dpi=130)
    plt.close(fig)


def fp16_error(rows, out):
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
    fig.tight_layout()
    fig.savefig(out / "fp16_error.png", dpi=130)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("outdir")
    ap.add_argument("--error-study")
    args = ap.parse_args()
    out = pathlib.Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    ladder(load(args.csv), out)
    written = ["ladder.png"]
    if args.error_study:
        fp16_error(load(args.error_study), out)
        written.append("fp16_error.png")
    print("wrote", ", ".join(str(out / w) for w in written))


if __name__ == "__main__":
    main()
