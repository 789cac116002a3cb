// =================================================================================================
// Chapter 04 - 2D thread tiling, part 2: warp tiling and double buffering.
//
// The idea: kernels 1-3 (tiling_2d.cu) give each thread a dense 8 x 8 block of C, and lay the 256
// threads out as a 16 x 16 grid. A warp (32 consecutive threads) is then 2 x 16 threads, a 16 x 128
// patch of C, and each of its LDS.128 reads of B puts 16 float4s on only 16 of the 32 banks.
// Here the block tile is first cut into warp tiles, and each lane's 8 x 8 outputs are spread over
// the warp tile as 2 x 2 sub-blocks of 4 x 4, so that every shared-memory read of a warp covers
// contiguous bytes: one wavefront per LDS.128 by the 32-bit bank rule (Nsight Compute counts 3,
// and no conflicts: README.md, section 4). Then double buffering overlaps the next tile's global
// loads with this tile's math and needs one barrier per K step instead of two.
//
// What changed since tiling_2d_transposed_a: the thread -> output map (the warp tile; kernel 4
// also takes BK = 16), then two shared-memory stages (kernel 5, which gives up its second block
// per SM for them; see its comment). The loads, the transposed As and the epilogue are the same
// helpers (tile_helpers.cuh). The warp tile and kernel 5 are in warp_tile.cuh, because
// shape_aware.cu launches kernel 5 too (with other tile sizes); this file has kernel 4 and the
// launchers of both.
// Work per thread: 64 outputs, K * 64 FMAs. Per block (256 threads): a 128 x 128 tile of C.
// Global loads per FMA: (BM + BN) / (BM * BN) = 1/64 of a float, as before. Shared loads per FMA:
// 4 LDS.128 per 64 FMAs; per warp and k, 32 + 64 = 96 floats of A and B for 2048 FMAs (kernel 3:
// 16 + 128 = 144).
//
// Preconditions: none. Any M, N, K >= 1 and any pointers (float4 only when the launcher allows).
// Build and run:  cmake --build build --target 04_2d_tiling
//                 ./build/bin/04_2d_tiling --variant tiling_2d_double_buffer
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "04_2d_tiling/tiling_2d.cuh"

#include "04_2d_tiling/warp_tile.cuh"
#include "common/cuda_check.cuh"

namespace gemm::tiling_2d {

// -------------------------------------------------------------------------------------------------
// 4. tiling_2d_warp. Changed from kernel 3: the thread -> output map (WarpTile, warp_tile.cuh) and
// BK = 16 (half as many barriers per K). Loads and stores to shared memory are as in kernel 3.
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int PAD, bool VEC>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN), kMinBlocksPerSm)
    tiling_2d_warp_kernel(const float* __restrict__ A, const float* __restrict__ B,
                          float* __restrict__ C, int M, int N, int K) {
  using Warp = WarpTile<BM, BN, WM, WN, TM, TN>;
  using AMap = ATileMap<BM, BK, Warp::kThreads>;
  using BMap = BTileMap<BK, BN, Warp::kThreads>;
  static_assert(PAD % 4 == 0, "PAD must keep rows of As whole float4s (16-byte aligned reads)");

  __shared__ __align__(16) float As[BK][BM + PAD];  // [BK][BM + PAD]  transposed, as in kernel 3
  __shared__ __align__(16) float Bs[BK][BN];        // [BK][BN]

  const int row0 = Warp::row0();
  const int col0 = Warp::col0();
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float acc[TM][TN] = {};  // [TM][TN]  as 2 x 2 sub-blocks of 4 x 4, 16 rows / 32 columns apart

  for (int k0 = 0; k0 < K; k0 += BK) {
    float4 a_chunks[AMap::kPerThread];  // [BM*BK/4/THREADS] = [2]
    float4 b_chunks[BMap::kPerThread];  // [BK*BN/4/THREADS] = [2]
    load_tile<AMap, VEC>(A, M, K, block_row, k0, a_chunks);
    load_tile<BMap, VEC>(B, K, N, k0, block_col, b_chunks);
    store_tile_transposed<AMap>(a_chunks, As);
    store_tile<BMap>(b_chunks, Bs);
    __syncthreads();
    warp_tile_step<Warp>(As, Bs, row0, col0, acc);  // KEY: conflict-free fragment reads
    __syncthreads();
  }
  // A warp's float4 store: 4 rows x 8 lanes x 16 bytes, 128 contiguous bytes of each of 4 rows.
  store_acc<VEC, Warp::kStrideM, Warp::kStrideN>(C, M, N, block_row + row0, block_col + col0,
                                                  acc);
}


