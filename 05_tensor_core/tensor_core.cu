// =================================================================================================
// Chapter 05 - tensor cores through WMMA: one warp computes one 16 x 16 tile of C.
//
// The idea: a tensor core multiplies small matrices in one instruction. CUDA C++ exposes it per
// warp through nvcuda::wmma: the 32 lanes of a warp together load a 16 x 16 tile of A and one of B
// into "fragments" (registers spread over the warp), and one mma_sync adds their 16 x 16 x 16
// product to a 16 x 16 accumulator fragment: 4096 multiply-adds in one warp-wide call. So a warp
// walks K in steps of 16, exactly as chapter 01's thread walked K in steps of 1, and finally
// stores its accumulator to C. Inputs are fp16 (__half), the accumulator and C are fp32.
//
// What changed since chapter 04: almost everything is simpler. No register tile, no shared-memory
// tile shared by the block, no reuse between warps except what the L1 and L2 caches catch: this
// is the direct translation of the naive kernel to tensor cores, and it is slower than it should
// be on purpose (README.md: "Why this first version is slow"). Chapter 06 brings tiling back.
// Work per warp: one 16 x 16 tile of C, ceil(K / 16) mma_sync (16 * 16 * K multiply-adds, plus
// the zeros of a partial last step). Per block (4 warps, 128 threads, 2 x 2 warps): a 32 x 32
// tile of C; the warps share nothing.
// Loads per mma_sync: two fragments from global memory (or L1/L2), a 16 x 16 tile of A and one of
// B: 2 * 512 bytes for 2 * 16^3 = 8192 FLOP, 8 FLOP per byte (chapter 04, in fp32: 32 with a
// 128 x 128 block tile, 43 with the 128 x 256 tile its headline runs at 4096^3).
//
// Two paths, chosen per warp tile (the choice is the same for all 32 lanes):
//   direct  the tile lies wholly inside C, and the launcher checked that every fragment address
//           is 32-byte aligned and the row lengths are multiples of 8: load_matrix_sync reads A
//           and B straight from global memory and store_matrix_sync writes C.
//   staged  anything else (every step of an edge tile, the last, partial step when K is not a
//           multiple of 16, and every tile when a pointer is unaligned or N or K is not a
//           multiple of 8): the warp copies 16 x 16 pieces of A and B into its own
//           shared-memory staging area, zero outside the matrices, and loads the fragments from
//           there; at the end it stores the accumulator to a staging tile and copies the part
//           inside C out. Any M, N, K works.
//
//   wmma_direct         (headline) direct where possible, staged elsewhere
//   wmma_staged_always  every tile staged: the same arithmetic plus one copy per step
//
// Preconditions: none. Any M, N, K >= 1 and any pointers (an fp16 pointer is 2-byte aligned by its
// type; the direct path is taken only when the launcher has checked the stronger WMMA rule). A GPU
// of compute capability 7.0 or newer (Volta): main.cu makes the program refuse older ones.
// Build and run:  cmake --build build --target 05_tensor_core && ./build/bin/05_tensor_core
//                 ./build/bin/05_tensor_core --error-study          (CPU only, error_study.cpp)
// Reference GPU figure: see README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "05_tensor_core/tensor_core.cuh"

#include <cstdint>

#include <mma.h>

#include "common/cuda_check.cuh"
#include "common/device_info.cuh"

