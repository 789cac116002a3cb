// 07_hopper: tensor cores on Hopper, step by step (TMA + mbarriers + wgmma, warp specialization,
// a persistent kernel, clusters with TMA multicast, TMA stores). See README.md. Off Hopper every
// variant runs chapter 06's mma_sync_pipelined, and the table says so.
//   cmake --build build --target 07_hopper && ./build/bin/07_hopper --size 4096
//   ./build/bin/07_hopper --variant wgmma_tma              # one step on its own
#include "07_hopper/hopper.cuh"
#include "common/runner.cuh"

int main(int argc, char** argv) {
  gemm::GpuChapter chapter;
  chapter.name = "07_hopper";
  chapter.description =
      "tensor cores on Hopper (sm_90a): TMA + mbarriers + wgmma, warp specialization, a "
      "persistent kernel, clusters and TMA stores; elsewhere chapter 06's mma_sync_pipelined runs "
      "in their place";
  chapter.variants = gemm::hopper::variants();
  chapter.precision = gemm::Precision::kF16;
  // The fallback's own minimum: mma_sync_pipelined runs wmma_vec_loads where it cannot run itself.
  chapter.min_cc = 70;
  chapter.min_cc_reason = "tensor cores (WMMA) first appeared in Volta";
  // Registers, local memory, shared memory and blocks per SM of every kernel, for this GPU.
  chapter.describe = gemm::hopper::print_resources;
  return gemm::run_gpu_chapter(argc, argv, chapter);
}
