// =================================================================================================
// Chapter 04 - 2D thread tiling: each thread computes a TM x TN block of C from registers.
//
// The idea: per k step, a thread loads a column of TM values of A and a row of TN values of B
// into registers and multiplies every one with every other: an outer product, TM * TN FMAs for
// TM + TN shared-memory loads. With TM = TN = 8 that is 64 FMAs for 16 loads, where chapter 03's
// column of outputs (a 1D thread tile) reused only the B value: about one load per FMA.
//
// What changed since chapter 03: the thread tile is 2D (8 x 8), the block tile grows to 128 x 128
// (256 threads, 16 x 16), and the accumulators, fragments and tile sizes are all compile-time
// constants in fully unrolled loops, so that everything stays in registers.
// Work per thread: 64 outputs, K * 64 FMAs. Per block: a 128 x 128 tile of C.
// Global loads per FMA: a BK-deep step loads (BM + BN) * BK floats for BM * BN * BK FMAs:
// (128 + 128) / (128 * 128) = 1/64 of a float per FMA, or 32 FLOP per byte.
// Shared loads per FMA: (TM + TN) / (TM * TN) = 1/4 of a float (scalar loads: 1/4 of an LDS per
// FMA; with LDS.128, 1/16).
//
// This file holds kernels 1-3; warp_tiling.cu and warp_tile.cuh kernels 4 and 5; shape_aware.cu
// the launcher of variant 6 (kernel 5 with its tile fitted to the shape).
//   tiling_2d_basic         scalar guarded loads; As[BM][BK] as in A
//   tiling_2d_vec4          + float4 global loads and stores where alignment allows
//   tiling_2d_transposed_a  + As transposed, As[BK][BM + PAD]: both fragments read as float4s
//
// Preconditions: none. Any M, N, K >= 1 and any pointers: the edge tiles are zero-filled, the
// stores guarded, and the float4 path is only taken when the launcher has checked alignment.
// Build and run:  cmake --build build --target 04_2d_tiling && ./build/bin/04_2d_tiling
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "04_2d_tiling/tiling_2d.cuh"

#include <cstdio>

#include "04_2d_tiling/tile_helpers.cuh"
#include "common/cuda_check.cuh"

namespace gemm::tiling_2d {

// -------------------------------------------------------------------------------------------------
// 1. tiling_2d_basic. Thread (ty, tx) of a 16 x 16 block owns rows ty*TM .. +TM-1 and columns
// tx*TN .. +TN-1 of the block tile: one dense 8 x 8 block.
// The code reads shared memory one float at a time; nvcc (13.0, sm_90) merges the reads into
// LDS.128 by itself: with k unrolled, As[ty*TM + i][k .. k+3] are four consecutive floats, and so
// are Bs[k][tx*TN .. +3]. Banks, for a warp (threads ty in {2w, 2w+1}, tx in 0..15), by the
// 32-bit bank rule applied to 16-byte reads (a model: README.md, section 3):
//   As: the two ty's rows are BK * TM = 64 words apart, in the same banks: two wavefronts per
//       LDS.128 where one would do (a 2-way bank conflict);
//   Bs: 16 float4s 8 words apart share banks 0-3, 8-11, 16-19, 24-27, four to a bank: four
//       wavefronts for 256 bytes that could take two.
// Kernel 3 removes the first by the model (Nsight Compute counts kernels 1-3's load wavefronts
// alike), kernel 4 the second (the counter's conflicts drop to zero).
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), kMinBlocksPerSm)
    tiling_2d_basic_kernel(const float* __restrict__ A, const float* __restrict__ B,
                           float* __restrict__ C, int M, int N, int K) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "TM must divide BM and TN must divide BN");
  static_assert((BM * BK) % THREADS == 0, "THREADS must divide the BM * BK elements of the A tile");
  static_assert((BK * BN) % THREADS == 0, "THREADS must divide the BK * BN elements of the B tile");

  __shared__ float As[BM][BK];  // [BM][BK]  as in A
  __shared__ float Bs[BK][BN];  // [BK][BN]  as in B

  const int ty = threadIdx.x / (BN / TN);  // 0..15: which TM rows of the block tile
  const int tx = threadIdx.x % (BN / TN);  // 0..15: which TN columns
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float acc[TM][TN] = {};  // [TM][TN]  KEY: 64 accumulators in registers

  for (int k0 = 0; k0 < K; k0 += BK) {
    // Element e of a tile: consecutive threads take consecutive elements of a row (coalesced).
#pragma unroll
    for (int p = 0; p < BM * BK / THREADS; ++p) {
      const int e = threadIdx.x + p * THREADS;
      As[e / BK][e % BK] = load_or_zero(A, M, K, block_row + e / BK, k0 + e % BK);
    }
#pragma unroll
    for (int p = 0; p < BK * BN / THREADS; ++p) {
      const int e = threadIdx.x + p * THREADS;
      Bs[e / BN][e % BN] = load_or_zero(B, K, N, k0 + e / BN, block_col + e % BN);
    }
    __syncthreads();  // the tiles are complete before anyone reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM];  // [TM]  a column of the A tile
      float b[TN];  // [TN]  a row of the B tile
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[ty * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];  // KEY: the outer product
    }
    __syncthreads();  // everyone is done reading before the next tile overwrites them
  }
  store_acc<false, 4, 4>(C, M, N, block_row + ty * TM, block_col + tx * TN, acc);
}

