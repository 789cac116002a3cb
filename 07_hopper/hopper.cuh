// Chapter 07: tensor cores on Hopper. Host-includable: declares the launchers, the chapter's list
// of variants and its resource table. (What the launchers share on the host, the tiles and the
// tensor maps, is in hopper_host.cuh.)
//
// Every kernel here is sm_90a code (compute capability 9.0, and a build whose architecture list
// has 90). Anywhere else each launcher runs chapter 06's mma_sync_pipelined instead, and its
// variant's note says so: a GPU without sm_90a still runs a correct, honestly labelled chapter.
#pragma once

#include <vector>

#include "common/device_info.cuh"
#include "common/gemm.cuh"

namespace gemm::hopper {

// wgmma_tma.cu: step 1. TMA copies into 128-byte-swizzled stages, mbarriers, wgmma m64n256k16;
// chapter 06's block tile (128 x 256) and 4-stage ring, one __syncthreads() per K step.
void launch_wgmma_tma(const __half* A, const __half* B, float* C, int M, int N, int K,
                      cudaStream_t stream);

// wgmma_warp_specialized.cu: step 2. + warp specialization: a producer warpgroup (TMA) and two
// consumer warpgroups (wgmma), full/empty barriers per stage, setmaxnreg.
void launch_wgmma_warp_specialized(const __half* A, const __half* B, float* C, int M, int N,
                                   int K, cudaStream_t stream);

// wgmma_persistent.cu (the kernel: wgmma_persistent.cuh), the headline:
// 3. + persistent: one block per SM looping over the tiles, in an order that shares L2; a smaller
//    tile or K split where C has too few tiles to fill the GPU (chosen by counting waves); the
//    64 x 128 tile two blocks per SM where its units outnumber the SMs.
// 4. + clusters of 2 that share B (TMA multicast), 5. + C stored by TMA: the same launcher, for
//    its 128 x 256 tile over all of K.
void launch_wgmma_persistent(const __half* A, const __half* B, float* C, int M, int N, int K,
                             cudaStream_t stream);
// Step 3 alone: the 128 x 256 tile over all of K, one block per SM, no clusters.
void launch_wgmma_persistent_no_cluster(const __half* A, const __half* B, float* C, int M, int N,
                                        int K, cudaStream_t stream);
// Its variants: wgmma_persistent, then _no_split, _no_tma_store (step 4), _no_cluster (step 3),
// _splitk, _128x128 and _64x128, each forcing one choice (tested on every shape, timed at every
// size).
std::vector<Variant> wgmma_persistent_variants();

// wgmma_persistent_tail_split.cu: an experiment the headline does not use, step 5 with its last
// wave's tiles cut into slices of K (docs/notes/07_hopper.md, "What did not pay").
Variant wgmma_persistent_tail_split_variant();

// The chapter's headline first, wgmma_persistent (on every GPU: where it cannot run, its note says
// what ran instead), then steps 1 and 2, then the persistent kernel's forced choices, then the
// experiment.
std::vector<Variant> variants();

// Prints, for every kernel of the chapter: registers per thread, local memory per thread,
// shared memory per block and resident blocks per SM on this GPU; or, where they cannot run, why.
void print_resources();

// For print_resources(): each .cu lists its compiled kernels, their block sizes and dynamic shared
// memory.
std::vector<KernelResources> wgmma_tma_kernels();                    // wgmma_tma.cu
std::vector<KernelResources> wgmma_warp_specialized_kernels();       // wgmma_warp_specialized.cu
std::vector<KernelResources> wgmma_persistent_kernels();             // wgmma_persistent.cu
std::vector<KernelResources> wgmma_persistent_tail_split_kernels();  // ..._tail_split.cu

}  // namespace gemm::hopper
