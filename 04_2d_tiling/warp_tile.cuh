// Chapter 04's warp tile and its double-buffered kernel (device code: nvcc only).
//
// warp_tiling.cu launches kernel 5 with the chapter's tile sizes; shape_aware.cu launches the same
// kernel with other tiles (128 x 256, 64 x 128, 32 x 128), or on slices of K (split-K), chosen
// from the shape. Both need the template, so it lives here rather than in one of the .cu files.
#pragma once

#include <cstddef>

#include "04_2d_tiling/tile_helpers.cuh"

namespace gemm::tiling_2d {

// -------------------------------------------------------------------------------------------------
// The warp tile: which outputs a thread owns. With the launcher's sizes (BM = BN = 128, WM = 32,
// WN = 64, TM = TN = 8):
//
//   block tile 128 x 128  =  4 x 2 warps, warp (wm, wn) = (warp / 2, warp % 2) owns the 32 x 64
//                            patch starting at row wm * 32, column wn * 64;
//   warp tile   32 x 64   =  2 x 2 sub-tiles of 16 x 32, each covered by all 32 lanes as a 4 x 8
//                            grid: lane (lm, ln) = (lane / 8, lane % 8) owns 4 x 4 outputs in each;
//   lane                  =  rows    wm*32 + {0, 16} + lm*4 + 0..3   (TM = 8)
//                            columns wn*64 + {0, 32} + ln*4 + 0..3   (TN = 8)
//
// Shared-memory reads per k (a warp, one LDS.128 each):
//   As[k][wm*32 + s*16 + lm*4 .. +3]: 4 float4s, 64 contiguous bytes, each broadcast to 8 lanes;
//   Bs[k][wn*64 + s*32 + ln*4 .. +3]: 8 float4s, 128 contiguous bytes, each broadcast to 4 lanes.
// Contiguous, so different banks: one wavefront each by the 32-bit bank rule (Nsight Compute
// counts 3 per LDS.128, with no conflicts: README.md, section 4). A dense 8 x 8 per lane (ln*8)
// would put the 8 float4s of B 32 bytes apart, on banks 0-3, 8-11, 16-19, 24-27 twice over: two
// wavefronts.
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int WM, int WN, int TM, int TN>
struct WarpTile {
  static constexpr int kWarpsM = BM / WM;                             // 4
  static constexpr int kWarpsN = BN / WN;                             // 2
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;             // 256
  static constexpr int kStrideM = WM / (TM / 4);                      // 16: between sub-blocks
  static constexpr int kStrideN = WN / (TN / 4);                      // 32
  static constexpr int kLanesN = kStrideN / 4;                        // 8 lanes across a sub-tile
  static constexpr int kLanesM = kStrideM / 4;                        // 4 lanes down
  static_assert(BM % WM == 0 && BN % WN == 0, "WM must divide BM and WN must divide BN");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "TM and TN must be multiples of 4 (4 x 4 sub-blocks)");
  static_assert(WM % (TM / 4) == 0 && WN % (TN / 4) == 0 && kStrideM % 4 == 0 &&
                    kStrideN % 4 == 0,
                "the TM/4 x TN/4 sub-tiles of a warp tile must be whole 4 x 4 sub-blocks");
  static_assert(kLanesM * kLanesN == 32,
                "(WM / (TM/4) / 4) x (WN / (TN/4) / 4) lanes must make exactly one warp");

  // This thread's first row and column in the block tile; the others are + kStride*, + 0..3.
  __device__ static int row0() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp / kWarpsN) * WM + (lane / kLanesN) * 4;  // KEY: warp row, then lane row
  }
  __device__ static int col0() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp % kWarpsN) * WN + (lane % kLanesN) * 4;  // KEY: warp column, then lane column
  }
};

