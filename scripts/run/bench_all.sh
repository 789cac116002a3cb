#!/usr/bin/env bash
# The benchmark sweep behind every figure and table in docs/: every variant of every GPU chapter,
# with cuBLAS fp32 and fp16 timed in the same processes, over
#   square sizes   256 512 1024 2048 4096 8192
#   awkward sizes  1000^3, 4093^3 (ragged tiles everywhere), 4096 x 4096 x 4100 (K a multiple of 4
#                  but not of 8)
#   skinny shapes  4096 x 4096 x 256 (short K), 256 x 256 x 8192 (tiny C, long K),
#                  8192 x 128 x 8192 (a narrow C), and the shapes of docs/tile_size_tradeoffs.md,
#                  "Waves": 128 x 4096 x 4096 and 16 x 4096 x 4096 (a few rows against a weight
#                  matrix, as in a language model's decode step), 512 x 512 x 16384 (small C, deep
#                  K: split-K's case), 8192 x 8192 x 128 (large C, shallow K)
# plus chapter 00 (CPU) at 4096 and 01_naive on managed memory at 4096, the machine's own limits
# (machine_probe: bandwidths, FP32 peak, latencies), each kernel's registers/shared memory/
# occupancy, chapter 04's tile-size sweep (tile_sweep_04), chapter 05's fp16 error study,
# chapter 06's tensor-core ceiling, and the energy per GEMM of chapter 07's every variant and
# chapter 04's headline at 4096^3 and 8192^3 (--energy: each kernel alone, 1 s + 2 s).
#
#   bash scripts/run/bench_all.sh [BUILD_DIR] [OUT_DIR]      # defaults: build, BUILD_DIR/bench
#   SIZES="1024 4096" bash scripts/run/bench_all.sh           # other square sizes
#   SKINNY=0 AWKWARD=0 bash scripts/run/bench_all.sh          # squares only
#   EXTRAS=0 bash scripts/run/bench_all.sh B O; SWEEP=0 bash scripts/run/bench_all.sh B O
#                                        # the same in two parts (the GPU sweep, then chapter 00,
#                                        # managed memory and the programs after them), into one
#                                        # OUT_DIR: for machines that limit how long one command runs
#
# Writes into OUT_DIR: results.csv (one row per variant and shape: GPU, SM clock, CUDA version,
# commit, chapter, variant, M, N, K, median ms, GFLOPS, % of the matching cuBLAS, max error /
# bound, and what a launcher ran instead of its own kernel: off Hopper, every variant of 07_hopper
# runs 06's mma_sync_pipelined and says so), machine.csv, resources.csv, error_study.csv,
# tile_sweep_04.csv, energy.csv, bench.log (every program's full output),
# and, when matplotlib is installed, the figures (scripts/docs/plot.py). Prints one line per run as it
# goes. About 10 minutes on an H100/H200: 7 for the GPU sweep, 3 for the rest (the time is printed
# at the end).
# Exit status: 0 when every run verified, 1 otherwise, 3 without a GPU.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-${BUILD_DIR:-$root/build}}
out=${2:-${OUT_DIR:-$build/bench}}
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "bench_all.sh: no NVIDIA GPU is visible on this machine (nvidia-smi -L failed)." >&2
  exit 3
fi
if ! ls "$build"/bin/0[1-9]_* >/dev/null 2>&1; then
  echo "bench_all.sh: no chapter programs in $build/bin; build first (cmake --build $build)." >&2
  exit 2
fi
mkdir -p "$out"
csv="$out/results.csv"
log="$out/bench.log"
sweep=${SWEEP:-1}
extras=${EXTRAS:-1}
# Each part starts its own files afresh, and leaves the other part's alone.
[ "$sweep" = 1 ] && rm -f "$csv" "$log" "$out/resources.csv"
[ "$extras" = 1 ] && rm -f "$out/machine.csv" "$out/error_study.csv" "$out/tile_sweep_04.csv" \
                             "$out/energy.csv"

shapes=()
for s in ${SIZES:-256 512 1024 2048 4096 8192}; do shapes+=("$s $s $s"); done
[ "${AWKWARD:-1}" = 1 ] && shapes+=("1000 1000 1000" "4093 4093 4093" "4096 4096 4100")
[ "${SKINNY:-1}" = 1 ] && shapes+=("4096 4096 256" "256 256 8192" "8192 128 8192" \
                                   "128 4096 4096" "16 4096 4096" "512 512 16384" "8192 8192 128")

chapters=()
for exe in "$build"/bin/0[1-9]_*; do
  case "$exe" in *_exercise) continue ;; esac
  chapters+=("$exe")
done
# The runs: every GPU chapter at every shape, then the extras.
runs=()
if [ "$sweep" = 1 ]; then
  for shape in "${shapes[@]}"; do
    for exe in "${chapters[@]}"; do runs+=("$exe|$shape|"); done
  done
fi
if [ "$extras" = 1 ]; then
  [ -x "$build/bin/00_cpu_reference" ] && runs+=("$build/bin/00_cpu_reference|4096 4096 4096|")
  [ -x "$build/bin/01_naive" ] && runs+=("$build/bin/01_naive|4096 4096 4096|--memory managed")
fi

