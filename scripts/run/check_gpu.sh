#!/usr/bin/env bash
# One command that proves this repository works on the GPU of this machine, and regenerates every
# number the docs cite:
#   build     configure (the GPU's own architecture, exercises on) and build everything
#   tests     ctest -L cpu, gpu (awkward shapes, two streams, unaligned pointers, CUDA graphs, eight
#             threads), sanitize (the four compute-sanitizer tools), huge (a matrix of just under
#             2^31 elements: about 33 GiB of GPU memory, skipped with the reason on a smaller GPU),
#             and the exercises' self-test, scripts/run/grade.sh --selftest (unmodified skeletons must be graded "not
#             attempted", the chapters' kernels in their place must pass at about 1.0x of
#             themselves, the slow solutions must be graded "correct but slow")
#   bench     scripts/run/bench_all.sh: the sweep (every variant, 256..8192, awkward and skinny shapes),
#             machine_probe, the fp16 error study, the tensor-core ceiling, and the figures
#   profile   scripts/measure/profile.py (Nsight Compute, every variant at 4096) and scripts/measure/sass_stats.py
# and prints a short summary table last.
#
#   bash scripts/run/check_gpu.sh                        # everything (about 20 minutes on an H100/H200)
#   STAGES="build tests" bash scripts/run/check_gpu.sh   # some stages (a later stage reuses the build)
#   LABELS="cpu gpu" SELFTEST=0 STAGES=tests ...      # some test labels, without the exercises' self-test
#   GEMM_ARCH=90 bash scripts/run/check_gpu.sh           # another architecture list (default: native)
#   OUT_DIR=/tmp/check bash scripts/run/check_gpu.sh     # where logs and CSVs go (default build-gpu/check)
#   GEMM_COMMIT=abc1234 bash scripts/run/check_gpu.sh    # the commit every CSV row names, where the tree
#                                                      # is a copy whose .git is not its own
#
# All stages take about 20 minutes. Where one command may run only 10 (a shared GPU machine), run
# them as three commands on the same build directory; each prints the summary of its stages:
#   STAGES="build tests profile" bash scripts/run/check_gpu.sh
#   STAGES=bench EXTRAS=0 bash scripts/run/check_gpu.sh   # the GPU sweep (scripts/run/bench_all.sh)
#   STAGES=bench SWEEP=0 bash scripts/run/check_gpu.sh    # the rest of bench_all.sh, into the same CSVs
#
# Then, to refresh the docs from this run (docs/benchmarking.md, section 6):
#   cp build-gpu/check/{results,machine,resources,error_study,profile,sass,tile_sweep_04,energy}.csv \
#      docs/figures/
#   python3 scripts/docs/plot.py docs/figures/results.csv docs/figures
#   python3 scripts/docs/results_table.py docs/figures/results.csv --update
#   python3 scripts/docs/paste_program_output.py build-gpu/check/bench.log "$(git rev-parse --short=10 HEAD)"
#
# Exit status: 0 when every stage passed, 1 otherwise, 3 without a GPU.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
arch=${GEMM_ARCH:-native}
stages=" ${STAGES:-build tests bench profile} "
labels=${LABELS:-cpu gpu sanitize huge}
out=${OUT_DIR:-$build/check}
mkdir -p "$out"
status=0
has() { [[ "$stages" == *" $1 "* ]]; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "check_gpu.sh: no NVIDIA GPU is visible on this machine (nvidia-smi -L failed)." >&2
  exit 3
fi

if has build; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  echo "== configure and build ($build, CUDA architectures: $arch)"
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="$arch" -DGEMM_EXERCISES=ON -DGEMM_EXERCISE_SELFTEST=ON \
        > "$out/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" >> "$out/build.log" 2>&1
  if [ $? -ne 0 ]; then
    tail -n 40 "$out/build.log"
    echo "check_gpu.sh: the build failed (full log: $out/build.log)." >&2
    exit 1
  fi
  grep -E "warning" "$out/build.log" | sort -u | head -n 20
fi

declare -A test_line
if has tests; then
  rm -f "$out/tests.log"
  for label in $labels; do
    echo "== ctest -L $label"
    verbose=()  # gpu and huge: the log keeps each test's own record (every variant's graphs,
    # every variant at every huge shape), not only the failures'
    [ "$label" = huge ] || [ "$label" = gpu ] && verbose=(-V)
    ctest --test-dir "$build" -L "^$label\$" --output-on-failure -j 4 "${verbose[@]}" \
      > "$out/ctest_$label.log" 2>&1 || status=1
    [ "$label" = huge ] && cp "$out/ctest_$label.log" "$out/huge.log"
    line=$(grep -E "tests passed|tests failed" "$out/ctest_$label.log" | tail -n 1)
    skipped=$(grep -c '\*\*\*Skipped' "$out/ctest_$label.log")
    test_line[$label]="${line:-no tests ran}; $skipped skipped"
    cat "$out/ctest_$label.log" >> "$out/tests.log"
    rm -f "$out/ctest_$label.log"
    echo "   ${test_line[$label]}"
  done
  # The exercises: every unmodified skeleton must be graded "not attempted", every chapter's own
  # kernel in its place must pass and time at about 1.0x against itself, and the deliberately slow
  # solutions (tests/exercises/slow/) must be graded "correct but slow" (ctest -L
  # exercise_selftest, with one summary line each).
  if [ "${SELFTEST:-1}" = 1 ]; then
    echo "== exercises: grade.sh --selftest"
    BUILD_DIR="$build" GEMM_ARCH="$arch" bash "$root/scripts/run/grade.sh" --selftest \
      > "$out/grade_selftest.log" 2>&1 || status=1
    tail -n 1 "$out/grade_selftest.log"
  fi
fi

if has bench; then
  echo "== benchmark sweep (scripts/run/bench_all.sh -> $out)"
  bash "$root/scripts/run/bench_all.sh" "$build" "$out" 2>&1 | tee "$out/bench_progress.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if has profile; then
  echo "== Nsight Compute lab sheet (scripts/measure/profile.py -> $out/profile.csv)"
  if command -v ncu >/dev/null; then
    python3 "$root/scripts/measure/profile.py" "$build" "$out/profile.csv" > "$out/profile.log" 2>&1 || status=1
    tail -n 3 "$out/profile.log"
  else
    echo "   ncu (Nsight Compute) is not on PATH: skipped"
  fi
  if command -v cuobjdump >/dev/null; then
    sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')
    extra=()
    [ "$sm" = 90 ] && extra=(--arch sm_90a)  # chapter 07's kernels are sm_90a code
    python3 "$root/scripts/measure/sass_stats.py" --arch "sm_$sm" "${extra[@]}" --csv "$out/sass.csv" \
      $(ls "$build"/bin/0[1-9]_* | grep -v _exercise) > "$out/sass.log" 2>&1 || status=1
    echo "   scripts/measure/sass_stats.py -> $out/sass.csv"
  fi
fi

echo
echo "================ summary: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) ================"
if has tests; then
  for label in $labels; do
    printf "tests %-10s %s\n" "$label:" "${test_line[$label]}"
  done
  if [ "${SELFTEST:-1}" = 1 ]; then
    echo
    sed -n '/^================ grade.sh --selftest/,$p' "$out/grade_selftest.log"
  fi
fi
csv="$out/results.csv"
if has bench && [ -s "$csv" ]; then
  echo
  echo "headline of each chapter at 4096^3 (first variant the program runs):"
  awk -F, 'NR==1{next} $8==4096 && $9==4096 && $10==4096 && $6 !~ /@/ && !seen[$5 $7]++ {
    pct = ($15 < 0) ? "      -" : sprintf("%6.1f%%", $15);
    printf "  %-18s %-26s %10.1f GFLOPS %s of cuBLAS  %s\n", $5, $6, $14, pct, $17}' "$csv"
  grep -h "bench_all.sh:" "$out/bench_progress.log" 2>/dev/null | tail -n 1
  echo
  echo "06_warp_tiling and 07_hopper, every variant: % of cuBLAS fp16 at four sizes (and what ran"
  echo "instead, if anything)"
  python3 - "$csv" <<'PY'
