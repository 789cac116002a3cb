// 03_thread_tiling: TM outputs per thread, a sweep of TM. See README.md.
//   cmake --build build --target 03_thread_tiling && ./build/bin/03_thread_tiling --size 4096
//   ./build/bin/03_thread_tiling --variant thread_tiling_tm16 --size 2048
#include "03_thread_tiling/thread_tiling.cuh"
#include "common/runner.cuh"

int main(int argc, char** argv) {
  gemm::GpuChapter chapter;
  chapter.name = "03_thread_tiling";
  chapter.description = "TM elements of a column of C per thread (TM = 4, 8, 16)";
  chapter.variants = gemm::thread_tiling::variants();
  chapter.describe = gemm::thread_tiling::print_resources;
  return gemm::run_gpu_chapter(argc, argv, chapter);
}
