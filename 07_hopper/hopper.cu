// Chapter 07: the list of variants and the resource table (the kernels are in wgmma_tma.cu,
// wgmma_warp_specialized.cu, wgmma_persistent.cuh; README.md explains them).
#include "07_hopper/hopper.cuh"

#include <cstdio>

#include "07_hopper/hopper_host.cuh"
#include "common/cuda_check.cuh"

namespace gemm::hopper {

std::vector<Variant> variants() {
  // KEY: the headline first, on every GPU. Where the kernels cannot run, every launcher runs
  // chapter 06's headline instead, and runs_instead says so in the table and the CSV.
  const std::vector<Variant> persistent = wgmma_persistent_variants();
  std::vector<Variant> steps = {
      persistent.front(),  // the headline, wgmma_persistent (step 5 and its launcher)
      {"wgmma_tma", nullptr, launch_wgmma_tma,
       "TMA into 128-byte-swizzled stages, mbarriers, wgmma m64n256k16 (sm_90a)", runs_instead},
      {"wgmma_warp_specialized", nullptr, launch_wgmma_warp_specialized,
       "+ a producer warpgroup (TMA) and two consumers (wgmma), setmaxnreg (sm_90a)",
       runs_instead},
  };
  // After step 2, the headline's forced choices, steps 3 and 4 among them (wgmma_persistent.cu),
  // then the experiment.
  steps.insert(steps.end(), persistent.begin() + 1, persistent.end());
  steps.push_back(wgmma_persistent_tail_split_variant());
  return steps;
}

void print_resources() {
  std::vector<KernelResources> kernels = wgmma_tma_kernels();
  for (auto list : {wgmma_warp_specialized_kernels, wgmma_persistent_kernels,
                    wgmma_persistent_tail_split_kernels})
    for (const KernelResources& k : list()) kernels.push_back(k);
  if (!runs_here()) {
    for (const KernelResources& k : kernels)
      std::printf("  %s: sm_90a code, not run here (%s; mma_sync_pipelined runs instead)\n",
                  k.name.c_str(), why_not().c_str());
    return;
  }
  // The occupancy API counts 0 blocks until a kernel may use its dynamic shared memory.
  for (const KernelResources& k : kernels)
    CUDA_CHECK(cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(k.dynamic_smem)));
  print_kernel_resources(kernels);  // the shared table of common/ (also --resources-csv)
}

}  // namespace gemm::hopper
