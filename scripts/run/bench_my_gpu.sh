#!/usr/bin/env bash
# Your GPU's results next to the reference GPU's. Builds for this machine's GPU, runs the benchmark
# sweep (every chapter at every size and shape, cuBLAS in the same process), the machine probe and,
# where the counters are open, Nsight Compute; then copies the CSVs into docs/figures/NAME/ and
# redraws the figures, which then include NAME's ladder (ladder_NAME.png) and every GPU side by side
# (gpus.png), and the <!-- results:gpus --> tables (results_table.py --update) gain NAME's columns.
#
#   bash scripts/run/bench_my_gpu.sh              # NAME from the GPU's name: "NVIDIA L4" -> l4
#   bash scripts/run/bench_my_gpu.sh rtx4090      # or your own
#
# About 10-20 minutes on a large GPU (longer on a small one: chapter 01 at 8192^3 takes a while).
# What to send back: the folder docs/figures/NAME/ (its CSVs carry the GPU's name, clock, CUDA
# version and the commit), as a pull request or attached to an issue; nothing else is needed.
# Exit status: 0 when every stage passed, 1 otherwise, 3 without a GPU.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "bench_my_gpu.sh: no NVIDIA GPU is visible on this machine (nvidia-smi -L failed)." >&2
  exit 3
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
name=${1:-$(echo "$gpu" | tr 'A-Z' 'a-z' | sed -E 's/^nvidia //; s/[^a-z0-9]+/_/g; s/^_+|_+$//g')}
if [[ ! "$name" =~ ^[a-z0-9_]+$ ]]; then
  echo "bench_my_gpu.sh: NAME must be lower-case letters, digits and '_' (got '$name')." >&2
  exit 2
fi

out=${OUT_DIR:-$root/build-gpu/check-$name}
status=0
STAGES="build bench profile" OUT_DIR="$out" bash "$root/scripts/run/check_gpu.sh" || status=1

dest=$root/docs/figures/$name
mkdir -p "$dest"
for f in results machine resources error_study profile sass tile_sweep_04; do
  [ -s "$out/$f.csv" ] && cp "$out/$f.csv" "$dest/"
done
python3 "$root/scripts/docs/plot.py" "$root/docs/figures/results.csv" "$root/docs/figures" || status=1
python3 "$root/scripts/docs/results_table.py" "$root/docs/figures/results.csv" --update || status=1
echo
echo "bench_my_gpu.sh: $gpu -> $dest ($(ls "$dest" | tr '\n' ' '))"
echo "Send back the folder docs/figures/$name/ (a pull request, or its files attached to an issue)."
exit $status
