// Chapter 06: tensor cores with block and warp tiling. Host-includable: declares the launchers,
// the chapter's list of variants, its resource table and its ceiling microbenchmark.
#pragma once

#include <string>
#include <vector>

#include "common/gemm.cuh"

namespace gemm::warp_tiling {

// warp_tiling.cu: a 128 x 256 block tile of 8 warps, each warp a 64 x 64 tile of 4 x 4 WMMA
// fragments (16 x 16), two barriers per K step.
// 1. scalar guarded loads, shared tiles laid out as in A and B.
void launch_block_tiled(const __half* A, const __half* B, float* C, int M, int N, int K,
                        cudaStream_t stream);
// 2. + shared rows padded by 8 halves: conflict-free fragment loads.
void launch_padded(const __half* A, const __half* B, float* C, int M, int N, int K,
                   cudaStream_t stream);
// 3. + 128-bit global loads and stores when pointers, N and K allow (else the scalar path).
void launch_vec_loads(const __half* A, const __half* B, float* C, int M, int N, int K,
                      cudaStream_t stream);

// The pipeline depth of kernel 4 (its launcher in cp_async.cu says why 3), here so that
// scripts/docs/diagram_constants.cu draws the stage ring from it.
constexpr int kCpAsyncStages = 3;  // wmma_cp_async

// cp_async.cu:
// 4. + a 3-stage cp.async pipeline, one barrier per K step (sm_80+; else variant 3).
void launch_cp_async(const __half* A, const __half* B, float* C, int M, int N, int K,
                     cudaStream_t stream);

// mma_ptx.cu:
// 5. ldmatrix + mma.sync.m16n8k16 in inline PTX on a 4-stage pipeline, XOR-swizzled shared tiles
//    (sm_80+; else variant 3).
void launch_mma_sync_ptx(const __half* A, const __half* B, float* C, int M, int N, int K,
                         cudaStream_t stream);

// mma_pipelined.cu:
// 6. the same tiles, fragments double-buffered in registers, the barrier before the K step's last
//    slice, leaner copies, an L2-friendly block order; the launcher picks the tile (or
//    split-K) by counting waves. (Chapter 07's launchers run it where their Hopper kernels cannot
//    run.)
void launch_mma_sync_pipelined(const __half* A, const __half* B, float* C, int M, int N, int K,
                               cudaStream_t stream);
// Its variants: mma_sync_pipelined, then _128x256, _128x128, _64x128 and _splitk, each forcing
// one choice (tested on every shape, timed at every size).
std::vector<Variant> mma_pipelined_variants();
// What the launcher chooses for this shape, e.g. "128x256, split-K 4" (sm_80+ only).
std::string mma_sync_pipelined_choice(int M, int N, int K);

// What a launcher runs instead of its own kernel on this GPU, for this shape (Variant's note):
// "" when it runs as named.
std::string vec_loads_runs_instead(const void* A, const void* B, const float* C, int M, int N,
                                   int K);
std::string cp_async_runs_instead(const void* A, const void* B, const float* C, int M, int N,
                                  int K);
std::string mma_sync_ptx_runs_instead(const void* A, const void* B, const float* C, int M, int N,
                                      int K);

// The chapter's headline first, mma_sync_pipelined (step 6, the fastest step in README.md,
// "Measured"), then the other variants in the order of the steps.
std::vector<Variant> variants();

// Prints, for every compiled kernel of the chapter: registers per thread, local memory per thread
// (spills or a stack frame: -Xptxas -v tells which), static and dynamic shared memory per block,
// and resident blocks per SM on this GPU.
void print_resources();

// For print_resources(): one compiled kernel, its block size and dynamic shared memory. A launcher
// with a 16-byte fast path has two kernels behind it (16-byte and scalar); each .cu lists its own.
struct KernelInfo {
  enum Needs { kAnyGpu, kSm80 };
  const char* name;
  const void* kernel;
  int threads;
  int dynamic_smem;  // bytes
  Needs needs;       // kSm80: cp.async / ldmatrix / mma.sync
};
std::vector<KernelInfo> wmma_kernels();       // warp_tiling.cu
std::vector<KernelInfo> cp_async_kernels();   // cp_async.cu
std::vector<KernelInfo> mma_ptx_kernels();    // mma_ptx.cu
std::vector<KernelInfo> mma_pipelined_kernels();  // mma_pipelined.cu

// wmma_ceiling.cu: `06_warp_tiling --wmma-ceiling`. Times kernels that do nothing but
// wmma::mma_sync (and, on sm_80+, mma.sync.m16n8k16) on fragments held in registers, and prints
// their TFLOPS next to cuBLAS's fp16 GEMM at 4096^3: the fastest any kernel of this chapter could
// possibly go on this GPU. Returns the program's exit code.
int run_wmma_ceiling(int argc, char** argv);

}  // namespace gemm::warp_tiling
