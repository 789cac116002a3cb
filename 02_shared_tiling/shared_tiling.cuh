// Chapter 02: tiles of A and B staged in shared memory. Host-includable: declares launchers only.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::shared_tiling {

// The headline's tile width: TILE of shared_tiling_32, and the run-time width of
// shared_tiling_dynamic. (Here, not in shared_tiling.cu, so that scripts/docs/diagram_constants.cu
// draws the chapter's pictures from it.)
constexpr int kHeadlineTile = 32;

// Headline: 32 x 32 threads per block, 32 x 32 tiles of A and B per phase (8 KB of shared memory).
void launch_tile_32(const float* A, const float* B, float* C, int M, int N, int K,
                    cudaStream_t stream);
// The same kernel with 16 x 16 tiles (2 KB) ...
void launch_tile_16(const float* A, const float* B, float* C, int M, int N, int K,
                    cudaStream_t stream);
// ... and with 8 x 8 tiles (512 bytes).
void launch_tile_8(const float* A, const float* B, float* C, int M, int N, int K,
                   cudaStream_t stream);
// 32 x 32 tiles again, but the tile width is a run-time argument and the shared memory is sized at
// launch (extern __shared__).
void launch_dynamic(const float* A, const float* B, float* C, int M, int N, int K,
                    cudaStream_t stream);

std::vector<Variant> variants();

// Prints, for each tile size, the threads and shared memory per block and how many blocks, warps
// and threads fit on one SM of the current GPU (CUDA occupancy API). Used as GpuChapter::describe.
void print_occupancy();

}  // namespace gemm::shared_tiling
