# gemm_add_exercise: the exercise of one GPU chapter (GitHub issue 6; docs/instructors.md).
# Included by the top-level CMakeLists.txt, which defines the options GEMM_EXERCISES,
# GEMM_EXERCISE_SELFTEST, GEMM_EXERCISE_DIR and GEMM_EXERCISE_TIMEOUT. One call per chapter:
#
#   gemm_add_exercise(02_shared_tiling NAMESPACE shared_tiling
#                     SOLUTION gemm::shared_tiling::launch_tile_32 PRECISION f32)
#
# does nothing unless GEMM_EXERCISES is ON and the chapter has an exercise.cu (a skeleton: one of
# the chapter's kernels with its key lines replaced by EXERCISE_GAP(n) markers; SOLUTION is the
# kernel it is timed against, not always the same one). Otherwise it
# makes
#   <name>_exercise_kernels   the skeleton, or GEMM_EXERCISE_DIR/<name>/exercise.cu when that exists
#                             (a student's submission; the chapter's skeleton stays the reference
#                             for which gaps exist);
#   <name>_exercise           build/bin/<name>_exercise: the chapter's runner on that kernel, plus
#                             a line saying which gaps are still open (exercise_main.cu);
#   <name>_solution_kernels   the reference solution: the chapter's own SOLUTION launcher, exported
#                             like an exercise from a generated file (GEMM_EXERCISE_SOLUTION);
#   ctest entries             the four compute-sanitizer tools on the exercise program at two small
#                             shapes (labels exercise, exercise_sanitize and the chapter's name);
#                             with GEMM_EXERCISE_SELFTEST, also a memcheck run of the skeleton and
#                             a --list run (label exercise_selftest).
# The grading tests proper (test_gpu.cpp on every shape) and the speed tests (the exercise against
# its reference solution) are registered by tests/exercises/, from the list this function collects
# in the global property GEMM_EXERCISE_LIST.
set_property(GLOBAL PROPERTY GEMM_EXERCISE_LIST "")
if(GEMM_EXERCISES)
  # `cmake --build build --target exercises`: every exercise, solution, grading and speed program.
  add_custom_target(exercises)
endif()