namespace gemm::tensor_core {

namespace wmma = nvcuda::wmma;

// The fragment shape WMMA_M x WMMA_N x WMMA_K and the block's warps: tensor_core.cuh.
constexpr int kWarpSize = 32;

// The fragment types. Which lane holds which of the 256 elements is not specified (README.md,
// "Fragments"): a kernel may only load, store, fill and mma them, or apply to every element an
// operation that does not depend on its position (acc.x[i] *= alpha).
using FragA = wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major>;
using FragC = wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float>;

// The WMMA memory rule we rely on (CUDA C++ Programming Guide, "Warp Matrix Functions":
// load_matrix_sync and store_matrix_sync): the pointer to the tile's first element must be
// 256-bit (32-byte) aligned, and ldm, the distance between rows in elements, must be a multiple
// of 8 for __half and of 4 for float (16 bytes either way). The pointer, ldm and layout must be the
// same in all lanes.
//
// Staging area of one warp. Every member starts at a multiple of 32 bytes (0, 512, 1024) and the
// struct is 32-byte aligned, so the fragment pointers into it satisfy the rule; its rows are 16
// elements long, so ldm = 16 does too.
constexpr int kStageLd = 16;
struct __align__(32) WarpStaging {
  __half a[WMMA_M][kStageLd];  // [16][16]  rows row0.., columns k0.. of A, zero outside
  __half b[WMMA_K][kStageLd];  // [16][16]  rows k0.., columns col0.. of B, zero outside
  float c[WMMA_M][kStageLd];   // [16][16]  the accumulator on its way to C
};
static_assert(kStageLd >= WMMA_K && kStageLd >= WMMA_N, "a staging row must hold a fragment row");
static_assert(kStageLd % 8 == 0,
              "ldm of an fp16 fragment must be a multiple of 8 (and 4 for fp32)");
static_assert((WMMA_M * kStageLd * sizeof(__half)) % 32 == 0,
              "WarpStaging::b and ::c must start at multiples of 32 bytes (WMMA_M, kStageLd)");
static_assert(sizeof(WarpStaging) % 32 == 0, "each warp's WarpStaging must start 32-byte aligned");
static_assert((WMMA_M * WMMA_K) % kWarpSize == 0 && (WMMA_M * WMMA_N) % kWarpSize == 0,
              "the 32 lanes must split a 16 x 16 piece evenly (WMMA_M, WMMA_N, WMMA_K)");

// Host side: may the direct path read A and B and write C with WMMA, for every tile inside C?
// A tile of A starts at A + row0 * K + k0, with row0 and k0 multiples of 16: 2 * (row0 * K + k0)
// bytes from A, a multiple of 32 for every K. The same holds for B + k0 * N + col0 and for
// C + row0 * N + col0 (4-byte floats). So the tile pointers are 32-byte aligned exactly when A, B
// and C are; and ldm is K for A, N for B and C, so K and N must be multiples of 8.
inline bool wmma_direct_ok(const __half* A, const __half* B, const float* C, int N, int K) {
  auto aligned32 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 32 == 0; };
  return K % 8 == 0 && N % 8 == 0 && aligned32(A) && aligned32(B) && aligned32(C);
}

// ---- The staged path: one warp, its own staging area, no __syncthreads ------------------------

// Copies the 16 x 16 pieces of A (rows row0.., columns k0..) and B (rows k0.., columns col0..)
// into the warp's staging area, zero outside the matrices. Element e = lane + 32 i of a piece is
// row e / 16, column e % 16: a half-warp reads 16 consecutive halves (32 bytes) of one row.
__device__ __forceinline__ void stage_inputs(const __half* __restrict__ A,
                                             const __half* __restrict__ B, int M, int N, int K,
                                             int row0, int col0, int k0, int lane,
                                             WarpStaging& st) {
  const __half zero = __float2half(0.0f);
  // KEY: write after read. The previous step's load_matrix_sync calls read this area; a lane that
  // runs ahead must not overwrite an element another lane has not read yet.
  __syncwarp();
#pragma unroll
  for (int i = 0; i < WMMA_M * WMMA_K / kWarpSize; ++i) {  // 8 elements of each piece per lane
    const int e = lane + i * kWarpSize;
    const int r = e / WMMA_K, c = e % WMMA_K;
    const int a_row = row0 + r, a_col = k0 + c;
    st.a[r][c] = (a_row < M && a_col < K) ? A[a_row * K + a_col] : zero;  // zeros: no effect
    const int b_row = k0 + r, b_col = col0 + c;
    st.b[r][c] = (b_row < K && b_col < N) ? B[b_row * N + b_col] : zero;
  }
  // KEY: read after write. Each lane wrote 8 elements of each piece; load_matrix_sync may hand
  // any element to any lane, so all writes must be visible to the whole warp first.
  __syncwarp();
}

// Stores the accumulator to the staging tile, then copies the part inside C (rows < M, columns
// < N) out: 16 consecutive floats of one row per half-warp.
__device__ __forceinline__ void store_staged(const FragC& acc, float* __restrict__ C, int M, int N,
                                             int row0, int col0, int lane, WarpStaging& st) {
  wmma::store_matrix_sync(&st.c[0][0], acc, kStageLd, wmma::mem_row_major);
  __syncwarp();  // KEY: each element was written by whichever lane held it; now any lane reads it
#pragma unroll
  for (int i = 0; i < WMMA_M * WMMA_N / kWarpSize; ++i) {
    const int e = lane + i * kWarpSize;
    const int r = e / WMMA_N, c = e % WMMA_N;
    if (row0 + r < M && col0 + c < N) C[(row0 + r) * N + col0 + c] = st.c[r][c];
  }
}

