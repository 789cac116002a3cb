#!/usr/bin/env bash
# One command that proves this repository works on the GPU of this machine:
#   configure (the GPU's own architecture) and build everything, run every test label (cpu, gpu,
#   sanitize), run every chapter at 4096 with --csv, and print a short summary table last.
#
#   bash scripts/check_gpu.sh                  # from the repository root
#   SIZE=2048 bash scripts/check_gpu.sh        # another benchmark size
#   GEMM_ARCH=90 bash scripts/check_gpu.sh     # another architecture list (default: native)
#   OUT_DIR=/tmp/check bash scripts/check_gpu.sh   # where logs and the CSV go
#   AWKWARD=0 bash scripts/check_gpu.sh        # skip the 4093^3 / 4096x4096x4100 / managed runs
#
# Then, to refresh the docs from this run (docs/benchmarking.md, section 6):
#   cp build-gpu/check/results.csv docs/figures/results.csv
#   python3 scripts/results_table.py docs/figures/results.csv --update
#   python3 scripts/paste_program_output.py build-gpu/check/bench.log "$(git rev-parse --short=10 HEAD)"
#   cp build-gpu/check/error_study.csv docs/figures/ && python3 scripts/plot.py \
#       docs/figures/results.csv docs/figures --error-study docs/figures/error_study.csv
#
# Exit status: 0 when every test passed and every chapter verified, 1 otherwise.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
arch=${GEMM_ARCH:-native}
size=${SIZE:-4096}
out=${OUT_DIR:-$build/check}
mkdir -p "$out"
csv="$out/results.csv"
tests_log="$out/tests.log"
bench_log="$out/bench.log"
rm -f "$csv" "$tests_log" "$bench_log"
status=0

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "check_gpu.sh: no NVIDIA GPU is visible on this machine (nvidia-smi -L failed)." >&2
  exit 3
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
echo "== configure and build ($build, CUDA architectures: $arch)"
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$out/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" >> "$out/build.log" 2>&1
if [ $? -ne 0 ]; then
  tail -n 40 "$out/build.log"
  echo "check_gpu.sh: the build failed (full log: $out/build.log)." >&2
  exit 1
fi
grep -E "warning" "$out/build.log" | sort -u | head -n 20

declare -A test_line
for label in cpu gpu sanitize; do
  echo "== ctest -L $label"
  ctest --test-dir "$build" -L "$label" --output-on-failure -j 4 > "$out/ctest_$label.log" 2>&1 ||
    status=1
  line=$(grep -E "tests passed|tests failed" "$out/ctest_$label.log" | tail -n 1)
  skipped=$(grep -c '\*\*\*Skipped' "$out/ctest_$label.log")
  test_line[$label]="${line:-no tests ran}; $skipped skipped"
  cat "$out/ctest_$label.log" >> "$tests_log"
  rm -f "$out/ctest_$label.log"
  echo "   ${test_line[$label]}"
done

echo "== chapters at ${size}^3 (CSV: $csv)"
for exe in "$build"/bin/[0-9][0-9]_*; do
  name=$(basename "$exe")
  echo "--- $name" | tee -a "$bench_log"
  "$exe" --size "$size" --csv "$csv" >> "$bench_log" 2>&1 || {
    echo "   $name exited with $?" | tee -a "$bench_log"
    status=1
  }
done

# The sizes the chapters' READMEs also cite: ragged tiles everywhere (4093^3) and K one step past
# a multiple of 4 (4096 x 4096 x 4100): a headline should not fall off a cliff there. And chapter
# 01 on managed memory.
if [ "${AWKWARD:-1}" = 1 ]; then
  echo "== awkward sizes, and 01_naive on managed memory"
  for exe in "$build"/bin/0[2-9]_*; do
    for shape in "--size 4093" "--m 4096 --n 4096 --k 4100"; do
      echo "--- $(basename "$exe") $shape" >> "$bench_log"
      # shellcheck disable=SC2086
      "$exe" $shape --csv "$csv" >> "$bench_log" 2>&1 || { echo "   $(basename "$exe") $shape failed"; status=1; }
    done
  done
  if [ -x "$build/bin/01_naive" ]; then
    echo "--- 01_naive --memory managed" >> "$bench_log"
    "$build/bin/01_naive" --size "$size" --memory managed --csv "$csv" >> "$bench_log" 2>&1 || status=1
  fi
fi
# The tensor-core ceiling (chapter 06) and the fp16 error study (chapter 05, on the CPU).
if [ -x "$build/bin/06_warp_tiling" ]; then
  echo "--- 06_warp_tiling --wmma-ceiling" >> "$bench_log"
  "$build/bin/06_warp_tiling" --wmma-ceiling >> "$bench_log" 2>&1 || status=1
fi
if [ -x "$build/bin/05_tensor_core" ]; then
  "$build/bin/05_tensor_core" --error-study --csv "$out/error_study.csv" > /dev/null 2>&1 || status=1
fi

echo
echo "================ summary: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) ================"
for label in cpu gpu sanitize; do printf "tests %-9s %s\n" "$label:" "${test_line[$label]}"; done
echo
if [ -s "$csv" ]; then
  awk -F, -v size="$size" 'NR==1{next} $9!=size || $10!=size || ($8!=size && $5!="00_cpu_reference") || $6 ~ /@/ {next} {gsub(/"/,"",$1);
    pct = ($15 < 0) ? "      -" : sprintf("%6.1f%%", $15);
    printf "%-18s %-26s %5sx%sx%s %10.1f GFLOPS %s of cuBLAS  %s\n", $5, $6, $8, $9, $10, $14, pct, $17}' "$csv"
fi
echo
if [ $status -eq 0 ]; then echo "check_gpu.sh: ALL PASSED"; else echo "check_gpu.sh: FAILURES (see $out)"; fi
exit $status
