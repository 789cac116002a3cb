// Device pieces shared by chapter 07's kernels (wgmma_tma.cu, wgmma_warp_specialized.cu,
// wgmma_persistent.cuh); nvcc only.
//
//   SharedLayout   where the stages and the barriers live in shared memory
//   load_stage     one K step of A and B, by TMA, counted into the stage's barrier (one thread)
//   mma_stage      one K step of a warpgroup's 64 x BN tile: 4 wgmma m64nBNk16
//   store_tile     a warpgroup's accumulators -> C, guarded
//   tile order     which tile of C a block computes next
//   the roles      steps 2 to 5: threads of a block, registers of the producer and the consumers
// Each piece takes the block tile's size BM x BN: 128 x 256 (every kernel of the chapter), or the
// smaller tiles of wgmma_persistent, for C too small to give every SM a 128 x 256 tile. A
// warpgroup's 64 x BN accumulators are BN / 2 floats per thread (64 x BN over its 128 threads).
#pragma once

#include <cstdint>

#include "06_warp_tiling/tile_helpers.cuh"  // smem_u32, tile_grouped: chapter 06's, reused
#include "07_hopper/hopper_host.cuh"
#include "07_hopper/hopper_ptx.cuh"

namespace gemm::hopper {

using warp_tiling::smem_u32;
using warp_tiling::tile_grouped;

constexpr int kBoxABytes = kBoxM * kBK * 2;  // 8192: one 64 x 64 box of A
constexpr int kBoxBBytes = kBK * kBoxN * 2;  // 8192: one 64 x 64 box of B
constexpr int kBoxCBytes = kBoxCRows * kBoxCCols * 4;  // 8192: one 64 x 32 fp32 box of C (step 5)

// The sizes that depend on the block tile BM x BN. Each consumer warpgroup computes 64 rows of it
// with wgmma m64nBNk16, so BM / 64 warpgroups compute; the tiles the launchers use:
//   128 x 256   every kernel of the chapter (2 consumers, wgmma m64n256k16)
//   128 x 128   wgmma_persistent, C with fewer tiles (2 consumers, m64n128k16)
//    64 x 128   wgmma_persistent, C with fewer tiles still (1 consumer, m64n128k16)
template <int BM, int BN>
struct TileShape {
  static_assert(BM == 64 || BM == 128, "one or two consumer warpgroups of 64 rows");
  static_assert(BN == 128 || BN == 256, "wgmma_m64n128k16 and wgmma_m64n256k16 are wrapped");
  static constexpr int kStageABytes = BM * kBK * 2;                // 16384 (BM 128), 8192
  static constexpr int kStageBBytes = kBK * BN * 2;                // 32768 (BN 256), 16384
  static constexpr int kStageBytes = kStageABytes + kStageBBytes;  // the TMA bytes of a K step
};
constexpr int kAccs = kBN / 2;  // 128: fp32 accumulators per thread of a 64 x 256 warpgroup tile

// Shared memory of a kernel with STAGES stages of a BM x BN tile:
//   [STAGES][BM rows][64 k] A    each row 128 bytes, 128-byte swizzled by TMA (BM / 64 boxes)
//   [STAGES][BN / 64 boxes][64 k][64 n] B    each k-row of a box 128 bytes, 128-byte swizzled
//   full[STAGES], empty[STAGES]   8-byte mbarriers
// The 128-byte swizzle repeats every 1024 bytes, and wgmma's descriptors assume a tile starts at
// such a boundary (base offset 0): the stages start at the first 1024-byte boundary of the
// dynamic shared memory (the launch asks for 1 KB more than the stages need). Two A boxes of 64
// rows, one after the other, are the same bytes as one box of 128 rows would be.
template <int STAGES, int BM = kBM, int BN = kBN>
struct SharedLayout {
  static constexpr int kStageABytes = TileShape<BM, BN>::kStageABytes;
  static constexpr int kStageBBytes = TileShape<BM, BN>::kStageBBytes;
  static constexpr int kStageBytes = TileShape<BM, BN>::kStageBytes;
  static constexpr int kStagesAndBarriers = STAGES * kStageBytes + 2 * STAGES * 8;
  static constexpr int kBytes = 1024 + kStagesAndBarriers;
  // Step 5: after the barriers, at the next 1024-byte boundary, one C staging buffer per consumer
  // warpgroup: 64 rows x 64 floats, as two TMA boxes of 64 x 32 (16 KB).
  static constexpr int kStagingOffset = (kStagesAndBarriers + 1023) / 1024 * 1024;
  static constexpr int kStagingBytes = 2 * kBoxCBytes;  // per warpgroup
  static constexpr int kBytesWithStaging = 1024 + kStagingOffset + (BM / 64) * kStagingBytes;
  uint32_t base;  // shared-window address, a multiple of 1024
  __device__ explicit SharedLayout(unsigned char* raw)
      : base((smem_u32(raw) + 1023u) & ~1023u) {}
  __device__ uint32_t a(int s) const { return base + s * kStageABytes; }
  __device__ uint32_t b(int s) const { return base + STAGES * kStageABytes + s * kStageBBytes; }
  // full[s]: the stage's tiles have landed (the producer's expect_tx + the copy engine's bytes).
  __device__ uint32_t full(int s) const { return base + STAGES * kStageBytes + 8 * s; }
  // empty[s]: the consumers are done reading the stage (one arrival per consumer warp).
  __device__ uint32_t empty(int s) const { return full(STAGES) + 8 * s; }
  // Consumer warpgroup cw's C staging buffer (kernels with TMA stores only).
  __device__ uint32_t staging(int cw) const { return base + kStagingOffset + cw * kStagingBytes; }
};

// One K step into stage s: the BM / 64 A boxes (rows m0 + 64 a .., k k0..) and the BN / 64 B
// boxes (k k0.., columns n0 + 64 b ..), all counted into full(s). Executed by a single thread.
// In a cluster of CLUSTER blocks stacked along M (step 4), the blocks share their columns of C,
// so they need the same B: block `rank` fetches only its share of the B boxes, multicast into
// every block of the cluster. Each block's full(s) still counts a whole stage of bytes: its own
// A, and all of B, whichever block fetched it.
template <int STAGES, int BM, int BN, int CLUSTER = 1>
__device__ __forceinline__ void load_stage(const SharedLayout<STAGES, BM, BN>& sm, int s,
                                           const CUtensorMap* map_a, const CUtensorMap* map_b,
                                           int m0, int n0, int k0, int rank = 0) {
  // KEY: the bytes that complete this phase (49152 for 128 x 256)
  mbar_arrive_expect_tx(sm.full(s), SharedLayout<STAGES, BM, BN>::kStageBytes);
#pragma unroll
  for (int a = 0; a < BM / kBoxM; ++a)
    tma_load_2d(sm.a(s) + a * kBoxABytes, map_a, k0, m0 + a * kBoxM, sm.full(s));
  constexpr int kBoxesB = BN / kBoxN, kShare = kBoxesB / CLUSTER;
  static_assert(kShare * CLUSTER == kBoxesB, "the B boxes divide evenly among the cluster");
#pragma unroll
  for (int i = 0; i < kShare; ++i) {
    const int b = rank * kShare + i;
    if constexpr (CLUSTER == 1)
      tma_load_2d(sm.b(s) + b * kBoxBBytes, map_b, n0 + b * kBoxN, k0, sm.full(s));
    else  // KEY: one read from L2, CLUSTER shared memories written
      tma_load_2d_multicast(sm.b(s) + b * kBoxBBytes, map_b, n0 + b * kBoxN, k0, sm.full(s),
                            (1u << CLUSTER) - 1);
  }
}

// One K step (64 deep) of warpgroup `wg`'s rows 64 wg .. 64 wg + 63 of the block tile, from the
// stage at a_stage / b_stage: 4 wgmmas of k16, one commit group. `accumulate` false on a tile's
// first K step: D = A * B, no zeroing of the accumulators needed.
// The descriptors (README.md, "The 128-byte swizzle and the descriptors"):
//   A, K-major: 8-row groups 1024 bytes apart (SBO); the k16 slice kk starts 32 kk bytes into the
//     row (the swizzle is applied to the final address, so this plain offset stays correct);
//     LBO is not used by a K-major swizzled operand whose k16 fits in one 128-byte row.
//   B, N-major: 8-k groups 1024 bytes apart (SBO), 64-column boxes 8192 apart (LBO); the k16
//     slice kk starts at k-row 16 kk: 2048 kk bytes.
template <int BN = kBN>
__device__ __forceinline__ void mma_stage(float (&acc)[BN / 2], uint32_t a_stage,
                                          uint32_t b_stage, int wg, bool accumulate) {
  wgmma_fence();  // KEY: order this thread's earlier accumulator accesses before the wgmmas
#pragma unroll
  for (int kk = 0; kk < kBK / 16; ++kk) {
    const uint64_t da = smem_desc_sw128(a_stage + wg * 64 * 128 + kk * 32, 16, 1024);
    const uint64_t db = smem_desc_sw128(b_stage + kk * 16 * 128, kBoxBBytes, 1024);
    if constexpr (BN == 256)
      wgmma_m64n256k16(acc, da, db, accumulate || kk > 0);  // KEY: asynchronous
    else
      wgmma_m64n128k16(acc, da, db, accumulate || kk > 0);
  }
  wgmma_commit();
}

// A warpgroup's 64 x BN accumulators -> C rows row0 .., columns col0 .. (the layout is in
// hopper_ptx.cuh, wgmma_m64n256k16). Each lane writes pairs of columns: a float2 when C's rows
// start 8-byte aligned (`pairs`: C aligned and N even; then col < N implies col + 1 < N), two
// guarded floats otherwise. A warp's store covers 8 rows x 32 bytes: whole 32-byte sectors where
// C's rows start at 32-byte boundaries (N a multiple of 8, C aligned).
template <int BN = kBN>
__device__ __forceinline__ void store_tile(const float (&acc)[BN / 2],
                                           float* __restrict__ C, int M, int N, int row0, int col0,
                                           bool pairs) {
  const int t = threadIdx.x % 128, lane = t % 32;
  const int row = row0 + 16 * (t / 32) + lane / 4;
  const int col = col0 + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row + 8 * h, c = col + 8 * j;
      if (r >= M || c >= N) continue;
      float* p = C + static_cast<size_t>(r) * N + c;
      const float x = acc[4 * j + 2 * h], y = acc[4 * j + 2 * h + 1];
      if (pairs) {
        *reinterpret_cast<float2*>(p) = make_float2(x, y);
      } else {
        p[0] = x;
        if (c + 1 < N) p[1] = y;
      }
    }
  }
}

