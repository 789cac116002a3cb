// 04_2d_tiling: each thread computes an 8 x 8 block of C from register outer products, refined
// step by step (float4 loads, transposed A, warp tiling, double buffering). See README.md.
//   cmake --build build --target 04_2d_tiling && ./build/bin/04_2d_tiling --size 4096
//   ./build/bin/04_2d_tiling --variant tiling_2d_basic      # one refinement on its own
#include "04_2d_tiling/tiling_2d.cuh"
#include "common/runner.cuh"

int main(int argc, char** argv) {
  gemm::GpuChapter chapter;
  chapter.name = "04_2d_tiling";
  chapter.description =
      "2D thread tiles: 8 x 8 outputs per thread, float4 loads, transposed A, warp tiles, "
      "double buffering";
  chapter.variants = gemm::tiling_2d::variants();
  // Registers, spills, shared memory and blocks per SM of every kernel, for this GPU.
  chapter.describe = gemm::tiling_2d::print_resources;
  return gemm::run_gpu_chapter(argc, argv, chapter);
}
