// =================================================================================================
// Exercise 04 - 2D register tiles: each thread computes a TM x TN block of C by outer products.
//
// What to do: fill in the three numbered gaps in tiling_2d_exercise_kernel below. A block of 256
// threads computes a 128 x 128 tile of C = A x B (row-major; A is M x K, B is K x N); each thread
// owns an 8 x 8 block of it and keeps those 64 sums in registers. The block walks along K in steps
// of BK = 8: the tiles of A and B are copied to shared memory for you (zero outside the matrices),
// and the guarded store of the results is written too. What is missing is the chapter's idea: per
// k, a column of TM values of A and a row of TN values of B go into registers (gaps 1 and 2), and
// every one of them meets every other (gap 3): TM x TN FMAs for TM + TN shared-memory loads.
// README.md of this chapter explains it (section 1, "The outer product: a 2D register tile");
// try without looking at tiling_2d.cu, then compare with tiling_2d_basic there.
// Each gap holds a line `EXERCISE_GAP(n);`: delete it once you have written gap n, so the grader
// knows you tried. The tile loader, the store and the launcher are given; do not change them.
//
// When you are done, the kernel must be correct for EVERY M, N, K >= 1 (1 x 1 x 1, primes, one off
// a multiple of 128 or of 8). The unmodified file compiles, runs and fails verification (C is 0).
// Check that nothing spilled: a register array indexed by anything but the counter of a fully
// unrolled loop lives in local memory (the program prints `local B/thread` for the chapter's
// kernels; for yours, run the nvcc line at the top of README.md, which has -Xptxas -v, on
// 04_2d_tiling/exercise.cu instead of tiling_2d.cu; section 1 reads its output).
//
// Build and run (from the repository root):
//   cmake -S . -B build -DGEMM_EXERCISES=ON && cmake --build build --target 04_2d_tiling_exercise
//   ./build/bin/04_2d_tiling_exercise --size 1024
// Grade yourself (every awkward shape, compared with the chapter's tiling_2d_basic):
//   cmake --build build --target exercises   # the grading programs
//   ctest --test-dir build -L exercise --output-on-failure
// =================================================================================================
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"

namespace gemm::tiling_2d_exercise_impl {

// Given: copies the ROWS x COLS tile of the rows x cols row-major matrix m whose first element is
// (row0, col0) into shared memory, 0.0f where the tile hangs over the edge of m. A zero adds
// nothing to a dot product, so the edge tiles need no other care, and K < BK works. Element
// e = threadIdx.x + p * THREADS of the tile: consecutive threads read consecutive floats of a row.
template <int THREADS, int ROWS, int COLS>
__device__ __forceinline__ void load_tile_or_zero(float (&tile)[ROWS][COLS],
                                                  const float* __restrict__ m, int rows, int cols,
                                                  int row0, int col0) {
  static_assert((ROWS * COLS) % THREADS == 0, "THREADS must divide the ROWS * COLS elements");
#pragma unroll
  for (int p = 0; p < ROWS * COLS / THREADS; ++p) {
    const int e = threadIdx.x + p * THREADS;
    const int r = e / COLS, c = e % COLS;
    const bool inside = row0 + r < rows && col0 + c < cols;
    tile[r][c] = inside ? m[(row0 + r) * cols + col0 + c] : 0.0f;  // KEY: zero outside the matrix
  }
}

// One launch bound, the block size. tiling_2d_basic also asks for two blocks per SM, which caps
// it at 128 registers per thread (README.md, section 1): try it once your kernel passes.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    tiling_2d_exercise_kernel(const float* __restrict__ A, const float* __restrict__ B,
                              float* __restrict__ C, int M, int N, int K) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "TM must divide BM and TN must divide BN");

  __shared__ float As[BM][BK];  // [BM][BK]  rows block_row.., columns k0.. of A
  __shared__ float Bs[BK][BN];  // [BK][BN]  rows k0.., columns block_col.. of B

  // KEY: this thread owns rows ty * TM .. + TM-1 and columns tx * TN .. + TN-1 of the block tile.
  const int ty = threadIdx.x / (BN / TN);  // 0 .. BM/TM - 1
  const int tx = threadIdx.x % (BN / TN);  // 0 .. BN/TN - 1
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float acc[TM][TN] = {};  // [TM][TN]  KEY: this thread's block of C, in registers

  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tile_or_zero<THREADS>(As, A, M, K, block_row, k0);
    load_tile_or_zero<THREADS>(Bs, B, K, N, k0, block_col);
    __syncthreads();  // KEY: both tiles are complete before any thread reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // ---- Gap 1: the A fragment ----------------------------------------------------------------
      // Declare a register array `float a[TM];  // [TM]` and fill it with the TM values of
      // column k of As that this thread needs: the rows of the block tile it owns (ty, above).
      // Index it only with the counter of a `#pragma unroll` loop of TM trips: with every index
      // known at compile time the array stays in registers.
      EXERCISE_GAP(1);  // delete this line when you have written gap 1

      // ---- Gap 2: the B fragment ----------------------------------------------------------------
      // The same for `float b[TN];  // [TN]`: the TN values of row k of Bs in this thread's
      // columns (tx, above). At how many different addresses does a whole warp read each fragment?
      EXERCISE_GAP(2);  // delete this line when you have written gap 2

      // ---- Gap 3: the outer product -------------------------------------------------------------
      // Every a[i] meets every b[j]: add their product to the sum of output (i, j) of this
      // thread's block. Two nested, fully unrolled loops; no shared memory is read here.
      EXERCISE_GAP(3);  // delete this line when you have written gap 3
    }
    __syncthreads();  // KEY: everyone is done reading before the next step overwrites the tiles
  }

  // Given: output (i, j) of the thread's block is C[row][col] below; store it only inside C.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = block_row + ty * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = block_col + tx * TN + j;
      if (row < M && col < N) C[row * N + col] = acc[i][j];  // KEY: guarded store
    }
  }
}

// Given: the chapter's sizes. 128 x 128 block tiles of 8 x 8 thread tiles: 16 x 16 = 256 threads;
// BK = 8 keeps the two tiles at 8 KB. The grid covers C (x: columns, y: rows).
void launch_exercise(const float* A, const float* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
  constexpr int kThreads = (kBM / kTM) * (kBN / kTN);
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "(kBM / kTM) * (kBN / kTN) threads must be whole warps, 1024 at most");
  const dim3 grid(ceil_div(N, kBN), ceil_div(M, kBM));
  tiling_2d_exercise_kernel<kBM, kBN, kBK, kTM, kTN>
      <<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());  // a bad launch configuration fails here, loudly
}

}  // namespace gemm::tiling_2d_exercise_impl

GEMM_EXERCISE_EXPORT(tiling_2d, tiling_2d_exercise_impl::launch_exercise)