// -------------------------------------------------------------------------------------------------
// 2. tiling_2d_vec4. Changed from kernel 1: only the global memory traffic.
//   - Each thread loads its part of the A and B tiles as float4 chunks (LDG.E.128: a quarter of
//     the load instructions) and writes them to shared memory as float4s (STS.128).
//   - The epilogue writes C in float4s.
// Both only when the launcher has checked alignment (VEC = true). Otherwise the same kernel is
// compiled with VEC = false: the same chunks, read one guarded element at a time. In the VEC
// build an edge chunk that is not wholly inside the matrix is also read element by element.
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int TM, int TN, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), kMinBlocksPerSm)
    tiling_2d_vec4_kernel(const float* __restrict__ A, const float* __restrict__ B,
                          float* __restrict__ C, int M, int N, int K) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "TM must divide BM and TN must divide BN");
  using AMap = ATileMap<BM, BK, THREADS>;
  using BMap = BTileMap<BK, BN, THREADS>;

  __shared__ __align__(16) float As[BM][BK];  // [BM][BK]  as in A; rows of BK floats, whole float4s
  __shared__ __align__(16) float Bs[BK][BN];  // [BK][BN]

  const int ty = threadIdx.x / (BN / TN);
  const int tx = threadIdx.x % (BN / TN);
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float acc[TM][TN] = {};  // [TM][TN]

  for (int k0 = 0; k0 < K; k0 += BK) {
    float4 a_chunks[AMap::kPerThread];  // [BM*BK/4/THREADS]  this thread's float4s of the A tile
    float4 b_chunks[BMap::kPerThread];  // [BK*BN/4/THREADS]
    load_tile<AMap, VEC>(A, M, K, block_row, k0, a_chunks);  // KEY: LDG.E.128 when VEC
    load_tile<BMap, VEC>(B, K, N, k0, block_col, b_chunks);
    store_tile<AMap>(a_chunks, As);
    store_tile<BMap>(b_chunks, Bs);
    __syncthreads();

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM];  // [TM]
      float b[TN];  // [TN]
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[ty * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  store_acc<VEC, 4, 4>(C, M, N, block_row + ty * TM, block_col + tx * TN, acc);  // KEY: STG.E.128
}

// -------------------------------------------------------------------------------------------------
// 3. tiling_2d_transposed_a. Changed from kernel 2: the A tile is stored transposed, As[k][m].
// A thread's TM values of A for one k are now TM consecutive floats of one row of As, read with
// TM/4 explicit LDS.128, like the TN values of B. (In kernels 1-2 nvcc had vectorized along k
// instead: as many LDS.128, but 4 k steps x 8 rows = 32 values of A live in registers at once,
// and, by the model, 2-way bank conflicts.)
// Banks, per k and warp (ty in {2w, 2w+1}, tx in 0..15), for the reads, by kernel 1's model
// (Nsight Compute counts 5 wavefronts per LDS.128 in kernels 1-3 alike: README.md, section 3):
//   As[k][ty*TM .. +3]: two float4s 8 words apart, in different banks: one wavefront.
//   Bs[k][tx*TN .. +3]: unchanged, four wavefronts (kernel 4 fixes that).
// The price is in the stores: A arrives as float4s along k and leaves as four 32-bit stores down
// a column of As. Unpadded, a warp's transposed stores conflict 2-way; PAD = 4 floats per row of
// As makes them conflict-free (store_tile_transposed in tile_helpers.cuh). We pad.
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int TM, int TN, int PAD, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), kMinBlocksPerSm)
    tiling_2d_transposed_a_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                  float* __restrict__ C, int M, int N, int K) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "TM must divide BM and TN must divide BN");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "TM and TN must be multiples of 4 (LDS.128 reads)");
  static_assert(PAD % 4 == 0, "PAD must keep rows of As whole float4s (16-byte aligned reads)");
  using AMap = ATileMap<BM, BK, THREADS>;
  using BMap = BTileMap<BK, BN, THREADS>;

  __shared__ __align__(16) float As[BK][BM + PAD];  // [BK][BM + PAD]  KEY: A transposed
  __shared__ __align__(16) float Bs[BK][BN];        // [BK][BN]

  const int ty = threadIdx.x / (BN / TN);
  const int tx = threadIdx.x % (BN / TN);
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float acc[TM][TN] = {};  // [TM][TN]

  for (int k0 = 0; k0 < K; k0 += BK) {
    float4 a_chunks[AMap::kPerThread];  // [BM*BK/4/THREADS]
    float4 b_chunks[BMap::kPerThread];  // [BK*BN/4/THREADS]
    load_tile<AMap, VEC>(A, M, K, block_row, k0, a_chunks);
    load_tile<BMap, VEC>(B, K, N, k0, block_col, b_chunks);
    store_tile_transposed<AMap>(a_chunks, As);  // KEY: A[m][k .. k+3] -> As[k .. k+3][m]
    store_tile<BMap>(b_chunks, Bs);
    __syncthreads();

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM];  // [TM]
      float b[TN];  // [TN]
