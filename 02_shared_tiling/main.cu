// 02_shared_tiling: tiles in shared memory, TILE = 32, 16, 8, and 32 at run time. See README.md.
//   cmake --build build --target 02_shared_tiling && ./build/bin/02_shared_tiling --size 4096
//   ./build/bin/02_shared_tiling --variant shared_tiling_16 --size 2048
#include "02_shared_tiling/shared_tiling.cuh"
#include "common/runner.cuh"

int main(int argc, char** argv) {
  gemm::GpuChapter chapter;
  chapter.name = "02_shared_tiling";
  chapter.description = "tiles of A and B staged in shared memory (8x8, 16x16, 32x32, dynamic)";
  chapter.variants = gemm::shared_tiling::variants();
  chapter.describe = gemm::shared_tiling::print_occupancy;
  return gemm::run_gpu_chapter(argc, argv, chapter);
}
