// 06_warp_tiling: tensor cores with block and warp tiling, refined step by step (padding, 128-bit
// loads, a cp.async pipeline, ldmatrix + mma.sync in PTX, then the same pipelined in registers).
// See README.md; chapter 07 continues on Hopper.
//   cmake --build build --target 06_warp_tiling && ./build/bin/06_warp_tiling --size 4096
//   ./build/bin/06_warp_tiling --variant wmma_padded      # one refinement on its own
//   ./build/bin/06_warp_tiling --wmma-ceiling             # the tensor-core ceiling of this GPU
#include <cstdio>
#include <string>

#include "06_warp_tiling/warp_tiling.cuh"
#include "common/runner.cuh"

int main(int argc, char** argv) {
  // The chapter's own option: a microbenchmark instead of the GEMM variants.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--wmma-ceiling")
      return gemm::warp_tiling::run_wmma_ceiling(argc, argv);

  gemm::GpuChapter chapter;
  chapter.name = "06_warp_tiling";
  chapter.description =
      "tensor cores with block and warp tiling: WMMA warp tiles, padding, 128-bit loads, a "
      "cp.async pipeline, ldmatrix + mma.sync PTX, then the same pipelined in registers";
  chapter.variants = gemm::warp_tiling::variants();
  chapter.precision = gemm::Precision::kF16;
  chapter.min_cc = 70;
  chapter.min_cc_reason = "tensor cores (WMMA) first appeared in Volta";
  // Registers, local memory, shared memory and blocks per SM of every kernel, for this GPU.
  chapter.describe = gemm::warp_tiling::print_resources;
  const int rc = gemm::run_gpu_chapter(argc, argv, chapter);

  bool help = false;
  for (int i = 1; i < argc; ++i) help = help || std::string(argv[i]) == "--help" ||
                                      std::string(argv[i]) == "-h";
  if (help && rc == 0)
    std::printf("This chapter also has:\n"
                "  --wmma-ceiling    time kernels that issue only wmma::mma_sync (and mma.sync\n"
                "                    m16n8k16 on sm_80+) next to cuBLAS: the tensor-core ceiling\n"
                "                    of this GPU (with --no-baseline: without cuBLAS; with\n"
                "                    --csv FILE: appended to FILE as rows of machine_probe's CSV)\n");
  return rc;
}
