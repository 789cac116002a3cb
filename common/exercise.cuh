// What an exercise file (NN_name/exercise.cu) needs from the harness: a way to mark the gaps a
// student still has to fill, and one line that tells the tests and the grader where the kernel is.
//
// A gap is a statement in a kernel:
//
//     EXERCISE_GAP(2);   // delete this line when you have written gap 2
//
// Each time a kernel runs through it, the gap's bit is set in a flag on the GPU. After a run, the
// harness reads the flag: every gap still marked means "not attempted"; some gaps marked and a
// wrong result means "failed"; a right result on every shape means "passed" (a forgotten marker
// in a correct kernel does not cost the student anything; the grader only mentions it).
//
// At the end of the file, one line exports the launcher:
//
//     GEMM_EXERCISE_EXPORT(shared_tiling, launch_exercise)
//
// which defines, like a chapter does,
//     std::vector<gemm::Variant> gemm::shared_tiling_exercise::variants();
//     unsigned gemm::shared_tiling_exercise::open_gaps();   // the gaps marked since the last call
//     std::string gemm::shared_tiling_exercise::cannot_run();  // "": it runs on any GPU
// An exercise that runs only on some GPUs (07's needs sm_90a) names a function that says why not
// on this one ("" where it can run):
//     GEMM_EXERCISE_EXPORT_WHERE(hopper, launch_exercise, cannot_run_here)
// and its program and grading tests then stop with that sentence (the tests as "skipped").
// The reference solution of each exercise is the chapter's own kernel, exported with
//     GEMM_EXERCISE_SOLUTION(shared_tiling, gemm::shared_tiling::launch_tile_32)
// in a file that CMake generates (tests/exercises/gemm_add_exercise.cmake), which defines the same
// two functions in gemm::shared_tiling_solution.
//
// "Every gap" is known from the unmodified skeleton: at configure time CMake collects the numbers
// n of its EXERCISE_GAP(n) lines (see gemm_add_exercise). So number the gaps with literals, one
// EXERCISE_GAP per gap, and keep every one on a path that the test shapes run through.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/gemm.cuh"

// One flag per exercise file (static: each translation unit has its own copy, so the exercises of
// several chapters can be linked into one test program without sharing it).
static __device__ unsigned gemm_exercise_open_gaps_ = 0u;

// Sets bit GAP of the flag. Read first, so only the first few threads pay for the atomic. The gap
// number is a template argument so that a number the flag cannot hold fails to compile, instead
// of silently setting no bit at all (1u << 32 is undefined).
template <int GAP>
static __device__ __forceinline__ void gemm_exercise_mark_gap() {
  static_assert(GAP >= 0 && GAP < 32, "EXERCISE_GAP(n): n must be 0 .. 31 (one bit of a flag)");
  constexpr unsigned bit = 1u << GAP;
  if (!(*static_cast<volatile unsigned*>(&gemm_exercise_open_gaps_) & bit))
    atomicOr(&gemm_exercise_open_gaps_, bit);
}

#define EXERCISE_GAP(n) gemm_exercise_mark_gap<(n)>()

namespace gemm::exercise {

// Returns the gaps marked since the last call, and clears the flag.
static inline unsigned read_and_clear_open_gaps() {
  unsigned gaps = 0;
  CUDA_CHECK(cudaMemcpyFromSymbol(&gaps, gemm_exercise_open_gaps_, sizeof(gaps)));
  const unsigned zero = 0;
  CUDA_CHECK(cudaMemcpyToSymbol(gemm_exercise_open_gaps_, &zero, sizeof(zero)));
  return gaps;
}

// One variant from a launcher of either precision (fp32 inputs for 01-04, fp16 for 05-06).
inline Variant make_variant(const std::string& name, LaunchF32 f32, LaunchF16 f16 = nullptr) {
  Variant v;
  v.name = name;
  v.f32 = f32;
  v.f16 = f16;
  v.summary = "your kernel (the exercise)";
  return v;
}
inline Variant make_variant(const std::string& name, LaunchF16 f16) {
  return make_variant(name, nullptr, f16);
}

}  // namespace gemm::exercise

namespace gemm::exercise {
inline std::string runs_anywhere() { return ""; }
}  // namespace gemm::exercise

#define GEMM_EXERCISE_EXPORT_WHERE(NS, LAUNCH, CANNOT_RUN)                                \
  namespace gemm::NS##_exercise {                                                         \
  std::vector<Variant> variants() { return {exercise::make_variant(#NS "_exercise", LAUNCH)}; } \
  unsigned open_gaps() { return exercise::read_and_clear_open_gaps(); }                  \
  std::string cannot_run() { return CANNOT_RUN(); }                                       \
  }

#define GEMM_EXERCISE_EXPORT(NS, LAUNCH) \
  GEMM_EXERCISE_EXPORT_WHERE(NS, LAUNCH, ::gemm::exercise::runs_anywhere)

// The chapter's own kernel runs wherever the chapter does (07's launchers fall back off Hopper).
#define GEMM_EXERCISE_SOLUTION(NS, LAUNCH)                                                \
  namespace gemm::NS##_solution {                                                         \
  std::vector<Variant> variants() { return {exercise::make_variant(#NS "_solution", LAUNCH)}; } \
  unsigned open_gaps() { return 0u; }                                                     \
  std::string cannot_run() { return ""; }                                                 \
  }
