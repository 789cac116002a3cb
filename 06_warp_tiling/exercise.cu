// =================================================================================================
// Exercise 06 - warp tiling with WMMA: each warp reuses every fragment it loads, FM or FN times.
//
// What to do: fill in the four numbered gaps in warp_tiling_exercise_kernel below. C = A x B,
// row-major; A is M x K and B is K x N in fp16 (__half), C is fp32. A block of 4 warps computes a
// 128 x 128 tile of C, walking along K in steps of BK = 32; each warp owns a 64 x 64 warp tile of
// it, a grid of FM x FN = 4 x 4 accumulator fragments of 16 x 16. The block tiles of A and B are
// staged in shared memory for you (zero outside the matrices, rows padded by 8 halves against bank
// conflicts), and the guarded copy of the results to C is written too. The gaps are the warp tile:
//   gap 1  which warp tile of the block tile this warp owns
//   gap 2  the warp's FN fragments of B for one 16-deep slice: loaded once, used FM times
//   gap 3  per row of fragments: one fragment of A, loaded once, used FN times (mma_sync)
//   gap 4  each accumulator fragment -> the warp's scratch in shared memory (the epilogue)
// Per slice, FM + FN = 8 fragment loads feed FM x FN = 16 mma_syncs (chapter 05: 2 loads each).
// README.md explains it ("What changes since chapter 05", "1. wmma_block_tiled"); this is
// wmma_padded with 128 x 128 block tiles of 2 x 2 warps (the chapter's: 128 x 256, 2 x 4). Try
// without looking at warp_tiling.cu, then compare.
// Each gap holds a line `EXERCISE_GAP(n);`: delete it once you have written gap n, so the grader
// knows you tried. The tile loader, the copy to C and the launcher are given; do not change them.
//
// Every wmma call is made by all 32 lanes of a warp together. When you are done, the kernel must be
// correct for EVERY M, N, K >= 1, and spill nothing (-Xptxas -v). The unmodified file compiles,
// runs and fails verification. Needs a GPU of compute capability 7.0 or newer.
//
// Build and run (from the repository root):
//   cmake -S . -B build -DGEMM_EXERCISES=ON && cmake --build build --target 06_warp_tiling_exercise
//   ./build/bin/06_warp_tiling_exercise --size 1024
// Grade yourself (every awkward shape, compared with the chapter's wmma_block_tiled):
//   cmake --build build --target exercises   # the grading programs
//   ctest --test-dir build -L exercise --output-on-failure
// =================================================================================================
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"