// -------------------------------------------------------------------------------------------------
// Launchers: the tile sizes are chosen in tiling_2d.cuh (kernels_4_5), and only there.
// -------------------------------------------------------------------------------------------------
namespace {
using namespace kernels_4_5;  // kBM, kBN, kWM, kWN, kTM, kTN, kPad, kBKWarp, kBKDouble(Scalar)
constexpr int kThreads = WarpTile<kBM, kBN, kWM, kWN, kTM, kTN>::kThreads;
// Kernel 5's two stages, in dynamic shared memory: 33,280 and 16,640 bytes (under 48 KB, so no
// cudaFuncSetAttribute is needed).
constexpr int kSmemDouble = double_buffer_smem_bytes<kBM, kBN, kBKDouble, kPad>();
constexpr int kSmemDoubleScalar = double_buffer_smem_bytes<kBM, kBN, kBKDoubleScalar, kPad>();

dim3 grid_for(int M, int N) { return dim3(ceil_div(N, kBN), ceil_div(M, kBM)); }  // x: columns
}  // namespace

void launch_warp(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream) {
  if (float4_ok(A, B, C, N, K))
    tiling_2d_warp_kernel<kBM, kBN, kBKWarp, kWM, kWN, kTM, kTN, kPad, true>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  else
    tiling_2d_warp_kernel<kBM, kBN, kBKWarp, kWM, kWN, kTM, kTN, kPad, false>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_double_buffer(const float* A, const float* B, float* C, int M, int N, int K,
                          cudaStream_t stream) {
  if (float4_ok(A, B, C, N, K))
    tiling_2d_double_buffer_kernel<kBM, kBN, kBKDouble, kWM, kWN, kTM, kTN, kPad, true, 1>
        <<<grid_for(M, N), kThreads, kSmemDouble, stream>>>(A, B, C, M, N, K,
                                                            ceil_div(K, kBKDouble), 0);
  else
    tiling_2d_double_buffer_kernel<kBM, kBN, kBKDoubleScalar, kWM, kWN, kTM, kTN, kPad, false,
                                   kMinBlocksPerSm>
        <<<grid_for(M, N), kThreads, kSmemDoubleScalar, stream>>>(A, B, C, M, N, K,
                                                                  ceil_div(K, kBKDoubleScalar), 0);
  GEMM_LAUNCH_CHECK();
}

std::vector<KernelResources> warp_tiling_kernels() {
  return {
      {"tiling_2d_warp",
       reinterpret_cast<const void*>(
           tiling_2d_warp_kernel<kBM, kBN, kBKWarp, kWM, kWN, kTM, kTN, kPad, true>),
       kThreads},
      {"tiling_2d_warp (scalar fallback)",
       reinterpret_cast<const void*>(
           tiling_2d_warp_kernel<kBM, kBN, kBKWarp, kWM, kWN, kTM, kTN, kPad, false>),
       kThreads},
      {"tiling_2d_double_buffer",
       reinterpret_cast<const void*>(
           tiling_2d_double_buffer_kernel<kBM, kBN, kBKDouble, kWM, kWN, kTM, kTN, kPad, true, 1>),
       kThreads, kSmemDouble},
      {"tiling_2d_double_buffer (scalar fallback)",
       reinterpret_cast<const void*>(
           tiling_2d_double_buffer_kernel<kBM, kBN, kBKDoubleScalar, kWM, kWN, kTM, kTN, kPad,
                                          false, kMinBlocksPerSm>),
       kThreads, kSmemDoubleScalar},
  };
}

}  // namespace gemm::tiling_2d