import csv, sys
sizes = ["4096x4096x4096", "8192x8192x8192", "4093x4093x4093", "1024x1024x1024"]
pct, notes, order = {}, {}, []
for r in csv.DictReader(open(sys.argv[1])):
    key = f"{r['m']}x{r['n']}x{r['k']}"
    if r["chapter"] not in ("06_warp_tiling", "07_hopper") or "@" in r["variant"] or key not in sizes:
        continue
    v = (r["chapter"][:2], r["variant"])
    if v not in order:
        order.append(v)
    pct[v, key] = float(r["pct_of_cublas"])
    if r.get("note"):
        notes.setdefault(v, []).append(f"{key.split('x')[0]}^3: {r['note']}")
print("  %-29s %9s %9s %9s %9s" % ("variant", "4096^3", "8192^3", "4093^3", "1024^3"))
for v in order:
    cells = "".join("%9.1f%%" % pct[v, s] if (v, s) in pct else "%10s" % "-" for s in sizes)
    print(f"  {v[0]} {v[1]:<26}{cells}" + ("  (" + "; ".join(notes[v]) + ")" if v in notes else ""))
PY
fi
if has bench && [ -s "$csv" ]; then
  echo
  echo "fast at every size (docs/tile_size_tradeoffs.md, Waves): % of cuBLAS, and what the launcher chose"
  python3 - "$csv" "$root/scripts/docs" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from results_table import SHAPE_AWARE, load, waves_table