// One BK-deep step on the tiles in shared memory: per k, TM/4 + TN/4 LDS.128 (4 with 8 x 8
// outputs per thread, 6 with the 128 x 256 tile's 8 x 16), then the TM x TN outer product. Shared
// by kernels 4 and 5.
template <class Warp, int BK, int LDA, int LDB, int TM, int TN>
__device__ __forceinline__ void warp_tile_step(const float (&As)[BK][LDA],
                                               const float (&Bs)[BK][LDB], int row0, int col0,
                                               float (&acc)[TM][TN]) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    float a[TM];  // [TM]  rows row0 + s * kStrideM + 0..3 (chapter's sizes: {0, 16})
    float b[TN];  // [TN]  columns col0 + s * kStrideN + 0..3 (chapter's sizes: {0, 32})
#pragma unroll
    for (int s = 0; s < TM / 4; ++s) put4(a, 4 * s, lds128(&As[k][row0 + s * Warp::kStrideM]));
#pragma unroll
    for (int s = 0; s < TN / 4; ++s) put4(b, 4 * s, lds128(&Bs[k][col0 + s * Warp::kStrideN]));
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];  // KEY: the outer product
  }
}

// -------------------------------------------------------------------------------------------------
// 5. tiling_2d_double_buffer. Changed from kernel 4: two shared-memory stages.
//
//   prologue:  tile 0 -> registers -> stage 0; barrier
//   step t:    issue the global loads of tile t+1 into registers     (they fly during the math)
//              compute on stage t % 2
//              store the registers into stage (t+1) % 2
//              barrier
//
// Kernel 4 needs two barriers per step: one after the store (no thread may read the tile before
// all of it is written) and one after the math (no thread may overwrite the tile while another
// still reads it). Here the store goes to the *other* stage, which nobody reads during step t,
// so only one barrier is left. It still guards both hazards, one step apart:
//   - read after write: stage (t+1) % 2 is written in step t and read in step t+1; the barrier
//     at the end of step t keeps a fast thread from reading it before a slow one has written it;
//   - write after read: stage (t+1) % 2 was last read in step t-1; the barrier at the end of step
//     t-1 keeps a fast thread from overwriting it in step t while a slow one still computes on it.
// Remove it and racecheck should report both (not tested on this kernel: the tests show racecheck
// catching each of these hazards in chapter 02's kernel; README.md, kernel 5).
// The price: twice the shared memory, and registers for the tile in flight (BM*BK/4/THREADS +
// BK*BN/4/THREADS float4s: 16 registers at BK = 16).
//
// Occupancy traded for work in flight: at BK = 16 this kernel needs about 160 registers per thread
// (nvcc 13.0, sm_90), so only one block of 256 threads fits on an SM (its 65536 registers would
// give one block 256 per thread; a thread may use at most 255), 8 warps instead of kernel 4's 16.
// The float4 path lets it: MIN_BLOCKS = 1 in __launch_bounds__, where kernel 4 has 2. Forcing two
// blocks caps it at 128 registers and it spills; BK = 8 fits two blocks but pays a barrier every
// 8 k. The tile sweep measured all three on the H200 at 4096^3 (tile_sweep_04.csv;
// docs/notes/04_2d_tiling.md, "Tile parameters, measured"): BK = 16 forced to two blocks spills
// and is slower; BK = 8 with two blocks is no faster than this one. Fewer warps suffice when each
// thread has 64 independent FMAs per k, 16 k steps of them between a tile's loads and their use,
// and 4 float4 loads in flight.
// The scalar fallback (N or K not a multiple of 4, unaligned pointers) is different: it issues
// four guarded 4-byte loads for each float4 (16 per thread and tile at BK = 16, where the float4
// path issues 4), and 8 warps cannot hide them: with the float4 path's sizes it fell far behind
// at odd sizes (commit a00d30b); with BK = 8 and two blocks per SM (16 warps) it keeps pace (the
// 4093^3 table of docs/notes/04_2d_tiling.md). So each path gets its own sizes (launchers).
// Shared memory: the two stages are dynamic shared memory (launch with
// double_buffer_smem_bytes<...>() bytes): 33,280 bytes with the chapter's sizes, but 49,664 for
// tiling_2d_shape_aware's 128 x 256 tile, over the 48 KB that static arrays may take. A block may
// have more only as dynamic shared memory, after cudaFuncSetAttribute raised its limit.
// SPLIT: compiled for split-K (tiling_2d_shape_aware) or not. Without it, the K-slice arithmetic
// is compiled out: at the scalar path's cap of 128 registers, that arithmetic alone made the
// kernel spill and cost it 10% at 4093^3 on the H200 (83.8% of its 4096^3 speed instead of 93%).
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int PAD>
constexpr int double_buffer_smem_bytes() {
  return 2 * BK * (BM + PAD + BN) * static_cast<int>(sizeof(float));  // As and Bs, two stages
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int PAD, bool VEC,
          int MIN_BLOCKS, bool SPLIT = false>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)  // KEY: see below
    tiling_2d_double_buffer_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K,
                                   int steps_per_split, size_t slice_floats) {
  using Warp = WarpTile<BM, BN, WM, WN, TM, TN>;
  using AMap = ATileMap<BM, BK, Warp::kThreads>;
  using BMap = BTileMap<BK, BN, Warp::kThreads>;
  static_assert(PAD % 4 == 0, "PAD must keep rows of As whole float4s (16-byte aligned reads)");

  // KEY: two stages. As[2][BK][BM + PAD] then Bs[2][BK][BN], in the dynamic shared memory.
  extern __shared__ float4 stages[];  // float4: 16-byte aligned, for the LDS.128 reads
  using ATile = float[BK][BM + PAD];
  using BTile = float[BK][BN];
  ATile* As = reinterpret_cast<ATile*>(stages);
  BTile* Bs = reinterpret_cast<BTile*>(As + 2);

  const int row0 = Warp::row0();
  const int col0 = Warp::col0();
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;
  // Which K steps: all of them, or, with split-K (tiling_2d_shape_aware), slice blockIdx.z of
  // them, whose sums go to slice blockIdx.z of the launcher's workspace.
  const int k_begin = SPLIT ? blockIdx.z * steps_per_split * BK : 0;
  const int tiles = SPLIT ? min((K - k_begin + BK - 1) / BK, steps_per_split)  // the last: fewer
                          : (K + BK - 1) / BK;  // the last zero-filled

  float acc[TM][TN] = {};             // [TM][TN]
  float4 a_chunks[AMap::kPerThread];  // [BM*BK/4/THREADS]  the next A tile, in flight
  float4 b_chunks[BMap::kPerThread];  // [BK*BN/4/THREADS]  the next B tile, in flight

  load_tile<AMap, VEC>(A, M, K, block_row, k_begin, a_chunks);
  load_tile<BMap, VEC>(B, K, N, k_begin, block_col, b_chunks);
  store_tile_transposed<AMap>(a_chunks, As[0]);
  store_tile<BMap>(b_chunks, Bs[0]);
  __syncthreads();

  for (int t = 0; t < tiles; ++t) {
    const int stage = t % 2;
    const bool has_next = t + 1 < tiles;  // the same for every thread: no divergent barrier
    if (has_next) {
      // KEY: issued now, consumed after the math: their latency hides behind BK * TM * TN FMAs.
      load_tile<AMap, VEC>(A, M, K, block_row, k_begin + (t + 1) * BK, a_chunks);
      load_tile<BMap, VEC>(B, K, N, k_begin + (t + 1) * BK, block_col, b_chunks);
    }
    warp_tile_step<Warp>(As[stage], Bs[stage], row0, col0, acc);
    if (has_next) {
      store_tile_transposed<AMap>(a_chunks, As[stage ^ 1]);
      store_tile<BMap>(b_chunks, Bs[stage ^ 1]);
    }
    __syncthreads();  // KEY: the one barrier per K step (see the comment above the kernel)
  }
  float* __restrict__ out = SPLIT ? C + blockIdx.z * slice_floats : C;  // C, or the slice's sums
  store_acc<VEC, Warp::kStrideM, Warp::kStrideN>(out, M, N, block_row + row0, block_col + col0,
                                                  acc);
}

}  // namespace gemm::tiling_2d