#pragma unroll
      for (int q = 0; q < TM / 4; ++q) put4(a, 4 * q, lds128(&As[k][ty * TM + 4 * q]));  // KEY
#pragma unroll
      for (int q = 0; q < TN / 4; ++q) put4(b, 4 * q, lds128(&Bs[k][tx * TN + 4 * q]));
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  store_acc<VEC, 4, 4>(C, M, N, block_row + ty * TM, block_col + tx * TN, acc);
}

// -------------------------------------------------------------------------------------------------
// Launchers: the tile sizes of each variant are chosen in tiling_2d.cuh (kernels_1_3), and only
// there: 128 x 128 block tiles of 8 x 8 thread tiles, 256 threads, BK = 8.
// -------------------------------------------------------------------------------------------------
namespace {
using namespace kernels_1_3;  // kBM, kBN, kBK, kTM, kTN, kPad
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);

dim3 grid_for(int M, int N) { return dim3(ceil_div(N, kBN), ceil_div(M, kBM)); }  // x: columns
}  // namespace

void launch_basic(const float* A, const float* B, float* C, int M, int N, int K,
                  cudaStream_t stream) {
  tiling_2d_basic_kernel<kBM, kBN, kBK, kTM, kTN>
      <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_vec4(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream) {
  if (float4_ok(A, B, C, N, K))  // KEY: 16-byte loads only where every float4 is aligned
    tiling_2d_vec4_kernel<kBM, kBN, kBK, kTM, kTN, true>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  else
    tiling_2d_vec4_kernel<kBM, kBN, kBK, kTM, kTN, false>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_transposed_a(const float* A, const float* B, float* C, int M, int N, int K,
                         cudaStream_t stream) {
  if (float4_ok(A, B, C, N, K))
    tiling_2d_transposed_a_kernel<kBM, kBN, kBK, kTM, kTN, kPad, true>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  else
    tiling_2d_transposed_a_kernel<kBM, kBN, kBK, kTM, kTN, kPad, false>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

std::vector<KernelResources> thread_tiling_kernels() {
  return {
      {"tiling_2d_basic",
       reinterpret_cast<const void*>(tiling_2d_basic_kernel<kBM, kBN, kBK, kTM, kTN>), kThreads},
      {"tiling_2d_vec4",
       reinterpret_cast<const void*>(tiling_2d_vec4_kernel<kBM, kBN, kBK, kTM, kTN, true>),
       kThreads},
      {"tiling_2d_vec4 (scalar fallback)",
       reinterpret_cast<const void*>(tiling_2d_vec4_kernel<kBM, kBN, kBK, kTM, kTN, false>),
       kThreads},
      {"tiling_2d_transposed_a",
       reinterpret_cast<const void*>(
           tiling_2d_transposed_a_kernel<kBM, kBN, kBK, kTM, kTN, kPad, true>),
       kThreads},
      {"tiling_2d_transposed_a (scalar fallback)",
       reinterpret_cast<const void*>(
           tiling_2d_transposed_a_kernel<kBM, kBN, kBK, kTM, kTN, kPad, false>),
       kThreads},
  };
}

std::vector<Variant> variants() {
  const std::vector<Variant> shape_aware = shape_aware_variants();
  std::vector<Variant> list = {
      shape_aware.front(),  // the headline: kernel 5, its tiles fitted to the shape
      {"tiling_2d_double_buffer", launch_double_buffer, nullptr,
       "warp tiling + two shared-memory stages: loads overlap math, one barrier per K step"},
      {"tiling_2d_basic", launch_basic, nullptr,
       "8 x 8 outputs per thread from register outer products; scalar guarded loads"},
      {"tiling_2d_vec4", launch_vec4, nullptr,
       "+ float4 global loads and stores when pointers, N and K allow (else scalar)"},
      {"tiling_2d_transposed_a", launch_transposed_a, nullptr,
       "+ A transposed in shared memory: both fragments read as float4s"},
      {"tiling_2d_warp", launch_warp, nullptr,
       "+ warp tiling: each warp owns 32 x 64 outputs; conflict-free fragment reads"},
  };
  list.insert(list.end(), shape_aware.begin() + 1, shape_aware.end());  // each choice forced
  return list;
}

void print_resources() {
  std::vector<KernelResources> kernels = thread_tiling_kernels();
  for (const KernelResources& k : warp_tiling_kernels()) kernels.push_back(k);
  for (const KernelResources& k : shape_aware_kernels()) kernels.push_back(k);
  print_kernel_resources(kernels);
}

}  // namespace gemm::tiling_2d
