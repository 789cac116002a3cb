// build/bin/NN_name_exercise: the program of every exercise. The chapter's own runner (the same
// command line, table and verification as build/bin/NN_name) on the student's kernel from
// NN_name/exercise.cu, and one line more at the end: the gaps that the kernel still ran through.
//   cmake -S . -B build -DGEMM_EXERCISES=ON
//   cmake --build build --target 02_shared_tiling_exercise
//   ./build/bin/02_shared_tiling_exercise --size 1024        # run, verify, time, report the gaps
//   ctest --test-dir build -R 02_shared_tiling_exercise      # the grading tests: every shape
//
// One source for every exercise, compiled once per exercise with the definitions that
// gemm_add_exercise() (tests/exercises/gemm_add_exercise.cmake) passes:
//   GEMM_EXERCISE_CHAPTER   "02_shared_tiling"
//   GEMM_EXERCISE_NS        shared_tiling: the skeleton exports gemm::shared_tiling_exercise
//   GEMM_EXERCISE_F16       1 for the tensor-core chapters (fp16 inputs, compute capability 7.0)
//   GEMM_EXERCISE_GAPS      the gaps of the unmodified skeleton, one bit each
//   GEMM_EXERCISE_SOLUTION  "gemm::shared_tiling::launch_tile_32", the chapter's kernel it becomes
#include <cstdio>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/runner.cuh"
#include "exercises/grading.hpp"

#define GEMM_EXERCISE_CAT2(a, b) a##b
#define GEMM_EXERCISE_CAT(a, b) GEMM_EXERCISE_CAT2(a, b)
#define GEMM_EXERCISE_SPACE GEMM_EXERCISE_CAT(GEMM_EXERCISE_NS, _exercise)

// What GEMM_EXERCISE_EXPORT defines at the end of exercise.cu (there is no header to include).
namespace gemm::GEMM_EXERCISE_SPACE {
std::vector<Variant> variants();
unsigned open_gaps();
std::string cannot_run();  // "" where the exercise can run on this GPU
}  // namespace gemm::GEMM_EXERCISE_SPACE

namespace {

// The gap flag lives on the GPU and is only worth reading (and only readable) once the student's
// kernel has run: --help, --list, a bad option or a missing GPU end the runner before that. So the
// runner gets a launcher that notes the call and forwards it.
bool g_ran = false;
gemm::LaunchF32 g_f32 = nullptr;
gemm::LaunchF16 g_f16 = nullptr;

void run_f32(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  g_ran = true;
  g_f32(A, B, C, M, N, K, s);
}
void run_f16(const __half* A, const __half* B, float* C, int M, int N, int K, cudaStream_t s) {
  g_ran = true;
  g_f16(A, B, C, M, N, K, s);
}

void report_gaps(unsigned open, int exit_code) {
  using gemm::exercise::gap_list;
  const char* file = GEMM_EXERCISE_CHAPTER "/exercise.cu";
  if (open == 0) {
    std::printf("\ngaps: none open (the kernel ran through no EXERCISE_GAP marker)\n");
  } else if (exit_code == gemm::kExitVerifyFailed &&
             gemm::exercise::all_gaps_open(open, GEMM_EXERCISE_GAPS)) {
    std::printf("\ngaps: %s still open: not attempted yet. Write the code each EXERCISE_GAP(n) in "
                "%s stands for, then delete the marker.\n", gap_list(open).c_str(), file);
  } else {
    std::printf("\ngaps: %s still open (the kernel still ran through EXERCISE_GAP(n) for these; "
                "delete each marker in %s once its code is written)\n", gap_list(open).c_str(),
                file);
  }
}

}  // namespace

int main(int argc, char** argv) {
  gemm::GpuChapter chapter;
  chapter.name = GEMM_EXERCISE_CHAPTER "_exercise";
  chapter.description = "your kernel from " GEMM_EXERCISE_CHAPTER
                        "/exercise.cu (the chapter's " GEMM_EXERCISE_SOLUTION " solves it)";
  chapter.variants = gemm::GEMM_EXERCISE_SPACE::variants();
  chapter.cannot_run = gemm::GEMM_EXERCISE_SPACE::cannot_run;  // asked once a GPU is found
  if (chapter.variants.size() != 1) {
    std::fprintf(stderr, "%s must export exactly one kernel with GEMM_EXERCISE_EXPORT.\n",
                 GEMM_EXERCISE_CHAPTER "/exercise.cu");
    return gemm::kExitBadInput;
  }
  gemm::Variant& v = chapter.variants.front();
  if ((v.f16 != nullptr) != (GEMM_EXERCISE_F16 != 0)) {
    std::fprintf(stderr, "%s must export a launcher with %s inputs, like its chapter.\n",
                 GEMM_EXERCISE_CHAPTER "/exercise.cu", GEMM_EXERCISE_F16 ? "__half" : "float");
    return gemm::kExitBadInput;
  }
  if (v.f32) {
    g_f32 = v.f32;
    v.f32 = run_f32;
  }
  if (v.f16) {
    g_f16 = v.f16;
    v.f16 = run_f16;
  }
#if GEMM_EXERCISE_F16
  chapter.precision = gemm::Precision::kF16;
  chapter.min_cc = 70;
  chapter.min_cc_reason = "tensor cores (WMMA) first appeared in Volta";
#endif
  const int code = gemm::run_gpu_chapter(argc, argv, chapter);
  if (g_ran) report_gaps(gemm::GEMM_EXERCISE_SPACE::open_gaps(), code);
  return code;
}