// Step 5: the same 64 x BN accumulators -> C through shared memory and TMA stores, 64 columns at a
// time (BN / 64 chunks). For each chunk, the warpgroup's 128 threads write their values into the
// staging buffer, in the layout of two 64 x 32 boxes with the 128-byte swizzle that the tensor
// map names (the 16-byte piece p of row r sits at piece p ^ (r % 8) of the row: the 8 rows a warp
// writes at once cover all 32 banks, though Nsight Compute counts 4.5 (H200) and 4.6 (H100)
// wavefronts per 64-bit store where 2 would do; docs/profiling.md, section 3), and one thread hands
// the boxes to the copy engine. (The conflicts cost no measurable time: with each lane's writes in
// an order permuted by its row, an H100 counted 2.3 wavefronts per store instead of 4.4 and the
// kernel took as long; notes/07, "What the epilogue costs, bounded".) The engine's last
// copy runs on while the warpgroup starts its next tile's wgmmas: the store overlaps the MMAs.
// The buffer is reused once the previous chunk's copy has READ it (wait_group.read): within a tile
// that is the copy just issued, so the chunks take turns with the engine's reads; the previous
// tile's last copy has had the whole tile to finish. The copy skips what falls outside C: no
// guards here.
template <int BN = kBN>
__device__ __forceinline__ void store_tile_tma(const float (&acc)[BN / 2], uint32_t staging,
                                               const CUtensorMap* map_c, int row0, int col0,
                                               int cw) {
  const int t = threadIdx.x % 128, lane = t % 32;
  const bool leader = t == 0;  // issues the copies of this warpgroup
  const int barrier = 1 + cw;  // named barrier 1 or 2: this warpgroup's 128 threads only
#pragma unroll
  for (int q = 0; q < BN / 64; ++q) {
    if (leader) tma_store_wait_read<0>();  // KEY: the last copy has read the buffer ...
    named_barrier_sync(barrier, 128);      // ... before anyone writes it again
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {  // columns 8 jj .. 8 jj + 7 of the chunk
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = 16 * (t / 32) + lane / 4 + 8 * h;     // row within the warpgroup's 64
        const int byte = 32 * (jj % 4) + 8 * (lane % 4);  // within the box's 128-byte row
        const uint32_t addr = staging + (jj / 4) * kBoxCBytes + r * 128 +
                              (((byte / 16) ^ (r % 8)) * 16) + byte % 16;
        const int j = 8 * q + jj;  // the accumulators' column group (store_tile's j)
        st_shared_v2(addr, acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      }
    }
    fence_proxy_async_shared();       // KEY: the writes, visible to the copy engine ...
    named_barrier_sync(barrier, 128); // ... from every thread, before the copy starts
    if (leader) {
      tma_store_2d(map_c, col0 + 64 * q, row0, staging);
      tma_store_2d(map_c, col0 + 64 * q + kBoxCCols, row0, staging + kBoxCBytes);
      tma_store_commit();
    }
  }
}

