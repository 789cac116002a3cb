#!/usr/bin/env bash
# Grades the exercises on this machine's GPU (docs/instructors.md): builds them with
# -DGEMM_EXERCISES=ON, runs `ctest -L exercise` (each exercise on every test shape, then under the
# four compute-sanitizer tools; an exercise that passed is also timed against the chapter's own
# kernel at 2048^3, alone on the GPU) and prints one line per exercise:
#   passed, 0.97x the reference (2048^3: 1.234 ms vs 1.197 ms)
#   correct but slow (0.12x the reference, below the threshold 0.5x; 2048^3: ...)
#   failed: WHERE AND WHY
#   not attempted (gaps 1,2,3 still open)
# The ratio is the reference's time over the student's (1.00x: as fast). "correct but slow" is
# not counted as passed in the "N of M passed" total, but it is not "failed" either.
#
#   bash scripts/run/grade.sh                   # this working tree's NN_name/exercise.cu files
#   bash scripts/run/grade.sh submissions/      # every submissions/<student>/NN_name/exercise.cu; a
#                                           # file a student did not hand in is graded as the
#                                           # skeleton ("not attempted")
#   bash scripts/run/grade.sh --selftest        # the harness itself: every unmodified skeleton must be
#                                           # graded "not attempted", every chapter's kernel in its
#                                           # place must pass and time at about 1.00x, the slow
#                                           # solutions of tests/exercises/slow/ must be graded
#                                           # "correct but slow" (with the default threshold)
#   bash scripts/run/grade.sh --warnings LOG NN_name [DIR]
#                                           # no GPU needed: the compiler lines a grade of NN_name
#                                           # shows, read from a captured build log (DIR: the
#                                           # submissions folder, shortened out of the paths)
# Under each grade, the compiler's warnings for that exercise's own exercise.cu, and nothing from
# other targets: nvcc's and the host compiler's warnings, and what ptxas reports about its kernels,
# such as `ptxas (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized
# ...` (then one more line says what that means). A file that is not compiled again because it has
# not changed shows the warnings of its last compile.
# Environment:
#   BUILD_DIR=build-grade        the build directory, kept between runs: after the first student
#                                only the exercise.cu files are compiled again
#   EXERCISES=02_shared_tiling,...  grade only these exercises (default: every one of the build)
#   GEMM_ARCH=native             CUDA architectures (70 for a V100: needs CUDA 12, not 13)
#   GEMM_EXTRA_SHAPES=MxNxK,...  hidden shapes, on top of the tests' own
#   GEMM_EXTRA_SHAPES_FILE=FILE  hidden shapes in a file: one MxNxK per line, # comments
#   GEMM_SPEED_THRESHOLD=0.5     a correct kernel below this fraction of the reference's speed is
#                                "correct but slow" (0 to 2; 0: never)
#   GEMM_SPEED_THRESHOLD_FILE=F  per exercise: lines "02_shared_tiling 0.8", at most one
#                                "default 0.4" (not together with GEMM_SPEED_THRESHOLD), # comments
#   GEMM_SPEED_SIZE=2048         the speed is measured at SIZE^3 (256 to 8192; lower for small GPUs)
#   SANITIZE=0                   skip compute-sanitizer (much faster; a missing barrier may pass)
#   JOBS=4                       tests run in parallel (the speed runs wait for the GPU alone)
#   TIMEOUT=300                  seconds before a test is stopped (a kernel may hang)
#
# Exit status: 0 when every exercise passed (--selftest: every check held), 1 otherwise (a
# "correct but slow" exercise too), 2 for a bad command line or setting, 3 when no GPU is visible.
# The checks come in this order: the command line (2), a visible GPU (3), the two files readable
# (2), then, once the build is configured, the names in EXERCISES and the speed settings themselves
# (2; read by the tests' own code, tests/exercises/speed_grading.hpp), before anything is built or
# graded.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build-grade}
arch=${GEMM_ARCH:-native}
jobs=${JOBS:-4}
timeout=${TIMEOUT:-300}

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

# ---- The compiler's warnings for an exercise's own source (no GPU needed) ----------------------

