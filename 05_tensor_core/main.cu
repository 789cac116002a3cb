// 05_tensor_core: tensor cores through WMMA, one warp per 16 x 16 tile of C, fp16 inputs and fp32
// accumulation. See README.md.
//   cmake --build build --target 05_tensor_core && ./build/bin/05_tensor_core --size 4096
//   ./build/bin/05_tensor_core --variant wmma_staged_always     # every tile through shared memory
//   ./build/bin/05_tensor_core --error-study [--csv FILE] [--seed S]
//       no GPU needed: on the CPU, the error of rounding the inputs to fp16 against the error of
//       accumulating in fp32, for K = 16 .. 16384 (error_study.cpp). It takes no other options.
#include <cstdio>
#include <string>

#include "05_tensor_core/tensor_core.cuh"
#include "common/runner.cuh"

int main(int argc, char** argv) {
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    // Before the shared runner, which would reject the option and would look for a GPU.
    if (arg == "--error-study") return gemm::tensor_core::run_error_study(argc, argv);
    help = help || arg == "--help";
  }

  gemm::GpuChapter chapter;
  chapter.name = "05_tensor_core";
  chapter.description =
      "tensor cores through WMMA: one warp per 16 x 16 tile of C, fp16 in, fp32 accumulate";
  chapter.variants = gemm::tensor_core::variants();
  chapter.precision = gemm::Precision::kF16;
  chapter.min_cc = 70;
  chapter.min_cc_reason = "tensor cores (WMMA) first appeared in Volta";
  chapter.describe = gemm::tensor_core::print_resources;
  const int code = gemm::run_gpu_chapter(argc, argv, chapter);
  if (help && code == 0)
    std::printf(
        "\nThis chapter also has:\n"
        "  --error-study     on the CPU: the error of fp16 inputs vs fp32 accumulation as\n"
        "                    K grows; takes only --csv FILE (rewritten) and --seed S\n");
  return code;
}
