// =================================================================================================
// Exercise 05 - tensor cores through WMMA: one warp computes one 16 x 16 tile of C.
//
// What to do: fill in the four numbered gaps in wmma_exercise_kernel below, using nvcuda::wmma
// (fragments of 16 x 16 x 16, fp16 inputs, fp32 accumulator). C = A x B, row-major; A is M x K and
// B is K x N in fp16 (__half), C is fp32. A block is 2 x 2 warps; each warp owns one 16 x 16 tile
// of C and walks along K in steps of 16. Everything about edges is given: in each step the warp
// copies the 16 x 16 pieces of A and B it needs into its own staging area in shared memory, zero
// outside the matrices, so that every fragment can be loaded from a 32-byte aligned address with a
// leading dimension of 16, as WMMA requires, for any M, N, K; at the end the accumulator goes
// through the same area and only the part inside C is copied to C. The gaps are the tensor core:
//   gap 1  declare the A, B and accumulator fragments, and zero the accumulator
//   gap 2  load the A and B fragments from the staging area
//   gap 3  one mma_sync: acc += a * b
//   gap 4  store the accumulator into the staging area
// README.md of this chapter explains all four ("Fragments: a matrix spread over a warp", "The
// kernel": this is its staged path); try without looking at tensor_core.cu, then compare.
// Each gap holds a line `EXERCISE_GAP(n);`: delete it once you have written gap n, so the grader
// knows you tried. The staging helpers and the launcher are given; do not change them.
//
// Every wmma call is made by all 32 lanes of the warp together, with the same arguments: never put
// one inside a branch that depends on the lane. When you are done, the kernel must be correct for
// EVERY M, N, K >= 1. The unmodified file compiles, runs and fails verification. Needs a GPU of
// compute capability 7.0 or newer.
//
// Build and run (from the repository root):
//   cmake -S . -B build -DGEMM_EXERCISES=ON && cmake --build build --target 05_tensor_core_exercise
//   ./build/bin/05_tensor_core_exercise --size 1024
// Grade yourself (every awkward shape, compared with the chapter's wmma_direct):
//   cmake --build build --target exercises   # the grading programs
//   ctest --test-dir build -L exercise --output-on-failure
// =================================================================================================
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"

