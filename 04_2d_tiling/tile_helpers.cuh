// Device helpers shared by the kernels of chapter 04 (not host-includable: nvcc only).
//
//   guarded global loads     one element, or four in a row (a float4), zero outside the matrix
//   tile maps                which float4 chunk of an A or B tile each thread loads
//   tile stores              registers -> shared memory, as is or transposed
//   the epilogue             accumulators -> C, guarded, in float4 pieces
//
// The kernels differ in *how* they use these; each kernel's own file shows its idea.
#pragma once

#include <cstdint>

#include "common/device_stores.cuh"
#include "common/gemm.cuh"

namespace gemm::tiling_2d {

// Kernels 1-4 and kernel 5's scalar fallback are declared __launch_bounds__(threads,
// kMinBlocksPerSm) (kernel 5's float4 path takes 1 instead): it asks ptxas to fit two blocks of
// 256 threads on an SM, i.e. at most 65536 / 512 = 128 registers per thread. If the kernel needed
// more, ptxas would spill to local memory instead: check the "spill stores" of -Xptxas -v
// (README.md, section 1, "The price: registers").
constexpr int kMinBlocksPerSm = 2;

// ---- Global loads, zero outside the matrix ------------------------------------------------------

// Element (row, col) of a rows x cols row-major matrix, or 0 outside it. The zeros are what makes
// every shape work: a row of A or a column of B past the edge contributes 0 to every dot product.
__device__ __forceinline__ float load_or_zero(const float* __restrict__ m, int rows, int cols,
                                              int row, int col) {
  return (row < rows && col < cols) ? m[row * cols + col] : 0.0f;
}

// Elements (row, col .. col+3), zero where outside. With VEC, and all four inside, one 16-byte
// load (LDG.E.128). The caller guarantees that such an address is a multiple of 16: m is 16-byte
// aligned, cols % 4 == 0 and col % 4 == 0. A float4 load from any other address does not round
// or split: the GPU raises "misaligned address" and the kernel dies.
template <bool VEC>
__device__ __forceinline__ float4 load4_or_zero(const float* __restrict__ m, int rows, int cols,
                                                int row, int col) {
  if (VEC && row < rows && col + 3 < cols)
    return *reinterpret_cast<const float4*>(&m[row * cols + col]);  // KEY: one 128-bit load
  return make_float4(load_or_zero(m, rows, cols, row, col),
                     load_or_zero(m, rows, cols, row, col + 1),
                     load_or_zero(m, rows, cols, row, col + 2),
                     load_or_zero(m, rows, cols, row, col + 3));
}

// Host side: may a kernel use 16-byte loads of A and B and 16-byte stores of C? Every float4 it
// touches starts at a multiple of 4 floats from the start of a row, so the rows must start at
// multiples of 16 bytes too: the base pointers aligned and the row lengths (K for A, N for B and
// C) multiples of 4. cudaMalloc returns 256-byte aligned memory, but a caller may pass A + 1.
inline bool float4_ok(const float* A, const float* B, const float* C, int N, int K) {
  auto aligned16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
}

// ---- Tile maps: which float4 chunk of a tile thread t loads -------------------------------------
// A tile is loaded as float4 chunks, chunk f = threadIdx.x + p * THREADS for p = 0 .. kPerThread-1.

// The A tile: BM rows x BK columns of A. It is cut into slabs 8 columns wide; in a slab two
// neighbouring threads share a row (8 floats = 32 bytes: one sector where K is a multiple of 8),
// so a warp reads 16 rows x 32 bytes: 16 whole sectors where the rows are so aligned. The same
// map also makes the transposed shared-memory store of kernels 3-5 conflict-free with PAD = 4
// (see store_tile_transposed).
template <int BM, int BK, int THREADS>
struct ATileMap {
  static_assert(BK % 8 == 0, "ATileMap: BK must be a multiple of 8 (slabs of 8 columns)");
  static_assert((BM * BK / 4) % THREADS == 0,
                "ATileMap: THREADS must divide the BM * BK / 4 float4 chunks of the A tile");
  static constexpr int kThreads = THREADS;
  static constexpr int kPerThread = BM * BK / 4 / THREADS;
  __device__ static int row(int f) { return (f % (2 * BM)) / 2; }
  __device__ static int col(int f) { return (f / (2 * BM)) * 8 + (f % 2) * 4; }
};

// The B tile: BK rows x BN columns of B, row by row; a warp reads 32 consecutive float4s of one
// row (512 bytes: 16 whole sectors where N is a multiple of 8) when BN >= 128.
template <int BK, int BN, int THREADS>
struct BTileMap {
  static_assert(BN % 4 == 0, "BTileMap: BN must be a multiple of 4 (float4 chunks)");
  static_assert((BK * BN / 4) % THREADS == 0,
                "BTileMap: THREADS must divide the BK * BN / 4 float4 chunks of the B tile");
  static constexpr int kThreads = THREADS;
  static constexpr int kPerThread = BK * BN / 4 / THREADS;
  __device__ static int row(int f) { return f / (BN / 4); }
  __device__ static int col(int f) { return (f % (BN / 4)) * 4; }
};

// Global -> registers: this thread's chunks of the tile whose top-left corner is (row0, col0) of a
// rows x cols matrix. Split from the shared-memory store so that double buffering (kernel 5) can
// issue the loads, compute, and only then store.
template <class Map, bool VEC>
__device__ __forceinline__ void load_tile(const float* __restrict__ m, int rows, int cols,
                                          int row0, int col0, float4 (&r)[Map::kPerThread]) {
#pragma unroll
  for (int p = 0; p < Map::kPerThread; ++p) {
    const int f = threadIdx.x + p * Map::kThreads;
    r[p] = load4_or_zero<VEC>(m, rows, cols, row0 + Map::row(f), col0 + Map::col(f));
  }
}

// Registers -> shared memory, in the tile's own layout: s[row][col .. col+3] as one 16-byte store
// (STS.128). A warp writes 32 float4s of 512 contiguous bytes: four wavefronts, the minimum.
template <class Map, int ROWS, int COLS>
__device__ __forceinline__ void store_tile(const float4 (&r)[Map::kPerThread],
                                           float (&s)[ROWS][COLS]) {
  static_assert(COLS % 4 == 0, "store_tile: rows of the shared tile must be whole float4s");
#pragma unroll
  for (int p = 0; p < Map::kPerThread; ++p) {
    const int f = threadIdx.x + p * Map::kThreads;
    *reinterpret_cast<float4*>(&s[Map::row(f)][Map::col(f)]) = r[p];
  }
}

// Registers -> shared memory, transposed: A[row][col .. col+3] goes down a column of
// sT[col .. col+3][row]. Four 32-bit stores per chunk (STS.32).
//
// Banks (32 banks of 4 bytes; word address w is in bank w % 32): a warp holds the chunks of 16
// consecutive rows r0 .. r0+15 (r0 a multiple of 16), two per row, at columns c and c + 4 of one
// slab. Store number j writes word (c + j) * LD + r, with LD = BM + PAD and BM a multiple of 32:
//   PAD = 0: bank r % 32. The two threads of a row hit the same bank at different addresses:
//            a 2-way conflict, every store takes two wavefronts.
//   PAD = 4: bank (4c + 4j + r) % 32, where 4c % 32 is 0 for one thread of the pair and 16 for
//            the other: 32 different banks, one wavefront. Rows of 4 * LD = 528 bytes stay
//            multiples of 16, so the LDS.128 reads along a row remain aligned.
template <class Map, int BK, int LD>
__device__ __forceinline__ void store_tile_transposed(const float4 (&r)[Map::kPerThread],
                                                      float (&sT)[BK][LD]) {
#pragma unroll
  for (int p = 0; p < Map::kPerThread; ++p) {
    const int f = threadIdx.x + p * Map::kThreads;
    const int row = Map::row(f), col = Map::col(f);
    sT[col + 0][row] = r[p].x;  // KEY: transposed on the way in
    sT[col + 1][row] = r[p].y;
    sT[col + 2][row] = r[p].z;
    sT[col + 3][row] = r[p].w;
  }
}

// ---- Shared-memory fragments -------------------------------------------------------------------

// Four consecutive floats of shared memory in one 128-bit load (LDS.128); p must be 16-byte
// aligned.
__device__ __forceinline__ float4 lds128(const float* p) {
  return *reinterpret_cast<const float4*>(p);
}

// Unpacks v into dst[at .. at+3]. With `at` a compile-time constant (unrolled loops), dst stays in
// registers: an array indexed at run time would have to live in local memory.
template <int N>
__device__ __forceinline__ void put4(float (&dst)[N], int at, float4 v) {
  dst[at + 0] = v.x;
  dst[at + 1] = v.y;
  dst[at + 2] = v.z;
  dst[at + 3] = v.w;
}

// ---- The epilogue ------------------------------------------------------------------------------

// store4_guarded (row, col .. col+3 of C, guarded, 16 bytes at once where allowed) is shared with
// the other chapters: common/device_stores.cuh.

// Writes a thread's accumulators acc[TM][TN] to C. The thread's outputs are 4 x 4 sub-blocks:
// acc[i][j] belongs to row  row0 + (i / 4) * STRIDE_M + i % 4
//                  and col  col0 + (j / 4) * STRIDE_N + j % 4.
// STRIDE_M = STRIDE_N = 4 is one dense TM x TN block (kernels 1-3); warp tiling (kernels 4-5)
// spreads the sub-blocks apart.
template <bool VEC, int STRIDE_M, int STRIDE_N, int TM, int TN>
__device__ __forceinline__ void store_acc(float* __restrict__ C, int M, int N, int row0, int col0,
                                          const float (&acc)[TM][TN]) {
  static_assert(TM % 4 == 0 && TN % 4 == 0, "store_acc: TM and TN must be multiples of 4");
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + (i / 4) * STRIDE_M + i % 4;
#pragma unroll
    for (int j = 0; j < TN; j += 4) {
      const int col = col0 + (j / 4) * STRIDE_N;
      store4_guarded<VEC>(C, M, N, row, col,
                          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
    }
  }
}

}  // namespace gemm::tiling_2d
