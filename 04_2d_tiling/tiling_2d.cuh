// Chapter 04: 2D thread tiles. Host-includable: declares the launchers only.
#pragma once

#include <vector>

#include "common/device_info.cuh"
#include "common/gemm.cuh"

namespace gemm::tiling_2d {

// The tile sizes of kernels 1-5's launchers, chosen here and only here (in the header, not in the
// .cu files, so that scripts/docs/diagram_constants.cu draws the chapter's pictures from them).
// tiling_2d_shape_aware's candidate tiles (shape_aware.cu, Tiles<...>) keep kernels_4_5's warp
// and thread tile rows and padding, and list their block tiles there.
// Kernels 1-3 (tiling_2d.cu): 128 x 128 block tiles of 8 x 8 thread tiles: 256 threads. BK = 8
// keeps the two tiles at 8 KB.
namespace kernels_1_3 {
constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
constexpr int kPad = 4;  // floats of padding per row of the transposed As (see kernel 3)
}  // namespace kernels_1_3
// Kernels 4-5 (warp_tiling.cu).
namespace kernels_4_5 {
constexpr int kBM = 128, kBN = 128;  // block tile
constexpr int kWM = 32, kWN = 64;    // warp tile: 4 x 2 warps
constexpr int kTM = 8, kTN = 8;      // thread tile: 2 x 2 sub-blocks of 4 x 4
constexpr int kPad = 4;              // transposed As: conflict-free stores
// BK: kernel 4 takes 16 (its two barriers come once per 16 k instead of per 8). Kernel 5 also
// takes 16 and, with a tile in flight in registers, one block per SM; its scalar fallback takes 8
// and two blocks per SM (see its comment).
constexpr int kBKWarp = 16;
constexpr int kBKDouble = 16;
constexpr int kBKDoubleScalar = 8;
}  // namespace kernels_4_5

// tiling_2d.cu: each thread computes an 8 x 8 block of C, with outer products from registers.
// Scalar loads; the baseline of the chapter.
void launch_basic(const float* A, const float* B, float* C, int M, int N, int K,
                  cudaStream_t stream);
// + 16-byte (float4) global loads and stores when the pointers and N, K allow it.
void launch_vec4(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream);
// + A stored transposed in shared memory, so both fragments are read with 16-byte loads.
void launch_transposed_a(const float* A, const float* B, float* C, int M, int N, int K,
                         cudaStream_t stream);

// warp_tiling.cu:
// + each warp owns a 32 x 64 patch of the block tile; conflict-free fragment reads.
void launch_warp(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream);
// + two shared-memory stages: the next tile's loads overlap the math; one barrier per K step.
void launch_double_buffer(const float* A, const float* B, float* C, int M, int N, int K,
                          cudaStream_t stream);

// shape_aware.cu: kernel 5 with its tile size, or split-K, chosen from the shape by counting
// waves (the chapter's headline), and the variants that force each choice.
std::vector<Variant> shape_aware_variants();

// The fastest expected first (the chapter's headline), then the refinements in order.
std::vector<Variant> variants();

// Prints, for every kernel the variants launch without split-K (the split-K instances are compiled
// too, but not listed): registers per thread, local memory per thread (spills), shared memory per
// block (static and dynamic) and resident blocks per SM on the current GPU.
void print_resources();

// For print_resources(): every such kernel and its block size. A launcher with a 16-byte fast
// path has two kernels behind it (float4 and scalar); each .cu file lists its own.
std::vector<KernelResources> thread_tiling_kernels();  // tiling_2d.cu
std::vector<KernelResources> warp_tiling_kernels();    // warp_tiling.cu
std::vector<KernelResources> shape_aware_kernels();    // shape_aware.cu

}  // namespace gemm::tiling_2d