function(gemm_add_exercise name)
  if(NOT GEMM_EXERCISES)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "NAMESPACE;SOLUTION;PRECISION" "SANITIZE_SHAPES")
  if(NOT ARG_NAMESPACE OR NOT ARG_SOLUTION OR NOT ARG_PRECISION MATCHES "^(f32|f16)$")
    message(FATAL_ERROR "gemm_add_exercise(${name}): NAMESPACE, SOLUTION and PRECISION f32|f16 "
                        "are required")
  endif()
  # The skeletons are written one chapter at a time: a chapter without one is skipped quietly.
  set(skeleton "${CMAKE_CURRENT_SOURCE_DIR}/exercise.cu")
  if(NOT EXISTS "${skeleton}")
    return()
  endif()
  set(source "${skeleton}")
  if(GEMM_EXERCISE_DIR AND EXISTS "${GEMM_EXERCISE_DIR}/${name}/exercise.cu")
    get_filename_component(source "${GEMM_EXERCISE_DIR}/${name}/exercise.cu" ABSOLUTE)
    message(STATUS "gemm: exercise ${name} from ${source}")
  endif()

  # The gaps of the skeleton, one bit per EXERCISE_GAP(n): a run that still reaches all of them has
  # not been attempted. Read at configure time, and not made a configure dependency. In a student's
  # own tree the skeleton is the file being edited, so deleting markers would shrink the set the
  # grade is measured against: there the gaps seen at earlier configures are kept (in the cache).
  # With GEMM_EXERCISE_DIR or the self-test, the chapter's file is the unmodified skeleton.
  file(STRINGS "${skeleton}" gap_lines REGEX "EXERCISE_GAP\\([0-9]+\\)")
  string(REGEX MATCHALL "EXERCISE_GAP\\([0-9]+\\)" gap_calls "${gap_lines}")
  set(gaps 0)
  if(NOT GEMM_EXERCISE_DIR AND NOT GEMM_EXERCISE_SELFTEST AND DEFINED CACHE{GEMM_GAPS_${name}})
    set(gaps "$CACHE{GEMM_GAPS_${name}}")
  endif()
  foreach(call IN LISTS gap_calls)
    string(REGEX REPLACE "EXERCISE_GAP\\(([0-9]+)\\)" "\\1" n "${call}")
    if(n GREATER 31)
      message(FATAL_ERROR "${skeleton}: EXERCISE_GAP(${n}): gaps are numbered 0 to 31")
    endif()
    math(EXPR gaps "${gaps} | (1 << ${n})" OUTPUT_FORMAT HEXADECIMAL)
  endforeach()
  set(GEMM_GAPS_${name} "${gaps}" CACHE INTERNAL "the gaps of ${name}/exercise.cu, one bit each")
  if(gaps STREQUAL "0" AND (GEMM_EXERCISE_DIR OR GEMM_EXERCISE_SELFTEST))
    message(WARNING "${skeleton} has no EXERCISE_GAP(n) line: it cannot be reported as not "
                    "attempted.")
  endif()

  # The student's kernel. Its chapter folder is on the include path, so that a submission kept
  # elsewhere still finds the chapter's local headers ("tile_helpers.cuh").
  set(lib ${name}_exercise_kernels)
  add_library(${lib} STATIC "${source}")
  target_include_directories(${lib} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${lib} PUBLIC gemm_common PRIVATE gemm_warnings)

  # Its program. Only constants of the chapter go into the definitions (no path to the source), so
  # switching GEMM_EXERCISE_DIR from one student to the next recompiles only the exercise.cu files.
  set(f16 0)
  if(ARG_PRECISION STREQUAL "f16")
    set(f16 1)
  endif()
  add_executable(${name}_exercise "${PROJECT_SOURCE_DIR}/tests/exercises/exercise_main.cu")
  target_compile_definitions(${name}_exercise PRIVATE
    GEMM_EXERCISE_CHAPTER="${name}" GEMM_EXERCISE_NS=${ARG_NAMESPACE} GEMM_EXERCISE_F16=${f16}
    GEMM_EXERCISE_GAPS=${gaps}u GEMM_EXERCISE_SOLUTION="${ARG_SOLUTION}")
  target_include_directories(${name}_exercise PRIVATE "${PROJECT_SOURCE_DIR}/tests")
  target_link_libraries(${name}_exercise PRIVATE ${lib} gemm_warnings)

  # The reference solution: the chapter's kernel in the skeleton's place.
  set(adapter "${CMAKE_CURRENT_BINARY_DIR}/${name}_solution.cu")
  file(CONFIGURE OUTPUT "${adapter}" CONTENT
"// Generated by gemm_add_exercise() (tests/exercises/gemm_add_exercise.cmake). Do not edit.
// The reference solution of the ${name} exercise is the chapter's own ${ARG_SOLUTION}.
#include \"${name}/${ARG_NAMESPACE}.cuh\"
#include \"common/exercise.cuh\"

GEMM_EXERCISE_SOLUTION(${ARG_NAMESPACE}, ${ARG_SOLUTION})
")
  add_library(${name}_solution_kernels STATIC "${adapter}")
  target_link_libraries(${name}_solution_kernels PUBLIC ${name}_kernels PRIVATE gemm_warnings)
  add_dependencies(exercises ${name}_exercise ${name}_solution_kernels)

  # compute-sanitizer on the exercise program: --no-verify, so that only the tool's own findings
  # fail (a wrong result is the grading test's business); --no-baseline, as for the chapters.
  # Two of the chapters' three shapes: odd (every edge path) and N, K multiples of 8 with ragged
  # tiles and a K long enough to reuse pipeline stages; a class's grading runs these 8 per exercise.
  # SANITIZE_SHAPES replaces them where a chapter needs a deeper K for that (07: steps of 64).
  if(NOT ARG_SANITIZE_SHAPES)
    set(ARG_SANITIZE_SHAPES 67x45x39 136x264x200)
  endif()
  set(run $<TARGET_FILE:${name}_exercise> --iters 1 --warmup 0 --no-verify --no-baseline)
  foreach(shape ${ARG_SANITIZE_SHAPES})
    string(REPLACE "x" ";" mnk "${shape}")
    list(GET mnk 0 m)
    list(GET mnk 1 n)
    list(GET mnk 2 k)
    foreach(tool memcheck racecheck synccheck initcheck)
      set(test ${name}_exercise_${tool}_${shape})
      add_test(NAME ${test}
               COMMAND expect_exit --gpu --needs "${GEMM_COMPUTE_SANITIZER}" 0 --
                       "${GEMM_COMPUTE_SANITIZER}" --tool ${tool} --error-exitcode 99
                       ${run} --m ${m} --n ${n} --k ${k})
      set_tests_properties(${test} PROPERTIES LABELS "exercise;exercise_sanitize;${name}"
                           SKIP_RETURN_CODE 77 TIMEOUT ${GEMM_EXERCISE_TIMEOUT})
    endforeach()
  endforeach()

  if(GEMM_EXERCISE_SELFTEST)
    # The unmodified skeleton fails verification, but it must never fault: memcheck, small shape.
    add_test(NAME ${name}_exercise_selftest_memcheck
             COMMAND expect_exit --gpu --needs "${GEMM_COMPUTE_SANITIZER}" 0 --
                     "${GEMM_COMPUTE_SANITIZER}" --tool memcheck --error-exitcode 99
                     ${run} --m 67 --n 45 --k 39)
    # No GPU needed: the program links, parses its command line and lists its one variant.
    add_test(NAME ${name}_exercise_selftest_list
             COMMAND expect_exit 0 -- $<TARGET_FILE:${name}_exercise> --list)
    set_tests_properties(${name}_exercise_selftest_memcheck PROPERTIES
                         LABELS "exercise_selftest;${name}" SKIP_RETURN_CODE 77
                         TIMEOUT ${GEMM_EXERCISE_TIMEOUT})
    set_tests_properties(${name}_exercise_selftest_list PROPERTIES
                         LABELS "cpu;exercise_selftest;${name}")
  endif()

  set_property(GLOBAL APPEND PROPERTY GEMM_EXERCISE_LIST "${name}:${ARG_NAMESPACE}:${gaps}")
endfunction()