// ---- Tile order ---------------------------------------------------------------------------------
// Tile t of C -> (tile row, tile column).
// Row-major: t walks along a row of tiles. The blocks that run at the same time (one per SM) then
// cover a few rows of C and every column: they share a few panels of A but read all of B.
__device__ __forceinline__ int2 tile_row_major(int t, int tiles_n) {
  return make_int2(t / tiles_n, t % tiles_n);
}

// Grouped (tile_grouped, chapter 06's tile_helpers.cuh, where mma_sync_pipelined uses it too):
// bands of group_m tile rows, walked column by column; group_m = 1 is the row-major order. With
// group_m = 16 the 132 tiles that run at once at 8192^3 cover 16 tile rows and 9 tile columns, so
// they read 16 panels of A and 9 of B per K step instead of 5 and 32 in row-major order: about
// half the bytes (544 KiB against 1,104 KiB per K step of 64; hopper_persistent.png draws both).
// Measured on an H100 at 4096^3 and 8192^3 (TFLOPS, commit 06304fa, with the step-3 kernel, before
// clusters), group_m = 4 / 8 / 16 / 32 / 64: 614 / 617 / 626 / 607 / 607 and 634 / 641 / 643 /
// 633 / 612. In clusters of 2 (steps 4 and 5) the launcher counts the bands in cluster tiles:
// kGroupM / 2 of them, at least one (cluster_group_m, below).
constexpr int kGroupM = 16;
static_assert(kGroupM >= 1, "kGroupM: bands of at least one tile row (tile_grouped divides by it)");

