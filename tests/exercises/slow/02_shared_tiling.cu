// =================================================================================================
// A deliberately slow but correct answer to exercise 02 (02_shared_tiling/exercise.cu), kept for
// the grader's self-test: `scripts/run/grade.sh --selftest` (docs/instructors.md, section 8) must
// grade it "correct but slow", not "passed" and not "failed". Do not make it faster.
//
// It is what a student might hand in who skipped the chapter's idea: no shared memory, one thread
// per element of C, and the thread index on the wrong axis. Inside the block's 32 x 32 tile,
// threadIdx.x walks down a column of C, so a warp (32 consecutive threadIdx.x) reads 32 different
// rows of A, K floats apart, and stores to 32 rows of C: 32 memory transactions where one would do.
// Chapter 01's naive_uncoalesced has the same mapping (in 32 x 8 blocks) and takes 34.8 ms at
// 2048^3 on the H200, against 1.86 ms for shared_tiling_32 (docs/figures/results.csv): about
// 0.05x, ten times below the default threshold of 0.5x, far beyond any GPU's noise. It is still
// right for every M, N, K (guarded store, no barriers to get wrong), and the launcher is the
// skeleton's, unchanged.
//
// Built only with -DGEMM_EXERCISE_SELFTEST=ON, as the kernel of the programs
// 02_shared_tiling_slow_* (tests/exercises/CMakeLists.txt: every tests/exercises/slow/NN_name.cu
// gets them).
// =================================================================================================
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"

namespace gemm::shared_tiling_exercise_impl {

constexpr int TILE = 32;  // the skeleton's tile: the launcher below is its, unchanged
static_assert(TILE * TILE <= 1024, "TILE * TILE threads must fit in one block (1024 at most)");

__global__ void shared_tiling_exercise_kernel(const float* __restrict__ A,
                                              const float* __restrict__ B, float* __restrict__ C,
                                              int M, int N, int K) {
  // KEY: the slow part. x and y swapped inside the tile: threadIdx.x picks the row.
  const int row = blockIdx.y * TILE + threadIdx.x;
  const int col = blockIdx.x * TILE + threadIdx.y;
  if (row >= M || col >= N) return;  // no barrier in this kernel, so returning early is safe

  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];  // A: 32 rows per warp
  C[row * N + col] = acc;                                              // 32 rows per warp again
}

// The skeleton's launcher: the block is the tile, the grid covers C (x: columns, y: rows).
void launch_exercise(const float* A, const float* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  const dim3 block(TILE, TILE);
  const dim3 grid(ceil_div(N, TILE), ceil_div(M, TILE));
  shared_tiling_exercise_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace gemm::shared_tiling_exercise_impl

GEMM_EXERCISE_EXPORT(shared_tiling, shared_tiling_exercise_impl::launch_exercise)