status=0
start=$SECONDS
total=${#runs[@]}
n=0
for run in "${runs[@]}"; do
  IFS='|' read -r exe shape extra <<< "$run"
  read -r m nn k <<< "$shape"
  n=$((n + 1))
  name=$(basename "$exe")
  args=(--m "$m" --n "$nn" --k "$k" --csv "$csv")
  # The largest problems: fewer repetitions (the slowest kernel, 01's uncoalesced one, takes
  # seconds per run there); the median of 3 after a warm-up is still a median.
  if [ $((m * nn / 1024 * k / 1024)) -ge $((8192 * 8192 / 1024 * 8192 / 1024)) ]; then
    args+=(--iters 3 --warmup 1)
  fi
  # Each kernel's resources, once per chapter (they do not depend on the shape).
  if [ "$shape" = "4096 4096 4096" ] && [ -z "$extra" ] && [ "$name" != 00_cpu_reference ]; then
    args+=(--resources-csv "$out/resources.csv")
  fi
  t0=$SECONDS
  echo "--- $name ${m}x${nn}x${k} $extra" >> "$log"
  # shellcheck disable=SC2086
  "$exe" "${args[@]}" $extra >> "$log" 2>&1
  rc=$?
  note=""
  if [ $rc -ne 0 ]; then
    status=1
    note="  FAILED (exit $rc; see $log)"
  fi
  printf "[%3d/%d] %-18s %-16s %-18s %4ds  (elapsed %d:%02d)%s\n" "$n" "$total" "$name" \
    "${m}x${nn}x${k}" "$extra" $((SECONDS - t0)) $(((SECONDS - start) / 60)) \
    $(((SECONDS - start) % 60)) "$note"
done

[ "$extras" = 1 ] && echo "--- machine_probe" >> "$log"
if [ "$extras" = 1 ] && [ -x "$build/bin/machine_probe" ]; then
  "$build/bin/machine_probe" --csv "$out/machine.csv" >> "$log" 2>&1 || status=1
  echo "machine_probe: bandwidths, FP32 peak and latencies -> $out/machine.csv"
fi
if [ "$extras" = 1 ] && [ -x "$build/bin/tile_sweep_04" ]; then
  echo "--- tile_sweep_04" >> "$log"
  "$build/bin/tile_sweep_04" --csv "$out/tile_sweep_04.csv" >> "$log" 2>&1 || status=1
  echo "tile_sweep_04: chapter 04's kernel 5 at several tile sizes -> $out/tile_sweep_04.csv"
fi
if [ "$extras" = 1 ] && [ -x "$build/bin/05_tensor_core" ]; then
  "$build/bin/05_tensor_core" --error-study --csv "$out/error_study.csv" >> "$log" 2>&1 || status=1
  echo "05_tensor_core --error-study -> $out/error_study.csv"
fi
if [ "$extras" = 1 ] && [ -x "$build/bin/06_warp_tiling" ]; then
  echo "--- 06_warp_tiling --wmma-ceiling" >> "$log"
  "$build/bin/06_warp_tiling" --wmma-ceiling --csv "$out/machine.csv" >> "$log" 2>&1 || status=1
  echo "06_warp_tiling --wmma-ceiling -> $log and $out/machine.csv (the measured tensor ceilings)"
fi
# Energy per GEMM (docs/benchmarking.md, section 5): one process per chapter and size, cuBLAS and
# the kernels each alone for 3 s (about a minute and a half on an H100). Where NVML or the GPU's energy
# counter is missing, the programs say so and the CSV stays empty.
if [ "$extras" = 1 ]; then
  for s in 4096 8192; do
    for run in "07_hopper|" "04_2d_tiling|--variant tiling_2d_shape_aware"; do
      IFS='|' read -r name extra <<< "$run"
      [ -x "$build/bin/$name" ] || continue
      echo "--- $name --energy ${s}^3 $extra" >> "$log"
      # shellcheck disable=SC2086
      "$build/bin/$name" --size "$s" $extra --no-verify --iters 1 --warmup 0 \
          --energy-csv "$out/energy.csv" >> "$log" 2>&1 || status=1
    done
  done
  echo "--energy: chapter 07 and 04's headline at 4096^3 and 8192^3 -> $out/energy.csv"
fi
fails=$(grep -c ",FAIL," "$csv" 2>/dev/null)
echo "bench_all.sh: $total runs, $(($(wc -l < "$csv") - 1)) rows, ${fails:-0} failed verification," \
     "in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s -> $csv"
[ "${fails:-0}" -eq 0 ] || status=1

if [ "$extras" = 0 ]; then
  echo "bench_all.sh: the figures need the rest of the sweep too: drawn by the SWEEP=0 part."
elif python3 -c "import matplotlib" 2>/dev/null; then
  python3 "$root/scripts/docs/plot.py" "$csv" "$out" || status=1
  # The teaching diagrams draw this GPU's sizes, bandwidths and SM count (machine.csv) and what the
  # launchers chose (results.csv): redrawn with the figures when these are the repository's.
  if [ "$out" -ef "$root/docs/figures" ] && [ -x "$build/bin/diagram_constants" ]; then
    python3 "$root/scripts/docs/diagrams" --program "$build/bin/diagram_constants" || status=1
  fi
else
  echo "bench_all.sh: matplotlib is not installed; skipping the figures (pip install -r scripts/requirements.txt)."
fi
exit $status
