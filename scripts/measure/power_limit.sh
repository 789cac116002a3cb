#!/usr/bin/env bash
# Under the power limit, how a kernel is timed decides its % of cuBLAS (docs/notes/07_hopper.md,
# "Timing under the power limit"). This script measures every way the programs can time, on the
# current GPU (GPU 0, or the first that CUDA_VISIBLE_DEVICES shows), into CSVs that the notes cite:
#
#   bash scripts/measure/power_limit.sh BUILD_DIR OUT_DIR [ways] [steps]    (default: both)
#
#   ways   07's headline against cuBLAS at 4096^3 and 8192^3, 3 processes per way (seeds 1, 2, 3:
#          each seed's inputs in every way): in turns (the default), in turns without the L2
#          flush (--no-flush), alone after a warm-up of 2 s or more (--timing alone; 10000 runs
#          at 4096^3, 1500 at 8192^3), the same with cuBLAS last (--cublas-last), alone without
#          the flush in both orders; and the energy table (--energy: back to back, no flush,
#          1 s to settle and 2 s measured) after the turns (cuBLAS first) and after the alone
#          runs with cuBLAS last.                        -> ways.csv, ways_energy.csv (~5 min)
#   steps  every variant of 07, and 04's headline against SGEMM, at 4096^3 and 8192^3: in turns,
#          alone after a long warm-up (cuBLAS first), and energy per GEMM (back to back, cuBLAS
#          first), 2 processes per mode (seeds 1, 2); then the same three modes again with only the
#          two headlines (--variant), 2 processes per mode. PASSES=2 runs only the second pass.
#                                                         -> steps.csv, steps_energy.csv (~9 min)
#
# BUILD_DIR holds bin/07_hopper and bin/04_2d_tiling (cmake --build BUILD_DIR --target 07_hopper
# 04_2d_tiling). Each CSV is the programs' own (--csv, --energy-csv) with two columns first: `pass`
# (steps: 1 every variant, 2 the headlines; ways: $PASS, default 1, to tell runs appended to one
# CSV apart) and `seed`; the `timing` column names the way
# (turns, turns-no-flush, alone, alone-cublas-last, ...), the energy CSV's `order` column which
# kernel ran first. No verification (--no-verify): the tests verify; this only times.
# The notes' figures (docs/figures/h100/power_limit/): H100 80GB HBM3s (700 W); ways: two runs on
# two machines, commit 8529dd3 (pass 1; its energy CSV predates the `order` column, filled in from
# the commands above) and 305e7f9 (PASS=2); steps: commit 5edec10. An H200's (docs/figures/
# power_limit/): PASSES=2, steps, programs built at 438a7e0 (PASSES= itself committed in 76c20a7).
set -u
if [ $# -lt 2 ]; then
  echo "usage: bash scripts/measure/power_limit.sh BUILD_DIR OUT_DIR [ways] [steps]" >&2
  exit 2
fi
build=$1 out=$2; shift 2
parts=" ${*:-ways steps} "
for p in 07_hopper 04_2d_tiling; do
  if [ ! -x "$build/bin/$p" ]; then
    echo "power_limit.sh: $build/bin/$p is missing; build it first (cmake --build $build --target $p)." >&2
    exit 2
  fi
done
mkdir -p "$out"
t0=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run PASS SEED WHAT PROGRAM ARGS...: one process; WHAT is `time` (its timing rows appended to
# $out/$set.csv), `both` (and its energy rows to $out/${set}_energy.csv) or `energy` (the energy
# rows only: a process whose table is timed only to size the energy batches); each row with the
# pass and the seed first.
run() {
  local pass=$1 seed=$2 what=$3 program=$4
  shift 4
  local t=(--csv "$tmp/t.csv") e=(--energy-csv "$tmp/e.csv")
  [ "$what" = time ] && e=()
  [ "$what" = energy ] && t=()
  if ! "$build/bin/$program" --no-verify --seed "$seed" "${t[@]}" "${e[@]}" "$@" \
      > "$tmp/log" 2>&1; then
    echo "power_limit.sh: $program $* failed:"
    tail -3 "$tmp/log"
  fi
  for kind in t e; do
    local dst=$out/$set.csv
    [ $kind = e ] && dst=$out/${set}_energy.csv
    [ -s "$tmp/$kind.csv" ] || continue
    [ -s "$dst" ] || head -1 "$tmp/$kind.csv" | sed 's/^/pass,seed,/' > "$dst"
    tail -n +2 "$tmp/$kind.csv" | sed "s/^/$pass,$seed,/" >> "$dst"
    rm -f "$tmp/$kind.csv"
  done
}
warmup() { [ "$1" = 4096 ] && echo 10000 || echo 1500; }  # >= 2 s of 07's headline on an H100
warmup04() { [ "$1" = 4096 ] && echo 800 || echo 100; }   # >= 2 s of 04's headline

if [[ "$parts" == *" ways "* ]]; then
  set=ways
  pass=${PASS:-1}
  for seed in 1 2 3; do
    for s in 4096 8192; do
      w=$(warmup $s)
      v=(--size $s --variant wgmma_persistent)
      run $pass $seed both 07_hopper "${v[@]}"                           # turns, then energy
      run $pass $seed time 07_hopper "${v[@]}" --no-flush
      run $pass $seed time 07_hopper "${v[@]}" --timing alone --warmup $w
      run $pass $seed both 07_hopper "${v[@]}" --timing alone --warmup $w --cublas-last  # and energy
      run $pass $seed time 07_hopper "${v[@]}" --timing alone --warmup $w --no-flush
      run $pass $seed time 07_hopper "${v[@]}" --timing alone --warmup $w --no-flush --cublas-last
    done
    echo "ways, seed $seed: $(( $(date +%s) - t0 )) s"
  done
fi

if [[ "$parts" == *" steps "* ]]; then
  set=steps
  for pass in ${PASSES:-1 2}; do
    only07=()
    [ $pass = 2 ] && only07=(--variant wgmma_persistent)
    for seed in 1 2; do
      for s in 4096 8192; do
        w=$(warmup $s) w4=$(warmup04 $s)
        v04=(--size $s --variant tiling_2d_shape_aware)
        run $pass $seed time 07_hopper --size $s "${only07[@]}"
        run $pass $seed time 07_hopper --size $s "${only07[@]}" --timing alone --warmup $w
        run $pass $seed energy 07_hopper --size $s "${only07[@]}" --iters 1 --warmup 0  # energy
        run $pass $seed time 04_2d_tiling "${v04[@]}"
        run $pass $seed time 04_2d_tiling "${v04[@]}" --timing alone --warmup $w4
        run $pass $seed energy 04_2d_tiling "${v04[@]}" --iters 1 --warmup 0
      done
      echo "steps, pass $pass, seed $seed: $(( $(date +%s) - t0 )) s"
    done
  done
fi
echo "power_limit.sh: CSVs in $out ($(( $(date +%s) - t0 )) s)"
