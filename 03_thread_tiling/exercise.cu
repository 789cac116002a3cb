// =================================================================================================
// Exercise 03 - thread tiling: each thread computes TM elements of one column of C.
//
// What to do: fill in the four numbered gaps in thread_tiling_exercise_kernel below. A block of
// (BM / TM) * BN threads computes a BM x BN tile of C = A x B (row-major; A is M x K, B is K x N),
// walking along K in steps of BK. Thread `tid` owns column `col` of the block tile and the TM rows
// row0 .. row0 + TM-1 (given below). Chapter 02's barriers are given; the new part is the inner
// loop, where ONE value of B, loaded once into a register, serves all TM running sums.
// README.md of this chapter explains it ("What changes since chapter 02", "Who computes what");
// try without looking at thread_tiling.cu, then compare.
// Each gap holds a line `EXERCISE_GAP(n);`: delete it once you have written gap n, so the grader
// knows you tried. The launcher is written for you; do not change it.
//
// When you are done, the kernel must be correct for EVERY M, N, K >= 1 (1 x 1 x 1, primes, one
// off a multiple of BM, BN or BK). The unmodified file compiles, runs and fails verification.
// Check that acc stayed in registers ("0 bytes stack frame"):
//   nvcc -arch=sm_90 -O3 -std=c++17 -I. -Xptxas -v -c 03_thread_tiling/exercise.cu -o /dev/null
//
// Build and run (from the repository root):
//   cmake -S . -B build -DGEMM_EXERCISES=ON
//   cmake --build build --target 03_thread_tiling_exercise
//   ./build/bin/03_thread_tiling_exercise --size 1024
// Grade yourself: your kernel on every awkward shape, and under compute-sanitizer (the
// chapter's own thread_tiling_tm8 is the reference solution these tests are checked with):
//   cmake --build build --target exercises    # the grading programs (every chapter's exercise)
//   ctest --test-dir build -L exercise --output-on-failure       # every exercise
//   ctest --test-dir build -R 03_thread_tiling_exercise --output-on-failure   # this one only
// =================================================================================================
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"

namespace gemm::thread_tiling_exercise_impl {

// The tiles of the chapter's headline, thread_tiling_tm8.
constexpr int BM = 64;  // rows of C per block
constexpr int BN = 64;  // columns of C per block
constexpr int BK = 16;  // steps of K per phase
constexpr int TM = 8;   // rows of C per thread (all in one column)
constexpr int kThreads = (BM / TM) * BN;     // 512
constexpr int kALoads = BM * BK / kThreads;  // elements of the A tile each thread loads: 2
constexpr int kBLoads = BK * BN / kThreads;  // elements of the B tile each thread loads: 2
static_assert(BM % TM == 0, "BM must be a multiple of TM: each thread owns TM whole rows");
static_assert(kThreads % 32 == 0 && kThreads <= 1024,
              "(BM / TM) * BN threads must be whole warps, 1024 at most");
static_assert(BN % 32 == 0, "BN must be a multiple of 32: a warp then shares one group of TM rows");
static_assert((BM * BK) % kThreads == 0, "BM * BK must be a multiple of kThreads (even A loads)");
static_assert((BK * BN) % kThreads == 0, "BK * BN must be a multiple of kThreads (even B loads)");

__global__ void __launch_bounds__(kThreads)
    thread_tiling_exercise_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                  float* __restrict__ C, int M, int N, int K) {
  // [[maybe_unused]]: until you write gap 3, nothing reads these tiles; the attribute keeps the
  // unfinished file free of warnings (you may delete it when you are done).
  [[maybe_unused]] __shared__ float As[BM][BK];  // [BM][BK]: this block's rows of A, BK of K
  [[maybe_unused]] __shared__ float Bs[BK][BN];  // [BK][BN]: BK of K, this block's columns of B

  const int tid = threadIdx.x;
  const int col = tid % BN;          // this thread's column inside the block tile
  const int row0 = (tid / BN) * TM;  // the first of its TM rows inside the block tile
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float acc[TM] = {};  // [TM]: the running sums; index it only with unrolled loop counters

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < kALoads; ++i) {
      const int e = tid + i * kThreads;  // element e of the A tile, counted row-major
      const int r = e / BK, c = e % BK;  // its place in As
      // ---- Gap 1: the guarded load of A. Which element of A is As[r][c] in this phase (block_row,
      // k0)? Outside A (row >= M or column >= K) store 0.0f, as in chapter 02. Replace the 0.0f.
      As[r][c] = 0.0f;
      EXERCISE_GAP(1);  // delete this line when you have written gap 1
    }
#pragma unroll
    for (int i = 0; i < kBLoads; ++i) {
      const int e = tid + i * kThreads;  // element e of the B tile, counted row-major
      const int r = e / BN, c = e % BN;  // its place in Bs
      // ---- Gap 2: the guarded load of B, the same way (k0, block_col). Replace the 0.0f.
      Bs[r][c] = 0.0f;
      EXERCISE_GAP(2);  // delete this line when you have written gap 2
    }
    __syncthreads();  // the tiles are complete before anyone reads them (chapter 02, barrier 1)

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // ---- Gap 3: the idea of the chapter. All TM sums of this thread need the same element of
      // Bs at this k: which one? Read it ONCE into a register (a local float), then update each
      // acc[i] with it and the A value of row row0 + i. Put `#pragma unroll` on your loop over
      // i: a fully unrolled loop with a constant trip count keeps acc[] in registers; a run-time
      // index would move it to local memory (DRAM).
      EXERCISE_GAP(3);  // delete this line when you have written gap 3
    }
    __syncthreads();  // all reads are done before the next phase overwrites (barrier 2)
  }

  const int c = block_col + col;  // the column of C this thread writes
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = block_row + row0 + i;
    // ---- Gap 4: the guarded store. Blocks at the bottom and right edges of C have threads whose
    // rows or column lie outside C: they computed sums of zeros and must not store them. Replace
    // `false` by the condition under which C[r][c] exists.
    const bool inside_c = false;
    EXERCISE_GAP(4);  // delete this line when you have written gap 4
    if (inside_c) C[r * N + c] = acc[i];  // consecutive threads: consecutive columns
  }
}

// Given: 1D blocks of kThreads threads; the grid covers C with BM x BN tiles (x: columns, y: rows).
void launch_exercise(const float* A, const float* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  const dim3 grid(ceil_div(N, BN), ceil_div(M, BM));
  thread_tiling_exercise_kernel<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());  // a bad launch configuration fails here, loudly
}

}  // namespace gemm::thread_tiling_exercise_impl

GEMM_EXERCISE_EXPORT(thread_tiling, thread_tiling_exercise_impl::launch_exercise)
