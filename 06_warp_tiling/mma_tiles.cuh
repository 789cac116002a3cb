// Device pieces shared by the two mma.sync kernels (mma_ptx.cu, mma_pipelined.cu); nvcc only.
//
//   MmaWarpTile    a warp's WM x WN tile: its ldmatrix addresses, one k16 slice of fragments,
//                  the slice's mma.sync, and the store of its accumulators to C
//
// The fragment layouts are in mma_ptx.cuh; the swizzled shared layouts in tile_helpers.cuh.
#pragma once

#include <cstdint>

#include "06_warp_tiling/mma_ptx.cuh"
#include "06_warp_tiling/tile_helpers.cuh"

namespace gemm::warp_tiling {

// Per k16 slice, the ldmatrix addresses of lane l (README.md walks through them):
//   A, x4, for m16 tile i: row  wrow + 16 i + l % 16,  k  kk + 8 (l / 16)
//       lanes 0-7: rows 0-7, k 0-7 -> a[i][0]      lanes 16-23: rows 0-7,  k 8-15 -> a[i][2]
//       lanes 8-15: rows 8-15, k 0-7 -> a[i][1]    lanes 24-31: rows 8-15, k 8-15 -> a[i][3]
//   B, x4.trans, for n8 tiles 2p and 2p+1: k row  kk + l % 16,  column  wcol + 16 p + 8 (l / 16)
//       lanes 0-7: k 0-7, n 0-7 -> b[2p][0]        lanes 16-23: k 0-7,  n 8-15 -> b[2p+1][0]
//       lanes 8-15: k 8-15, n 0-7 -> b[2p][1]      lanes 24-31: k 8-15, n 8-15 -> b[2p+1][1]
// Each group of 8 lanes reads 8 consecutive rows at the same logical chunk: the swizzle puts them
// in 8 different 16-byte bank groups, one wavefront per matrix (tile_helpers.cuh, Swizzle).
template <int BM, int BN, int BK, int WM, int WN>
struct MmaWarpTile {
  static constexpr int MT = WM / kMmaM;  // m16 tiles per warp tile
  static constexpr int NT = WN / kMmaN;  // n8 tiles per warp tile
  static_assert(WM % 16 == 0, "WM must be a multiple of 16 (m16 tiles of mma.m16n8k16)");
  static_assert(WN % 16 == 0,
                "WN must be a multiple of 16 (ldmatrix.x4.trans loads n8 tiles in pairs)");
  static_assert(BK % 16 == 0, "BK must be a multiple of 16 (k16 slices)");
  using ALayout = Swizzle<BK>;  // BK = 32: 64-byte rows
  using BLayout = Swizzle<BN>;  // BN a multiple of 64
  using Acc = float[MT][NT][4];  // 4 fp32 accumulators per lane per 16 x 8 tile
  using FragsA = uint32_t[MT][4];  // A fragments of one slice, 2 halves per register
  using FragsB = uint32_t[NT][2];  // B fragments of one slice

  int wrow, wcol;                   // the warp tile's first row and column in the block tile
  int a_row, a_col, b_row, b_col;  // this lane's ldmatrix row, within the block tile

  // Lane `lane`'s ldmatrix row of slice 0 and tile 0, relative to the warp tile (the table above).
  // __host__ too: scripts/docs/diagram_constants.cu draws the chapter's ldmatrix picture from them.
  __host__ __device__ static constexpr int lane_a_row(int lane) { return lane % 16; }
  __host__ __device__ static constexpr int lane_a_col(int lane) { return (lane / 16) * 8; }
  __host__ __device__ static constexpr int lane_b_row(int lane) { return lane % 16; }
  __host__ __device__ static constexpr int lane_b_col(int lane) { return (lane / 16) * 8; }

  __device__ MmaWarpTile(int warp_row, int warp_col) : wrow(warp_row), wcol(warp_col) {
    const int lane = threadIdx.x % 32;
    a_row = wrow + lane_a_row(lane);  // A: + 16 i
    a_col = lane_a_col(lane);         // A: + kk
    b_row = lane_b_row(lane);         // B: + kk
    b_col = wcol + lane_b_col(lane);  // B: + 16 p
  }

  // The fragments of slice kk (0, 16, ...) of the stage at shared addresses As_s, Bs_s.
  __device__ __forceinline__ void load(FragsA& a, FragsB& b, uint32_t As_s, uint32_t Bs_s,
                                       int kk) const {
#pragma unroll
    for (int i = 0; i < MT; ++i)
      ldmatrix_x4(a[i], As_s + 2 * ALayout::offset(a_row + 16 * i, kk + a_col));  // KEY
#pragma unroll
    for (int p = 0; p < NT / 2; ++p)
      ldmatrix_x4_trans(b[2 * p][0], b[2 * p][1], b[2 * p + 1][0], b[2 * p + 1][1],
                        Bs_s + 2 * BLayout::offset(kk + b_row, b_col + 16 * p));  // KEY
  }

