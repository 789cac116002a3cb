// =================================================================================================
// Exercise 02 - shared tiling: stage tiles of A and B in shared memory, with both barriers.
//
// What to do: fill in the five numbered gaps in shared_tiling_exercise_kernel below. A block of
// TILE x TILE threads computes a TILE x TILE tile of C = A x B (row-major; A is M x K, B is K x N),
// one element per thread, walking along K in phases of TILE. In each phase every thread copies one
// element of A and one of B into shared memory; then the block computes from those copies.
// README.md of this chapter explains it ("What changes since chapter 01", "Two barriers, two
// races", and the worked example); try without looking at shared_tiling.cu, then compare.
// Each gap holds a line `EXERCISE_GAP(n);`: delete it once you have written gap n, so the grader
// knows you tried. The launcher is written for you; do not change it.
//
// When you are done, the kernel must be correct for EVERY M, N, K >= 1 (1 x 1 x 1, primes, one
// off a multiple of TILE) and free of races. The unmodified file compiles, runs and fails
// verification. A missing barrier may pass at one size and fail at the next; racecheck finds it:
//   compute-sanitizer --tool racecheck build/bin/02_shared_tiling_exercise --size 100 --no-baseline
//
// Build and run (from the repository root):
//   cmake -S . -B build -DGEMM_EXERCISES=ON
//   cmake --build build --target 02_shared_tiling_exercise
//   ./build/bin/02_shared_tiling_exercise --size 1024
// Grade yourself: your kernel on every awkward shape, and under compute-sanitizer (the
// chapter's own shared_tiling_32 is the reference solution these tests are checked with):
//   cmake --build build --target exercises    # the grading programs (every chapter's exercise)
//   ctest --test-dir build -L exercise --output-on-failure       # every exercise
//   ctest --test-dir build -R 02_shared_tiling_exercise --output-on-failure   # this one only
// =================================================================================================
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"

namespace gemm::shared_tiling_exercise_impl {

constexpr int TILE = 32;  // the same tile as the chapter's headline, shared_tiling_32
static_assert(TILE * TILE <= 1024, "TILE * TILE threads must fit in one block (1024 at most)");
static_assert((TILE * TILE) % 32 == 0, "TILE * TILE threads must be whole warps of 32");

__global__ void shared_tiling_exercise_kernel(const float* __restrict__ A,
                                              const float* __restrict__ B, float* __restrict__ C,
                                              int M, int N, int K) {
  // [[maybe_unused]]: until you write gap 4, nothing reads these tiles; the attribute keeps the
  // unfinished file free of warnings (you may delete it when you are done).
  [[maybe_unused]] __shared__ float As[TILE][TILE];  // [TILE][TILE]: block's rows of A, TILE of K
  [[maybe_unused]] __shared__ float Bs[TILE][TILE];  // [TILE][TILE]: TILE of K, block's cols of B

  const int tx = threadIdx.x;              // column inside the tile
  const int ty = threadIdx.y;              // row inside the tile
  const int row = blockIdx.y * TILE + ty;  // this thread's element of C
  const int col = blockIdx.x * TILE + tx;
  // No early return here, even for threads outside C: every thread must load its share of the
  // tiles and reach every barrier of the block.

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {  // one phase per TILE columns of A (rows of B)
    // ---- Gap 1: stage one element of A ------------------------------------------------------
    // As holds rows blockIdx.y * TILE .. + TILE-1 of A, columns k0 .. k0 + TILE-1. Which element
    // of A belongs in As[ty][tx]? Use tx along the row, so a warp reads consecutive addresses.
    // If it lies outside A (past row M-1 or past column K-1), store 0.0f: a zero adds nothing to
    // the sum, so the inner loop below needs no bounds check at all. Replace the 0.0f.
    As[ty][tx] = 0.0f;
    EXERCISE_GAP(1);  // delete this line when you have written gap 1

    // ---- Gap 2: stage one element of B ------------------------------------------------------
    // Bs holds rows k0 .. k0 + TILE-1 of B, columns blockIdx.x * TILE .. + TILE-1. The same
    // questions: which element, and what when it lies outside B? Replace the 0.0f.
    Bs[ty][tx] = 0.0f;
    EXERCISE_GAP(2);  // delete this line when you have written gap 2

    // ---- Gap 3: the first barrier -----------------------------------------------------------
    // Your next step reads TILE elements of As and TILE of Bs, all but two written by other
    // threads: those of Bs by threads of other warps, which run on their own schedule, and those
    // of As by the rest of your own warp, which need not run in step with you either. What must
    // happen before anyone reads?
    EXERCISE_GAP(3);  // delete this line when you have written gap 3

    // ---- Gap 4: compute from shared memory --------------------------------------------------
    // Add this phase's TILE products to acc: row ty of As times column tx of Bs. Every operand
    // now comes from shared memory, none from global memory. TILE is a compile-time constant,
    // so `#pragma unroll` on your loop lets the compiler unroll it completely.
    EXERCISE_GAP(4);  // delete this line when you have written gap 4

    // ---- Gap 5: the second barrier ----------------------------------------------------------
    // The next phase overwrites As and Bs (gaps 1 and 2). What if a fast warp gets there while a
    // slow warp is still in gap 4? Which shapes can never show this bug, whatever the timing?
    EXERCISE_GAP(5);  // delete this line when you have written gap 5
  }
  if (row < M && col < N) C[row * N + col] = acc;  // only threads inside C store
}

// Given: the block is the tile (TILE x TILE threads), the grid covers C (x: columns, y: rows).
void launch_exercise(const float* A, const float* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  const dim3 block(TILE, TILE);
  const dim3 grid(ceil_div(N, TILE), ceil_div(M, TILE));
  shared_tiling_exercise_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());  // a bad launch configuration fails here, loudly
}

}  // namespace gemm::shared_tiling_exercise_impl

GEMM_EXERCISE_EXPORT(shared_tiling, shared_tiling_exercise_impl::launch_exercise)