// The bands of the grouped tile order for a launch in clusters of `cluster` blocks stacked along
// M. tile_grouped walks cluster tiles, each `cluster` block rows tall, so kGroupM rows of block
// tiles are kGroupM / cluster rows of cluster tiles; but never fewer than one, since tile_grouped
// divides by it: kGroupM = 1 (the row-major order) gives bands of one row of cluster tiles, that
// is `cluster` block rows, the row-major order of the cluster tiles. (An odd kGroupM rounds down:
// kGroupM = 5 in clusters of 2 gives bands of 2 cluster rows, 4 block rows.)
constexpr int cluster_group_m(int cluster) {
  return kGroupM / cluster > 1 ? kGroupM / cluster : 1;
}

// ---- The roles of steps 2 to 5 ------------------------------------------------------------------
// A warp-specialized block: the producer warpgroup (TMA), and BM / 64 consumer warpgroups (wgmma,
// 64 rows of the tile each). All threads start with the same register budget (65536 / 384,
// rounded down to a multiple of 8: 168 per thread, the cap that __launch_bounds__(384, 1) sets);
// setmaxnreg then moves registers from the producer (down to 40) to the consumers (up to 232).
template <int BM>
constexpr int ws_threads() { return 128 * (1 + BM / 64); }
constexpr int kWsThreads = ws_threads<kBM>();  // 384: 1 producer, 2 consumers
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536,
              "kProducerRegs and kConsumerRegs must fit the SM's 65536 registers");

}  // namespace gemm::hopper