// ---- The kernel --------------------------------------------------------------------------------
// Block: WARPS_M x WARPS_N warps; warp w owns the 16 x 16 tile of C at
//   row0 = blockIdx.y * BM + (w / WARPS_N) * 16,   col0 = blockIdx.x * BN + (w % WARPS_N) * 16.
// DIRECT = false: every tile staged (wmma_staged_always, and wmma_direct when the launcher found
// the pointers or N, K unsuitable). DIRECT = true: tiles wholly inside C take the direct path.
template <int WARPS_M, int WARPS_N, bool DIRECT>
__global__ void __launch_bounds__(kWarpSize * WARPS_M * WARPS_N)
    wmma_kernel(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C,
                int M, int N, int K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
  // WMMA needs Volta (sm_70) or newer; mma.h declares nothing below that. Never launched there:
  // the program refuses such a GPU before any kernel runs (chapter.min_cc in main.cu).
  __trap();
#else
  constexpr int BM = WARPS_M * WMMA_M;  // block tile of C: 32 x 32 with 2 x 2 warps
  constexpr int BN = WARPS_N * WMMA_N;
  __shared__ WarpStaging staging[WARPS_M * WARPS_N];  // [warps]  one private area per warp

  const int warp = threadIdx.x / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  const int row0 = blockIdx.y * BM + (warp / WARPS_N) * WMMA_M;
  const int col0 = blockIdx.x * BN + (warp % WARPS_N) * WMMA_N;
  // A warp whose whole tile lies past the edge of C has nothing to do. Safe to leave: the
  // condition is the same for all its lanes, and this kernel has no __syncthreads().
  if (row0 >= M || col0 >= N) return;
  WarpStaging& st = staging[warp];

  FragA a;    // 16 x 16 of A, spread over the warp
  FragB b;    // 16 x 16 of B
  FragC acc;  // 16 x 16 of C, fp32
  wmma::fill_fragment(acc, 0.0f);

  // KEY: the path is chosen per warp tile, from values that are the same in all 32 lanes (DIRECT,
  // row0, col0, M, N, K), so the warp never splits: every wmma call below is reached by all 32
  // lanes together with the same pointer and ldm, as WMMA requires.
  const bool direct = DIRECT && row0 + WMMA_M <= M && col0 + WMMA_N <= N;
  // Direct k steps: the whole 16-wide steps. A K that is not a multiple of 16 leaves a last,
  // partial step, which takes the staged path (zeros past K), as does every step of an edge tile.
  const int k_direct = direct ? (K / WMMA_K) * WMMA_K : 0;

  for (int k0 = 0; k0 < k_direct; k0 += WMMA_K) {     // the direct path
    wmma::load_matrix_sync(a, A + row0 * K + k0, K);  // KEY: straight from global, ldm = K
    wmma::load_matrix_sync(b, B + k0 * N + col0, N);  // ldm = N
    wmma::mma_sync(acc, a, b, acc);                   // KEY: acc += a * b, 4096 multiply-adds
  }
  for (int k0 = k_direct; k0 < K; k0 += WMMA_K) {  // the staged path
    stage_inputs(A, B, M, N, K, row0, col0, k0, lane, st);
    wmma::load_matrix_sync(a, &st.a[0][0], kStageLd);
    wmma::load_matrix_sync(b, &st.b[0][0], kStageLd);
    wmma::mma_sync(acc, a, b, acc);
  }

  if (direct)
    wmma::store_matrix_sync(C + row0 * N + col0, acc, N, wmma::mem_row_major);  // ldm = N
  else
    store_staged(acc, C, M, N, row0, col0, lane, st);
#endif
}

// -------------------------------------------------------------------------------------------------
// Launchers: the block shape (kWarpsM x kWarpsN, chosen in tensor_core.cuh) becomes a grid here.
// -------------------------------------------------------------------------------------------------
namespace {
// kWarpsM x kWarpsN warps per block (tensor_core.cuh).
constexpr int kThreads = kWarpSize * kWarpsM * kWarpsN;  // 128

dim3 grid_for(int M, int N) {  // x: columns, y: rows, as in every chapter
  return dim3(ceil_div(N, kWarpsN * WMMA_N), ceil_div(M, kWarpsM * WMMA_M));
}
}  // namespace

void launch_wmma_direct(const __half* A, const __half* B, float* C, int M, int N, int K,
                        cudaStream_t stream) {
  if (wmma_direct_ok(A, B, C, N, K))
    wmma_kernel<kWarpsM, kWarpsN, true><<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  else  // the WMMA memory rule cannot hold for any tile: every tile staged
    wmma_kernel<kWarpsM, kWarpsN, false><<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_wmma_staged_always(const __half* A, const __half* B, float* C, int M, int N, int K,
                               cudaStream_t stream) {
  wmma_kernel<kWarpsM, kWarpsN, false><<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

std::vector<Variant> variants() {
  return {
      {"wmma_direct", nullptr, launch_wmma_direct,
       "one warp per 16x16 tile of C; fragments straight from global memory, staged at the edges"},
      {"wmma_staged_always", nullptr, launch_wmma_staged_always,
       "the same, but every tile copied through shared memory first: the cost of the copy"},
  };
}

void print_resources() {
  print_kernel_resources({
      {"wmma_direct (tiles inside C)",
       reinterpret_cast<const void*>(wmma_kernel<kWarpsM, kWarpsN, true>), kThreads},
      {"wmma_staged_always (and edges)",
       reinterpret_cast<const void*>(wmma_kernel<kWarpsM, kWarpsN, false>), kThreads},
  });
}

}  // namespace gemm::tensor_core