  // The same loads with the lane's addresses worked out once, before the K loop (kernel 6). The
  // swizzle key of a row depends only on the row modulo 8 (B) or on (row / 2) modulo 4 (A), and
  // 16 more rows leave it unchanged. So A's m16 tile i is 16 i rows below tile 0 (a constant), and
  // B's slice q is 16 q rows below slice 0 (a constant): what is left per lane is one A offset per
  // slice and one B offset per pair of n8 tiles. In the loop an address is then a register plus
  // the stage's base (the same for the whole warp) plus a constant: no address arithmetic.
  struct Offsets {
    uint32_t a[BK / 16];  // [slices]      byte offset of this lane's A row for slice q, tile 0
    uint32_t b[NT / 2];   // [pairs of n8]  byte offset of this lane's B row for pair p, slice 0
  };
  __device__ Offsets offsets() const {
    static_assert(ALayout::kChunks == 4 && BLayout::kChunks % 8 == 0,
                  "Offsets assumes the swizzles of a 32-half A row and a 64k-half B row");
    Offsets o;
#pragma unroll
    for (int q = 0; q < BK / 16; ++q) o.a[q] = 2 * ALayout::offset(a_row, 16 * q + a_col);
#pragma unroll
    for (int p = 0; p < NT / 2; ++p) o.b[p] = 2 * BLayout::offset(b_row, b_col + 16 * p);
    return o;
  }
  // Slice q of the stage at As_s, Bs_s: the same fragments as load(..., 16 * q).
  __device__ __forceinline__ static void load(FragsA& a, FragsB& b, uint32_t As_s, uint32_t Bs_s,
                                              const Offsets& o, int q) {
#pragma unroll
    for (int i = 0; i < MT; ++i) ldmatrix_x4(a[i], As_s + o.a[q] + 2 * 16 * i * BK);  // KEY
#pragma unroll
    for (int p = 0; p < NT / 2; ++p)
      ldmatrix_x4_trans(b[2 * p][0], b[2 * p][1], b[2 * p + 1][0], b[2 * p + 1][1],
                        Bs_s + o.b[p] + 2 * 16 * q * BN);  // KEY
  }

  // acc += a * b over one k16 slice: MT x NT mma.sync.
  __device__ __forceinline__ static void mma(Acc& acc, const FragsA& a, const FragsB& b) {
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT; ++j) mma_m16n8k16(acc[i][j], a[i], b[j]);  // KEY
  }

  // The accumulators -> C (M x N, row stride N), this block tile starting at (block_row,
  // block_col).
  // STAGE_C = false: straight from registers. Lane l holds rows g and g + 8, columns 2t and 2t + 1
  //   of every 16 x 8 tile (g = l / 4, t = l % 4): one float2 per pair, which needs every row of C
  //   to start 8-byte aligned (C aligned and N even; the launcher checks, float2_stores_ok). col
  //   is even, so col < N then means col + 1 < N. A warp's store covers 8 rows x 32 bytes: whole
  //   32-byte sectors.
  // STAGE_C = true, for any C: one warp row of the block tile at a time (WM x BN floats), the warps
  //   that own it write their accumulators into the now idle pipeline buffers (`smem`, at least
  //   SMEM_BYTES), then the whole block copies those rows out with consecutive threads on
  //   consecutive columns: every warp store is 128 contiguous bytes, whatever the alignment.
  //   Every thread of the block must call it (it has barriers).
  template <bool STAGE_C, int THREADS, int SMEM_BYTES>
  __device__ __forceinline__ void store(const Acc& acc, unsigned char* smem, float* __restrict__ C,
                                        int M, int N, int block_row, int block_col) const {
    const int lane = threadIdx.x % 32;
    const int g = lane / 4, t4 = lane % 4;
    if constexpr (!STAGE_C) {
#pragma unroll
      for (int i = 0; i < MT; ++i) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const int row = block_row + wrow + 16 * i + g;
          const int col = block_col + wcol + 8 * j + 2 * t4;
          if (col >= N) continue;
          if (row < M)
            *reinterpret_cast<float2*>(&C[static_cast<size_t>(row) * N + col]) =
                make_float2(acc[i][j][0], acc[i][j][1]);
          if (row + 8 < M)
            *reinterpret_cast<float2*>(&C[static_cast<size_t>(row + 8) * N + col]) =
                make_float2(acc[i][j][2], acc[i][j][3]);
        }
      }
    } else {
      constexpr int LDC = BN + 8;  // [WM][BN + 8]: rows 8 banks apart, conflict-free float2 writes
      static_assert(WM * LDC * 4 <= SMEM_BYTES,
                    "the staged epilogue's WM x (BN + 8) floats must fit in the pipeline buffers");
      float* Cs = reinterpret_cast<float*>(smem);
      __syncthreads();  // KEY: every warp has finished reading the last tile; the buffers are free
#pragma unroll 1
      for (int h = 0; h < BM / WM; ++h) {
        if (wrow == h * WM) {
#pragma unroll
          for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j) {
              float* at = Cs + (16 * i + g) * LDC + wcol + 8 * j + 2 * t4;
              *reinterpret_cast<float2*>(at) = make_float2(acc[i][j][0], acc[i][j][1]);
              *reinterpret_cast<float2*>(at + 8 * LDC) = make_float2(acc[i][j][2], acc[i][j][3]);
            }
        }
        __syncthreads();  // the rows are complete before anyone copies them out
        for (int e = threadIdx.x; e < WM * BN; e += THREADS) {
          const int row = block_row + h * WM + e / BN, col = block_col + e % BN;
          if (row < M && col < N)
            C[static_cast<size_t>(row) * N + col] = Cs[(e / BN) * LDC + e % BN];
        }
        __syncthreads();  // everyone has copied them before the next warp row overwrites them
      }
    }
  }
};

}  // namespace gemm::warp_tiling
