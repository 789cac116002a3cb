// =================================================================================================
// Chapter 02 - shared tiling: a block of threads stages tiles of A and B in shared memory.
//
// The idea: in chapter 01, threads that share a row of C each loaded that whole row of A from
// global memory on their own, and threads that share a column each loaded that column of B. Here
// a TILE x TILE block walks along K in phases. In each phase every thread copies ONE element of A
// and ONE of B into shared memory, the block waits at a barrier, and then every thread reads the
// TILE values it needs from the shared tiles, which the whole block loaded together. A second
// barrier keeps the tiles in place until everyone has finished reading them.
//
// What changed since chapter 01: the k loop is split into phases of TILE steps; the operands of the
// inner loop come from two __shared__ tiles instead of global memory; two __syncthreads() per
// phase. Work per thread: still one element of C, K FMAs. Per block (TILE x TILE threads): a
// TILE x TILE tile of C.
// Global loads per FMA: 2 / TILE (one of A and one of B per thread per phase, for TILE FMAs);
// chapter 01 had 2. Shared-memory loads per FMA: 2 (As[ty][k] and Bs[k][tx]; the compiler merges
// four reads of As into one 128-bit load, so 1.25 instructions); chapter 03 cuts those.
//
// Variants, one kernel template and one kernel with a run-time tile width:
//   shared_tiling_32        TILE = 32: 1024 threads, 8 KB of shared memory per block
//   shared_tiling_16        TILE = 16:  256 threads, 2 KB
//   shared_tiling_8         TILE =  8:   64 threads, 512 bytes
//   shared_tiling_dynamic   TILE = 32 passed at run time, extern __shared__ sized at launch
//
// Preconditions: none. Any M, N, K >= 1: elements of a tile that fall outside A or B are stored
// as 0.0f (they add nothing), and only threads inside C store their result.
// Build and run:  cmake --build build --target 02_shared_tiling && ./build/bin/02_shared_tiling
// The measured figures (% of cuBLAS) are in README.md, generated from the benchmark CSV.
// =================================================================================================
#include "02_shared_tiling/shared_tiling.cuh"

#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device_info.cuh"

namespace gemm::shared_tiling {

// The run-time tile of shared_tiling_dynamic: the same as shared_tiling_32's, so the pair of
// variants differs in one thing only (the tile width known at compile time or at run time).
constexpr int kDynamicTile = kHeadlineTile;
// Its shared memory, both tiles: 8 KB, below the 48 KB a block may use without opting in with
// cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...).
constexpr size_t kDynamicSmemBytes = 2 * kDynamicTile * kDynamicTile * sizeof(float);

template <int TILE>
__global__ void shared_tiling_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K) {
  static_assert(TILE * TILE <= 1024, "TILE * TILE threads must fit in one block (1024 at most)");
  static_assert((TILE * TILE) % 32 == 0,
                "TILE * TILE threads must be whole warps of 32 (TILE a multiple of 8)");

  __shared__ float As[TILE][TILE];  // [TILE][TILE]: rows of this block's strip of A, TILE of K
  __shared__ float Bs[TILE][TILE];  // [TILE][TILE]: TILE rows of K, columns of this block's strip

  const int tx = threadIdx.x;  // column inside the tile
  const int ty = threadIdx.y;  // row inside the tile
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  // No early return for threads outside C: they must still load their share of the tiles (zeros,
  // here) and reach both barriers. A __syncthreads() that some threads of the block skip is
  // undefined behaviour.

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    // KEY: each thread stages one element of A and one of B; outside the matrix, 0.0f.
    // Consecutive tx read consecutive addresses of a row of A and of B: both loads coalesce.
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
    __syncthreads();  // KEY: every element of both tiles is written before anyone reads them

#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];  // KEY: operands from shared
    __syncthreads();  // KEY: everyone has finished reading before the next phase overwrites them
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// The same algorithm with the tile width `tile` known only at run time. The two tiles live in one
// dynamically sized shared array (size given at launch: 2 * tile * tile floats), so the code
// indexes it by hand. What it costs: the compiler cannot unroll the inner loop fully, and every
// shared-memory address is computed at run time.
__global__ void shared_tiling_dynamic_kernel(const float* __restrict__ A,
                                             const float* __restrict__ B, float* __restrict__ C,
                                             int M, int N, int K, int tile) {
  extern __shared__ float smem[];  // KEY: sized by the third <<<>>> argument
  float* As = smem;                // [tile][tile]
  float* Bs = smem + tile * tile;  // [tile][tile]

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += tile) {
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    As[ty * tile + tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
    Bs[ty * tile + tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < tile; ++k) acc += As[ty * tile + k] * Bs[k * tile + tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// One launcher for every TILE: the block is the tile, the grid covers C (x: columns, y: rows).
template <int TILE>
void launch_tile(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream) {
  const dim3 block(TILE, TILE);
  const dim3 grid(ceil_div(N, TILE), ceil_div(M, TILE));
  shared_tiling_kernel<TILE><<<grid, block, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_tile_32(const float* A, const float* B, float* C, int M, int N, int K,
                    cudaStream_t stream) {
  static_assert(kHeadlineTile == 32, "launch_tile_32 (shared_tiling_32) is named after its TILE");
  launch_tile<kHeadlineTile>(A, B, C, M, N, K, stream);
}

void launch_tile_16(const float* A, const float* B, float* C, int M, int N, int K,
                    cudaStream_t stream) {
  launch_tile<16>(A, B, C, M, N, K, stream);
}

void launch_tile_8(const float* A, const float* B, float* C, int M, int N, int K,
                   cudaStream_t stream) {
  launch_tile<8>(A, B, C, M, N, K, stream);
}

void launch_dynamic(const float* A, const float* B, float* C, int M, int N, int K,
                    cudaStream_t stream) {
  const int tile = kDynamicTile;  // a run-time value as far as the kernel knows
  const dim3 block(tile, tile);
  const dim3 grid(ceil_div(N, tile), ceil_div(M, tile));
  // KEY: the third launch argument is the dynamic shared memory per block, in bytes.
  shared_tiling_dynamic_kernel<<<grid, block, kDynamicSmemBytes, stream>>>(A, B, C, M, N, K, tile);
  GEMM_LAUNCH_CHECK();
}

std::vector<Variant> variants() {
  return {
      {"shared_tiling_32", launch_tile_32, nullptr,
       "32x32 tiles of A and B in shared memory (1024 threads, 8 KB per block)"},
      {"shared_tiling_16", launch_tile_16, nullptr,
       "16x16 tiles of A and B in shared memory (256 threads, 2 KB per block)"},
      {"shared_tiling_8", launch_tile_8, nullptr,
       "8x8 tiles of A and B in shared memory (64 threads, 512 B per block)"},
      {"shared_tiling_dynamic", launch_dynamic, nullptr,
       "32x32 tiles, width passed at run time, extern __shared__ sized at launch"},
  };
}

// --- Occupancy: how many blocks of each tile size fit on one SM of this GPU ----------------------

void print_occupancy() {
  print_kernel_resources({
      {"shared_tiling_32", reinterpret_cast<const void*>(shared_tiling_kernel<32>), 32 * 32},
      {"shared_tiling_16", reinterpret_cast<const void*>(shared_tiling_kernel<16>), 16 * 16},
      {"shared_tiling_8", reinterpret_cast<const void*>(shared_tiling_kernel<8>), 8 * 8},
      {"shared_tiling_dynamic", reinterpret_cast<const void*>(shared_tiling_dynamic_kernel),
       kDynamicTile * kDynamicTile, kDynamicSmemBytes},
  });
}

}  // namespace gemm::shared_tiling
