// =================================================================================================
// Exercise 01 - naive: write the one-thread-per-element kernel yourself.
//
// What to do: fill in the three numbered gaps in naive_exercise_kernel below. Each thread of the
// grid computes ONE element of C = A x B (row-major; A is M x K, B is K x N, C is M x N) with a
// running sum in a register. README.md of this chapter explains everything you need ("The kernel"
// and "Coalescing"); try without looking at naive.cu, then compare.
// Each gap holds a line `EXERCISE_GAP(n);`: delete it once you have written gap n, so the grader
// knows you tried. The launcher (block and grid shape) is written for you; do not change it.
//
// When you are done, the kernel must be correct for EVERY M, N, K >= 1: 1 x 1 x 1, primes, sizes
// one off a multiple of the block. The unmodified file compiles, runs and fails verification.
//
// Build and run (from the repository root):
//   cmake -S . -B build -DGEMM_EXERCISES=ON && cmake --build build --target 01_naive_exercise
//   ./build/bin/01_naive_exercise --size 1024          # verified and timed, like the chapter
//   ./build/bin/01_naive_exercise --m 67 --n 45 --k 39 # an awkward shape
// Grade yourself: your kernel on every awkward shape, and under compute-sanitizer (the
// chapter's own naive_coalesced is the reference solution these tests are checked with):
//   cmake --build build --target exercises    # the grading programs (every chapter's exercise)
//   ctest --test-dir build -L exercise --output-on-failure       # every exercise
//   ctest --test-dir build -R 01_naive_exercise --output-on-failure   # this one only
// =================================================================================================
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"

namespace gemm::naive_exercise_impl {

// Threads per block. x is 32 wide so that one warp is exactly one row of the block: the 32
// threads with the same threadIdx.y and threadIdx.x = 0..31.
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
static_assert(kBlockX % 32 == 0,
              "kBlockX must be a multiple of 32: each warp then lies in one row of the block");
static_assert(kBlockX * kBlockY <= 1024, "kBlockX * kBlockY threads must fit in one block");

__global__ void naive_exercise_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
  // ---- Gap 1: which element of C belongs to this thread? ------------------------------------
  // The launcher covers C with a grid of blocks: blockIdx.x counts blocks of kBlockX columns,
  // blockIdx.y blocks of kBlockY rows. Turn (blockIdx, threadIdx) into a global column and row.
  // Which thread index goes with columns, and which with rows, is the lesson of the chapter.
  // The 32 threads of a warp differ only in threadIdx.x: for each choice, count the 32-byte
  // sectors that one warp-wide load of A, load of B and store of C touch (README.md,
  // "Coalescing"), and pick the choice that touches fewer.
  // Replace both 0s.
  const int col = 0;
  const int row = 0;
  EXERCISE_GAP(1);  // delete this line when you have written gap 1

  // ---- Gap 2: threads that have no element of C ---------------------------------------------
  // The grid is rounded up to whole blocks, so unless M is a multiple of kBlockY and N of
  // kBlockX, some threads fall outside C. They must not read A or B or write C. Nothing later
  // in this kernel waits for other threads, so such a thread may simply leave now.
  // (Chapter 02 adds barriers, and there an early exit becomes a bug.)
  EXERCISE_GAP(2);  // delete this line when you have written gap 2

  // ---- Gap 3: the dot product ---------------------------------------------------------------
  // Accumulate the K products of row `row` of A and column `col` of B into acc. In a row-major
  // R x S matrix, element (i, j) is at index i * S + j: think about which of M, N, K is the row
  // length of A and which of B. Keep the sum in acc (a register), not in C: chapter 00's step 2
  // and this chapter's naive_global_accumulate show what a sum in memory costs.
  float acc = 0.0f;  // the running sum, in a register
  EXERCISE_GAP(3);  // delete this line when you have written gap 3

  C[row * N + col] = acc;  // one store per thread, at the end
}

// Given: one thread per element of C, blocks of kBlockX x kBlockY threads, grid rounded up.
void launch_exercise(const float* A, const float* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceil_div(N, kBlockX), ceil_div(M, kBlockY));  // x covers columns, y rows
  naive_exercise_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());  // a bad launch configuration fails here, loudly
}

}  // namespace gemm::naive_exercise_impl

GEMM_EXERCISE_EXPORT(naive, naive_exercise_impl::launch_exercise)