rows = load(sys.argv[1])
for chapter in SHAPE_AWARE:
    print(f"  {chapter}:")
    lines = waves_table(rows, chapter).splitlines()
    lines = lines[2:] if lines[0].startswith("Measured") else lines  # the title names the GPU
    print("".join("    " + line + "\n" for line in lines))
PY
fi
if has tests; then
  # One line per test whose name matches $1, from the ctest logs: "  name Passed  1.23 sec".
  test_results() {
    grep -E "$1 .*(Passed|Failed|Skipped|\*\*\*)" "$out/tests.log" |
      sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /  /; s/ +\.+ */ /'
  }
  echo
  echo "every variant on two non-blocking streams at once (ctest gpu_tests_streams_*), with A, B or C"
  echo "one element past an aligned address (gpu_tests_unaligned_*), captured into a CUDA graph and"
  echo "replayed (gpu_tests_graphs_*), from eight threads at once (gpu_tests_threads_*), and with a"
  echo "matrix of just under 2^31 elements (gpu_tests_huge):"
  test_results "gpu_tests_(streams|unaligned|graphs|threads|huge)[0-9a-z_]*"
  echo
  gpus=$(nvidia-smi -L | grep -c '^GPU')
  echo "several GPUs ($gpus here; ctest -L multi_gpu, skipped on one): every variant on GPU 0, then on"
  echo "every other (gpu_tests_devices_*), from one host thread per GPU at once (gpu_tests_device_threads_*),"
  echo "and each program with --device 1 (*_on_device_1):"
  test_results "(gpu_tests_device(s|_threads)_[0-9a-z_]*|[0-9a-z_]*_on_device_1)"
fi
if has profile && [ -s "$out/profile.csv" ]; then
  echo
  python3 - "$out/profile.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for chapter in ("06_warp_tiling", "07_hopper"):
    for r in [r for r in rows if r["chapter"] == chapter][:1]:
        print(f"Nsight Compute, {chapter[:2]} headline {r['variant']} at {r['size']}^3: tensor pipe "
              f"{r['tensor_pipe_pct']}% busy, {float(r['duration_ms']):.3f} ms")
PY
fi
echo
if [ $status -eq 0 ]; then echo "check_gpu.sh: ALL PASSED"; else echo "check_gpu.sh: FAILURES (see $out)"; fi
exit $status