namespace gemm::warp_tiling_exercise_impl {

namespace wmma = nvcuda::wmma;

constexpr int kFrag = 16;  // every fragment is m16 n16 k16: fp16 in, fp32 accumulate
using FragA = wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, __half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, __half, wmma::row_major>;
using FragC = wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float>;

// Given: copies the ROWS x COLS tile of the rows x cols row-major matrix m whose first element is
// (row0, col0) into shared memory, zero where it hangs over the edge of m (zeros add nothing, so
// any M, N, K works, K < BK included). Element e = threadIdx.x + p * THREADS: a warp reads 32
// consecutive halves of a row. LD >= COLS: the padded row length of the shared tile.
template <int THREADS, int ROWS, int COLS, int LD>
__device__ __forceinline__ void load_tile_or_zero(__half (&tile)[ROWS][LD],
                                                  const __half* __restrict__ m, int rows, int cols,
                                                  int row0, int col0) {
  static_assert((ROWS * COLS) % THREADS == 0 && LD >= COLS, "THREADS must divide the tile");
#pragma unroll 8
  for (int p = 0; p < ROWS * COLS / THREADS; ++p) {
    const int e = threadIdx.x + p * THREADS, r = e / COLS, c = e % COLS;
    const bool inside = row0 + r < rows && col0 + c < cols;
    tile[r][c] = inside ? m[(row0 + r) * cols + col0 + c] : __float2half(0.0f);  // KEY: zero fill
  }
}

template <int BM, int BN, int BK, int WM, int WN, int PAD>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN))
    warp_tiling_exercise_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                                float* __restrict__ C, int M, int N, int K) {
  constexpr int kWarpsN = BN / WN;  // warp tiles across the block tile
  constexpr int THREADS = 32 * (BM / WM) * kWarpsN;
  constexpr int FM = WM / kFrag, FN = WN / kFrag;  // fragments per warp tile: 4 x 4
  constexpr int LDA = BK + PAD, LDB = BN + PAD;    // row lengths of the shared tiles
  static_assert(BM % WM == 0 && BN % WN == 0, "WM must divide BM and WN must divide BN");
  static_assert(WM % kFrag == 0 && WN % kFrag == 0 && BK % kFrag == 0,
                "WM, WN and BK must be multiples of 16 (whole WMMA fragments)");
  static_assert(PAD % 8 == 0, "PAD must be a multiple of 8 halves (16-byte rows, a legal ldm)");

  __shared__ __align__(128) __half As[BM][LDA];  // [BM][BK + PAD]  block rows, k0.. of A
  __shared__ __align__(128) __half Bs[BK][LDB];  // [BK][BN + PAD]  k0.., block columns of B
  static_assert(sizeof(As) >= (THREADS / 32) * kFrag * kFrag * sizeof(float),
                "As must hold a 16 x 16 float scratch per warp for the epilogue");

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

  // ---- Gap 1: this warp's tile ------------------------------------------------------------------
  // The block tile is a (BM / WM) x (BN / WN) grid of warp tiles, numbered row by row (kWarpsN per
  // row). Set wrow and wcol to the first row and column, inside the block tile, of warp `warp`'s.
  // KEY: (wrow, wcol) is the corner of this warp's WM x WN tile; every later index starts there.
  int wrow = 0, wcol = 0;
  EXERCISE_GAP(1);  // delete this line when you have written gap 1

  FragC acc[FM][FN];  // [WM/16][WN/16]  the warp tile of C: 8 floats per lane per fragment
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tile_or_zero<THREADS, BM, BK>(As, A, M, K, block_row, k0);
    load_tile_or_zero<THREADS, BK, BN>(Bs, B, K, N, k0, block_col);
    __syncthreads();  // KEY: both tiles are complete before any warp reads them

#pragma unroll
    for (int kk = 0; kk < BK; kk += kFrag) {  // one 16-deep slice of the tiles
      // ---- Gap 2: the B fragments of this slice -------------------------------------------------
      // Declare `FragB b[FN];` and load the FN fragments of B this warp needs for k = kk .. kk+15:
      // side by side in Bs, from rows kk.., the first at the warp's first column. A fragment's
      // pointer is its top-left element; ldm is the row length of the shared tile. (Every such
      // pointer is 32-byte aligned and every ldm a multiple of 8: WMMA's memory rule holds.)
      EXERCISE_GAP(2);  // delete this line when you have written gap 2

      // ---- Gap 3: one A fragment at a time, each against every b[j] -----------------------------
      // For each of the FM rows of fragments i: load the A fragment of rows wrow + 16 i.. and
      // columns kk.. of As into one FragA, then accumulate its product with every b[j] into
      // acc[i][j]. Keep one FragA, not FM: registers are the limit (README.md, "Registers").
      EXERCISE_GAP(3);  // delete this line when you have written gap 3
    }
    __syncthreads();  // KEY: every warp is done reading before the next tiles overwrite them
  }

  // The tiles are free now (the loop ended on a barrier): As becomes a 16 x 16 float scratch per
  // warp. The layout of an accumulator in the lanes is unspecified, so a fragment can reach C
  // element by element, with bounds checks, only through memory.
  float* scratch = reinterpret_cast<float*>(&As[0][0]) + warp * kFrag * kFrag;  // [16][16]
#pragma unroll
  for (int i = 0; i < FM; ++i) {
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      // ---- Gap 4: fragment (i, j) -> scratch ----------------------------------------------------
      // Store acc[i][j] to scratch as a row-major 16 x 16 tile (ldm = 16).
      EXERCISE_GAP(4);  // delete this line when you have written gap 4

      __syncwarp();  // KEY: the whole fragment is in scratch before any lane reads it
#pragma unroll
      for (int h = 0; h < kFrag * kFrag / 32; ++h) {  // given: the guarded copy to C
        const int e = lane + 32 * h;  // element e of the fragment: row e / 16, column e % 16
        const int row = block_row + wrow + i * kFrag + e / kFrag;
        const int col = block_col + wcol + j * kFrag + e % kFrag;
        if (row < M && col < N) C[row * N + col] = scratch[e];
      }
      __syncwarp();  // KEY: every lane has read it before the next fragment overwrites it
    }
  }
}

// Given: 128 x 128 block tiles of 2 x 2 warps of 64 x 64 (4 x 4 fragments: 128 accumulator
// registers per lane), BK = 32 (two slices per barrier), rows padded by 8 halves (README.md,
// "2. wmma_padded"). 18944 bytes of shared memory. The grid covers C (x: columns, y: rows).
void launch_exercise(const __half* A, const __half* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 64, kPad = 8;
  constexpr int kThreads = 32 * (kBM / kWM) * (kBN / kWN);  // 128
  const dim3 grid(ceil_div(N, kBN), ceil_div(M, kBM));
  warp_tiling_exercise_kernel<kBM, kBN, kBK, kWM, kWN, kPad>
      <<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());  // a bad launch configuration fails here, loudly
}

}  // namespace gemm::warp_tiling_exercise_impl

GEMM_EXERCISE_EXPORT(warp_tiling, warp_tiling_exercise_impl::launch_exercise)
