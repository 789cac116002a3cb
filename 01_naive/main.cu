// 01_naive: one thread per element of C, three ways. See README.md.
//   cmake --build build --target 01_naive && ./build/bin/01_naive --size 4096
//   ./build/bin/01_naive --memory managed      # the same kernels on unified memory
#include "01_naive/naive.cuh"
#include "common/runner.cuh"

int main(int argc, char** argv) {
  gemm::GpuChapter chapter;
  chapter.name = "01_naive";
  chapter.description = "one thread per element of C (coalesced, uncoalesced, global accumulator)";
  chapter.variants = gemm::naive::variants();
  chapter.allows_managed = true;
  chapter.describe = gemm::naive::print_resources;
  return gemm::run_gpu_chapter(argc, argv, chapter);
}