# The lines worth showing from the output of the compile of EXERCISE's exercise.cu in build LOG:
# its block is the lines after the build step that names the exercise's object
# (NN_name/CMakeFiles/NN_name_exercise_kernels.dir/...), up to the next build step, so nothing
# from other targets gets in. Of that block: nvcc's and the host compiler's warnings, and ptxas's,
# including its "ptxas info (Cnnnn)" lines, which is how ptxas reports a potential performance loss
# such as C7515. The folders in STRIP... are cut from the paths, a mangled kernel name is
# demangled, and each line is kept once.
compiler_warnings() {  # compiler_warnings LOG EXERCISE STRIP...
  local log=$1 ex=$2 line name dir
  shift 2
  awk -v object="Building CUDA object $ex/CMakeFiles/${ex}_exercise_kernels.dir/" '
    index($0, object) { inside = 1; next }
    /^\[ *[0-9]+(\/[0-9]+|%)\] / || /^FAILED: / { inside = 0 }
    inside && (/(^|[ :])warning( #[0-9A-Za-z-]+)? ?:/ || /^ptxas[^:]*: *\(C[0-9]+\)/) &&
      !seen[$0]++' "$log" |
    while IFS= read -r line; do
      for dir in "$@"; do [ -n "$dir" ] && line=${line//"${dir%/}/"/}; done
      [[ $line =~ ^ptxas\ +(info|warning)\ *:\ * ]] && line="ptxas ${line#"${BASH_REMATCH[0]}"}"
      if [[ $line =~ \'(_Z[A-Za-z0-9_]+)\' ]] && command -v c++filt >/dev/null; then
        name=$(c++filt "${BASH_REMATCH[1]}")
        line=${line/"'${BASH_REMATCH[1]}'"/${name%%(*}}
      fi
      echo "${line:0:400}"
    done
}

# What grade.sh prints under a grade: the warnings of compiler_warnings (at most 6; the log has
# the rest), each as "compiler: ...", then one sentence for each code that needs explaining.
show_warnings() {  # show_warnings LOG_NAME < the lines of compiler_warnings
  local lines=() line
  mapfile -t lines
  [ ${#lines[@]} -eq 0 ] && return
  for line in "${lines[@]:0:6}"; do echo "compiler: $line"; done
  [ ${#lines[@]} -gt 6 ] && echo "compiler: ... $((${#lines[@]} - 6)) more in $1"
  if printf '%s\n' "${lines[@]}" | grep -q '(C7515)'; then
    echo "C7515: ptxas made each wgmma of that kernel wait for the one before it (an ordinary" \
         "instruction writes an accumulator register while they may be running): correct, but" \
         "slower; see 07_hopper/README.md#exercises, docs/answers.md#07_hopper."
  fi
}

selftest=0
submissions=""
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
  --warnings)
    if [ $# -lt 3 ] || [ $# -gt 4 ] || [ ! -r "$2" ]; then
      echo "grade.sh: --warnings needs LOG NN_name [DIR], LOG a readable build log (try --help)." >&2
      exit 2
    fi
    compiler_warnings "$2" "$3" "${4:-}" "$root" | show_warnings "$2"
    exit 0 ;;
  --selftest) selftest=1 ;;
  "") ;;
  -*) echo "grade.sh: unknown option '$1' (try --help)." >&2; exit 2 ;;
  *)
    if [ ! -d "$1" ]; then
      echo "grade.sh: '$1' is not a directory of submissions (try --help)." >&2
      exit 2
    fi
    submissions=$(cd "$1" && pwd) ;;
esac
if [ $# -gt 1 ]; then
  echo "grade.sh: one argument at most: a directory of submissions, or --selftest." >&2
  exit 2
fi
if [ $selftest = 1 ] && [ -n "${EXERCISES:-}" ]; then
  echo "   (--selftest checks the harness on every exercise, so it ignores EXERCISES)"
fi
if [ $selftest = 1 ] && [ -n "${GEMM_SPEED_THRESHOLD:-}${GEMM_SPEED_THRESHOLD_FILE:-}" ]; then
  echo "   (--selftest checks the harness, so it ignores GEMM_SPEED_THRESHOLD and" \
       "GEMM_SPEED_THRESHOLD_FILE: speed is judged with the default threshold)"
  unset GEMM_SPEED_THRESHOLD GEMM_SPEED_THRESHOLD_FILE
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "grade.sh: no NVIDIA GPU is visible on this machine (nvidia-smi -L failed), so the" \
       "exercises cannot be graded here." >&2
  exit 3
fi
# ctest runs the tests in the build tree: a relative path to hidden shapes or to thresholds must
# survive that.
for var in GEMM_EXTRA_SHAPES_FILE GEMM_SPEED_THRESHOLD_FILE; do
  file=${!var:-}
  [ -n "$file" ] || continue
  if [ ! -f "$file" ] || [ ! -r "$file" ]; then
    echo "grade.sh: cannot read $var '$file'." >&2
    exit 2
  fi
  printf -v "$var" '%s/%s' "$(cd "$(dirname "$file")" && pwd)" "$(basename "$file")"
  export "${var?}"  # the variable that $var names
done

mkdir -p "$build/grading"
summary="$build/grading/summary.txt"
: > "$summary"
generator=()
command -v ninja >/dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)

# configure LOG [-DVAR=VALUE...]
configure() {
  local log=$1
  shift
  if ! cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_CUDA_ARCHITECTURES="$arch" -DGEMM_EXERCISES=ON \
       -DGEMM_EXERCISE_TIMEOUT="$timeout" "$@" > "$log" 2>&1; then
    tail -n 20 "$log"
    echo "grade.sh: configuring $build failed (log: $log)." >&2
    exit 1
  fi
  generator=()
  mapfile -t all_exercises < <(grep -E '^[0-9]{2}_' "$build/grades/exercises.txt" 2>/dev/null)
  if [ ${#all_exercises[@]} -eq 0 ]; then
    echo "grade.sh: this build has no exercises (no NN_name/exercise.cu, or Catch2 is not" \
         "installed: see README.md, Requirements)." >&2
    exit 1
  fi
  exercises=("${all_exercises[@]}")
  [ $selftest = 1 ] || [ -z "${EXERCISES:-}" ] && return
  local want ex
  for want in ${EXERCISES//,/ }; do
    if ! printf '%s\n' "${all_exercises[@]}" | grep -qxF -- "$want"; then
      echo "grade.sh: EXERCISES names '$want', which is not an exercise of this build" \
           "(${all_exercises[*]})." >&2
      exit 2
    fi
  done
  exercises=()  # in the build's order
  for ex in "${all_exercises[@]}"; do
    [[ ",${EXERCISES// /,}," == *",$ex,"* ]] && exercises+=("$ex")
  done
}

# The test tools, and scripts/run/grade.sh's helper for the speed part of a grade, which checks the
# speed settings with the same code the tests read them with (tests/exercises/speed_grading.hpp):
# so bad settings are found once the build is configured, before anything is built or graded.
speed_tool="$build/tests/exercise_speed_grade"
tools_ready=0
build_tools() {  # build_tools LOG
  [ "$tools_ready" = 1 ] && return
  if ! cmake --build "$build" --target expect_exit exercise_speed_grade > "$1" 2>&1; then
    echo "grade.sh: building the test tools failed (log: $1)." >&2
    exit 1
  fi
  local why
  if ! why=$("$speed_tool" --check "${all_exercises[@]}" 2>&1); then
    echo "grade.sh: $why" >&2
    exit 2
  fi
  tools_ready=1
}

# ctest's per-test result lines, as "name<TAB>status" (Passed, Failed, Skipped, Timeout,
# Not Run, Exception: SegFault, ...).
declare -A status
read_statuses() {
  status=()
  local name st
  local result='([A-Z][A-Za-z]*( Run)?(: [A-Za-z]+)?)'  # "Passed", "Not Run", "Exception: X"
  while IFS=$'\t' read -r name st; do status[$name]=$st; done < <(
    sed -nE "s/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: +([^ ]+) [ .]*(\*\*\*)?$result +[0-9.]+ sec.*\$/\1\t\3/p" \
        "$1")
}

# The compute-sanitizer findings of exercise $1, as "memcheck reported errors at 67x45x39, ...".
sanitizer_findings() {
  local bad="" t tool
  for t in $(printf '%s\n' "${!status[@]}" | sort); do
    [[ $t =~ ^${1}_exercise_(memcheck|racecheck|synccheck|initcheck)_(.*)$ ]] || continue
    tool=${BASH_REMATCH[1]}
    case "${status[$t]}" in
      Passed | Skipped) ;;
      Timeout) bad+="${bad:+, }$tool timed out at ${BASH_REMATCH[2]}" ;;
      "Not Run") bad+="${bad:+, }$tool could not start at ${BASH_REMATCH[2]} (see the ctest log)" ;;
      *) bad+="${bad:+, }$tool reported errors at ${BASH_REMATCH[2]}" ;;
    esac
  done
  echo "$bad"
}

# The grade of exercise $1, which passed its grading test ($2: its grade line), with its speed:
# the record of its speed test, made a line by the helper (with the threshold for $1).
with_speed() {
  local ex=$1 st=${status[${1}_exercise_speed]:-missing} line
  line=$("$speed_tool" "$ex" "$2" "$build/grades/${ex}_exercise_speed.txt")
  # The record says "crashed or hung" while the speed run is under way; ctest knows which.
  if [ "$st" = Timeout ]; then
    [[ $line == *"crashed or hung"* ]] || line="failed: crashed or hung in the speed run"
    line=${line/crashed or hung/timed out after $timeout s}
  fi
  echo "${line/crashed or hung/crashed}"
}

# The grade line of exercise $1 from its grading test, its grade file, its sanitizer tests and its
# speed test.
verdict() {
  local ex=$1 st=${status[${1}_exercise]:-missing} line=""
  [ -f "$build/grades/${ex}_exercise.txt" ] && line=$(head -n 1 "$build/grades/${ex}_exercise.txt")
  local shape="" bad
  [[ $line == "failed: crashed or hung at "* ]] && shape=${line#failed: crashed or hung at }
  bad=$(sanitizer_findings "$ex")
  case "$st" in
    Passed)
      if [ -n "$bad" ]; then
        echo "failed: compute-sanitizer: $bad"
      else
        with_speed "$ex" "${line:-passed}"
      fi ;;
    Skipped) echo "skipped: this GPU cannot run it (see $build/grading logs)" ;;
    Timeout) echo "failed: timed out after $timeout s${shape:+ at $shape}" ;;
    missing) echo "failed: the grading test did not run" ;;
    *)
      # A wrong result first; what the sanitizers saw often says why (a race, an unguarded edge).
      local also=""
      [ -n "$bad" ] && also="; compute-sanitizer: $bad"
      if [ -n "$shape" ]; then
        echo "failed: crashed at $shape ($st)$also"
      elif [ -n "$line" ]; then
        echo "$line$also"
      else
        echo "failed: the test did not finish ($st)$also"
      fi ;;
  esac
}

# grade WHO DIR: configure for DIR's exercise.cu files ("" = the working tree), build each
# exercise on its own (a compile error costs that exercise only), run the tests, print the lines.
total=0
passed=0
slow=0
warned_sanitizer=0
grade() {
  local who=$1 dir=$2 logs="$build/grading/${1:-working_tree}"
  mkdir -p "$logs"
  configure "$logs/configure.log" -DGEMM_EXERCISE_SELFTEST=OFF -DGEMM_EXERCISE_DIR="$dir"
  local ex built=() regex
  declare -A compile_error=()
  # The tests run every program through tests/tools/expect_exit (skips without a GPU or a tool).
  build_tools "$logs/build_tools.log"
  declare -A warnings=()
  mkdir -p "$build/grading/warnings"
  for ex in "${exercises[@]}"; do
    # The compiler's warnings for this exercise.cu come from its compile: a file compiled before
    # with the same content and architectures keeps the warnings saved then; any other is compiled
    # again (its object deleted), so that its warnings are in this build's log.
    local src="$root/$ex/exercise.cu" saved="$build/grading/warnings/$ex.txt" key
    [ -n "$dir" ] && [ -f "$dir/$ex/exercise.cu" ] && src="$dir/$ex/exercise.cu"
    key="$(sha256sum < "$src" | cut -c 1-64) $arch"
    [ "$(head -n 1 "$saved" 2>/dev/null)" = "$key" ] ||
      find "$build/$ex/CMakeFiles/${ex}_exercise_kernels.dir" -name '*.o' -delete 2>/dev/null
    if cmake --build "$build" --target "${ex}_exercise_tests" "${ex}_exercise" \
         "${ex}_exercise_speed" > "$logs/build_$ex.log" 2>&1; then
      built+=("$ex")
    else
      compile_error[$ex]=$(grep -m 1 -E 'error|undefined reference' "$logs/build_$ex.log" |
                           sed -E "s#${dir:-$root}/##g" | cut -c 1-160)
    fi
    if grep -qF "Building CUDA object $ex/CMakeFiles/${ex}_exercise_kernels.dir/" \
         "$logs/build_$ex.log"; then
      { echo "$key"; compiler_warnings "$logs/build_$ex.log" "$ex" "$dir" "$root"; } > "$saved"
    fi
    warnings[$ex]=$(tail -n +2 "$saved" 2>/dev/null | show_warnings "$logs/build_$ex.log")
  done
  rm -f "$build"/grades/*_exercise.txt "$build"/grades/*_exercise_speed.txt
  status=()
  if [ ${#built[@]} -gt 0 ]; then
    regex="^($(IFS='|'; echo "${built[*]}"))_exercise"
    local skip_sanitizer=()
    [ "${SANITIZE:-1}" = 0 ] && skip_sanitizer=(-LE exercise_sanitize)
    ctest --test-dir "$build" -L '^exercise$' "${skip_sanitizer[@]}" -R "$regex" -j "$jobs" \
          --output-on-failure > "$logs/ctest.log" 2>&1
    read_statuses "$logs/ctest.log"
    cp "$build"/grades/*_exercise.txt "$build"/grades/*_exercise_speed.txt "$logs/" 2>/dev/null
    if [ "$warned_sanitizer" = 0 ] &&
       grep -q '^GEMM_COMPUTE_SANITIZER:FILEPATH=.*NOTFOUND' "$build/CMakeCache.txt"; then
      echo "   (compute-sanitizer was not found: the exercises are graded without it)"
      warned_sanitizer=1
    fi
  fi
  for ex in "${exercises[@]}"; do
    local line
    if [ -n "${compile_error[$ex]+x}" ]; then
      line="failed: does not compile: ${compile_error[$ex]:-see $logs/build_$ex.log}"
    else
      line=$(verdict "$ex")
    fi
    total=$((total + 1))
    case "$line" in
      passed*) passed=$((passed + 1)) ;;
      "correct but slow"*) slow=$((slow + 1)) ;;
    esac
    local indent=19 note
    if [ -n "$who" ]; then
      printf "%-16s %-18s %s\n" "$who" "$ex" "$line" | tee -a "$summary"
      indent=36
    else
      printf "%-18s %s\n" "$ex" "$line" | tee -a "$summary"
    fi
    # The compiler's warnings for this exercise.cu, under its grade (a compile error is the grade).
    [ -n "${compile_error[$ex]+x}" ] && continue
    while IFS= read -r note; do
      [ -n "$note" ] && printf "%*s%s\n" "$indent" "" "$note" | tee -a "$summary"
    done <<< "${warnings[$ex]}"
  done
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)

if [ $selftest = 1 ]; then
  logs="$build/grading/selftest"
  mkdir -p "$logs"
  configure "$logs/configure.log" -DGEMM_EXERCISE_SELFTEST=ON -DGEMM_EXERCISE_DIR=
  build_tools "$logs/build_tools.log"
  echo "== selftest on $gpu: building every exercise, solution and test program"
  if ! cmake --build "$build" --target exercises > "$logs/build.log" 2>&1; then
    grep -m 5 -E 'error|undefined reference' "$logs/build.log"
    echo "grade.sh: the exercises do not build (log: $logs/build.log)." >&2
    exit 1
  fi
  rm -f "$build"/grades/*_skeleton.txt "$build"/grades/*_solution.txt "$build"/grades/*_slow.txt \
        "$build"/grades/*_speed.txt
  ctest --test-dir "$build" -L '^exercise_selftest$' -j "$jobs" --output-on-failure \
        > "$logs/ctest.log" 2>&1
  read_statuses "$logs/ctest.log"
  # One line per exercise and side: what the grader said, and whether that is what it must say.
  check() {  # check EXERCISE SIDE TEST
    local st=${status[$3]:-missing} line="(no grade written)" ok="ok"
    [ -f "$build/grades/${1}_$2.txt" ] && line=$(head -n 1 "$build/grades/${1}_$2.txt")
    # Skipped: an exercise this GPU cannot run (07's needs sm_90a), which says so and exits 77.
    case "$st" in
      Passed) ;;
      Skipped) line="skipped: this GPU cannot run it" ;;
      *) ok="WRONG ($st)" ;;
    esac
    [ "$st" = Timeout ] && line="(timed out after $timeout s)"
    total=$((total + 1))
    [ "$ok" = ok ] && passed=$((passed + 1))
    printf "%-18s %-9s %-60s %s\n" "$1" "$2:" "$line" "$ok" | tee -a "$summary"
  }
  # The speed grade of a self-test kernel, with the default threshold: the helper says whether it
  # is what it must be (EXPECT: reference, about 1.00x and not slow; slow: "correct but slow").
  speed_check() {  # speed_check EXERCISE SIDE EXPECT KERNEL GRADING_TEST SPEED_TEST
    local st=${status[$5]:-missing} speed_st=${status[$6]:-missing} grade="(no grade written)"
    local out line ok="ok"
    [ -f "$build/grades/${1}_$4.txt" ] && grade=$(head -n 1 "$build/grades/${1}_$4.txt")
    out=$("$speed_tool" --expect "$3" "$1" "$grade" "$build/grades/${1}_${4}_speed.txt")
    local rc=$?
    line=${out%%$'\n'*}
    if [ "$st" = Skipped ] && [ "$speed_st" = Skipped ]; then
      line="skipped: this GPU cannot run it"
    elif [ "$st" != Passed ]; then
      ok="WRONG (grading test: $st)"
    elif [ "$speed_st" != Passed ]; then
      ok="WRONG (speed test: $speed_st)"
      [ "$speed_st" = Timeout ] && line="(timed out after $timeout s)"
    elif [ $rc -ne 0 ]; then
      ok="WRONG (${out#*$'\n'})"
    fi
    total=$((total + 1))
    [ "$ok" = ok ] && passed=$((passed + 1))
    printf "%-18s %-9s %-60s %s\n" "$1" "$2:" "$line" "$ok" | tee -a "$summary"
  }
  echo
  echo "================ grade.sh --selftest: $gpu ================" | tee -a "$summary"
  for ex in "${exercises[@]}"; do
    check "$ex" skeleton "${ex}_exercise_selftest_skeleton"
    check "$ex" solution "${ex}_exercise_selftest_solution"
    speed_check "$ex" speed reference solution "${ex}_exercise_selftest_solution" \
                "${ex}_exercise_selftest_speed"
    st=${status[${ex}_exercise_selftest_memcheck]:-missing}
    total=$((total + 1))
    case "$st" in
      Passed) passed=$((passed + 1)); memcheck="clean" ;;
      Skipped) passed=$((passed + 1))
               memcheck="skipped (no compute-sanitizer, or this GPU cannot run it)" ;;
      *) memcheck="WRONG ($st)" ;;
    esac
    printf "%-18s %-9s %s\n" "$ex" "memcheck:" "skeleton at 67x45x39: $memcheck" | tee -a "$summary"
    # A deliberately slow but correct solution, where the tests keep one.
    if [ -f "$root/tests/exercises/slow/$ex.cu" ]; then
      speed_check "$ex" slow slow slow "${ex}_exercise_selftest_slow" \
                  "${ex}_exercise_selftest_slow_speed"
    fi
  done
  others=0
  for t in "${!status[@]}"; do
    [[ $t =~ _selftest_(skeleton|solution|memcheck|speed|slow|slow_speed)$ ]] && continue
    total=$((total + 1))
    others=$((others + 1))
    if [ "${status[$t]}" = Passed ]; then passed=$((passed + 1)); else
      printf "%-28s %s\n" "$t" "WRONG (${status[$t]})" | tee -a "$summary"; fi
  done
  echo "no GPU needed: $others checks (every exercise target compiles, each program lists its" \
       "kernel, the grade lines read right, bad speed settings are refused, the compiler lines" \
       "under a grade are its own file's)" | tee -a "$summary"
  echo "grade.sh --selftest: $passed of $total checks held (logs: $logs)" | tee -a "$summary"
  [ "$passed" -eq "$total" ] && [ "$total" -gt 0 ]
  exit $?
fi

if [ -z "$submissions" ]; then
  echo "== grading the exercises of $root on $gpu"
  grade "" ""
else
  # Either a class (one folder per student) or one student's folder itself.
  students=()
  if compgen -G "$submissions/[0-9][0-9]_*/exercise.cu" > /dev/null; then
    students=("$submissions")
  else
    for d in "$submissions"/*/; do students+=("${d%/}"); done
  fi
  if [ ${#students[@]} -eq 0 ]; then
    echo "grade.sh: $submissions holds no submissions (expected <student>/NN_name/exercise.cu)." >&2
    exit 2
  fi
  echo "== grading ${#students[@]} submission(s) from $submissions on $gpu"
  for s in "${students[@]}"; do
    if ! compgen -G "$s/[0-9][0-9]_*/exercise.cu" > /dev/null; then
      echo "   $(basename "$s"): no NN_name/exercise.cu inside: every exercise is the skeleton"
    fi
    grade "$(basename "$s")" "$s"
  done
fi
counted=""
[ "$slow" -gt 0 ] && counted="; $slow more correct but slow, not counted as passed"
echo "grade.sh: $passed of $total passed$counted (summary: $summary; logs: $build/grading/)"
[ "$passed" -eq "$total" ]