namespace gemm::tensor_core_exercise_impl {

namespace wmma = nvcuda::wmma;

constexpr int kTile = 16;  // the fragment shape, m16 n16 k16, and the tile of C per warp
constexpr int kLd = 16;    // leading dimension of every staged piece: elements per row
constexpr int kWarpSize = 32;

// One warp's staging area, 1 KB. During the K loop it holds a 16 x 16 piece of A and one of B;
// after the loop the same 1 KB holds the 16 x 16 fp32 accumulator on its way to C. The pieces
// start at byte 0 and 512 of a 32-byte aligned struct, and ldm = 16 is a multiple of 8 halves and
// of 4 floats: WMMA's memory rule (README.md, "Fragments") holds for every pointer below.
struct __align__(32) WarpStage {
  __half a[kTile][kLd];  // [16][16]  A[row0 + r][k0 + c], zero outside A
  __half b[kTile][kLd];  // [16][16]  B[k0 + r][col0 + c], zero outside B
};
static_assert(sizeof(WarpStage) == kTile * kLd * sizeof(float),
              "the 16 x 16 float tile of C must fill exactly the A and B pieces (kTile, kLd)");
static_assert((kTile * kTile) % kWarpSize == 0, "32 lanes must split a 16 x 16 piece evenly");

// Given: the warp copies its 16 x 16 pieces of A (rows row0.., columns k0..) and of B (rows k0..,
// columns col0..) into st, zero outside the matrices: zeros add nothing to the sums. Lane l copies
// elements e = l + 32 i, row e / 16, column e % 16.
__device__ __forceinline__ void stage_pieces(const __half* __restrict__ A,
                                             const __half* __restrict__ B, int M, int N, int K,
                                             int row0, int col0, int k0, WarpStage& st) {
  const int lane = threadIdx.x % kWarpSize;
  __syncwarp();  // KEY: every lane has loaded the previous fragments before st is overwritten
#pragma unroll
  for (int i = 0; i < kTile * kTile / kWarpSize; ++i) {
    const int e = lane + i * kWarpSize, r = e / kTile, c = e % kTile;
    st.a[r][c] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : __float2half(0.0f);
    st.b[r][c] = (k0 + r < K && col0 + c < N) ? B[(k0 + r) * N + col0 + c] : __float2half(0.0f);
  }
  __syncwarp();  // KEY: every lane's copies are visible to the whole warp before it loads them
}

// Given: copies the 16 x 16 row-major floats at c_tile to C at (row0, col0), only what lies
// inside C. The accumulator's layout in the lanes is unspecified, hence the trip through memory.
__device__ __forceinline__ void copy_out_guarded(const float* c_tile, float* __restrict__ C, int M,
                                                 int N, int row0, int col0) {
  const int lane = threadIdx.x % kWarpSize;
  __syncwarp();  // KEY: the whole accumulator is in c_tile before any lane reads it
#pragma unroll
  for (int i = 0; i < kTile * kTile / kWarpSize; ++i) {
    const int e = lane + i * kWarpSize, r = e / kTile, c = e % kTile;
    if (row0 + r < M && col0 + c < N) C[(row0 + r) * N + col0 + c] = c_tile[r * kLd + c];
  }
}

template <int WARPS_M, int WARPS_N>
__global__ void __launch_bounds__(kWarpSize * WARPS_M * WARPS_N)
    wmma_exercise_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                         float* __restrict__ C, int M, int N, int K) {
  __shared__ WarpStage stage[WARPS_M * WARPS_N];  // [warps]  one private area per warp

  const int warp = threadIdx.x / kWarpSize;
  const int row0 = blockIdx.y * (WARPS_M * kTile) + (warp / WARPS_N) * kTile;  // this warp's
  const int col0 = blockIdx.x * (WARPS_N * kTile) + (warp % WARPS_N) * kTile;  // tile of C
  // A warp whose tile lies wholly outside C leaves. Safe: the condition is the same in all 32
  // lanes (the wmma calls need the whole warp), and no __syncthreads() follows.
  if (row0 >= M || col0 >= N) return;
  WarpStage& st = stage[warp];

  // ---- Gap 1: the fragments ---------------------------------------------------------------------
  // Declare three wmma::fragment variables, all kTile x kTile x kTile: a matrix_a and a matrix_b of
  // __half, with the layout A and B have in memory (their rows are contiguous), and an accumulator
  // of float. Then zero the accumulator (one wmma call).
  EXERCISE_GAP(1);  // delete this line when you have written gap 1

  for (int k0 = 0; k0 < K; k0 += kTile) {
    stage_pieces(A, B, M, N, K, row0, col0, k0, st);

    // ---- Gap 2: load the fragments --------------------------------------------------------------
    // All 32 lanes together load the A fragment from st.a and the B fragment from st.b: a pointer
    // to the piece's first element, and ldm, the distance between its rows in elements.
    EXERCISE_GAP(2);  // delete this line when you have written gap 2

    // ---- Gap 3: the tensor core -----------------------------------------------------------------
    // One warp-wide multiply-accumulate adds the 16 x 16 x 16 product of the two fragments to the
    // accumulator: 4096 multiply-adds in one call.
    EXERCISE_GAP(3);  // delete this line when you have written gap 3
  }

  float* c_tile = reinterpret_cast<float*>(&st);  // [16][16] floats, over the A and B pieces
  __syncwarp();  // KEY: every lane has loaded its last fragments before c_tile overwrites them

  // ---- Gap 4: the accumulator -> c_tile ---------------------------------------------------------
  // Store the accumulator to c_tile as a row-major 16 x 16 tile with ldm = kLd. (Why not straight
  // to C? A store_matrix_sync writes all 256 elements: think of a tile at the edge of C.)
  EXERCISE_GAP(4);  // delete this line when you have written gap 4

  copy_out_guarded(c_tile, C, M, N, row0, col0);
}

// Given: 2 x 2 warps per block, as in the chapter; the grid covers C (x: columns, y: rows).
void launch_exercise(const __half* A, const __half* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  constexpr int kWarpsM = 2, kWarpsN = 2;
  const dim3 grid(ceil_div(N, kWarpsN * kTile), ceil_div(M, kWarpsM * kTile));
  wmma_exercise_kernel<kWarpsM, kWarpsN>
      <<<grid, kWarpSize * kWarpsM * kWarpsN, 0, stream>>>(A, B, C, M, N, K);
  CUDA_CHECK(cudaGetLastError());  // a bad launch configuration fails here, loudly
}

}  // namespace gemm::tensor_core_exercise_impl

GEMM_EXERCISE_EXPORT(tensor_core, tensor_core_exercise_impl::launch_exercise)
