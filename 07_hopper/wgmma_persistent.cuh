// =================================================================================================
// Chapter 07 - tensor cores on Hopper, steps 3 to 5: the kernel of wgmma_persistent, the
// chapter's headline. (Its launcher, which picks the tile and the step, is wgmma_persistent.cu.)
// Not host-includable: nvcc only (the kernel's PTX wrappers, hopper_ptx.cuh).
//
// Step 3, wgmma_persistent_no_cluster: step 2's kernel (wgmma_warp_specialized.cu), one block per
// SM (132 on an H100) instead of one per tile. Each block loops over units of work
// u = first_unit, + unit_stride, ... Two gains:
//   - the producer loads the next unit's first stages while the consumers still store the last
//     one's C (with one tile per block, that store runs with no loads in flight);
//   - the order of the tiles is ours to choose: `tile_grouped` (chapter 06's; hopper_tiles.cuh
//     explains it) makes the 132 tiles in flight a compact block of C, so the panels of A and B
//     they read are shared in L2.
// A unit (SplitKUnits, below) is a tile over a slice of K: where C has too few tiles to give every
// SM one (1024^3: 32 tiles of 128 x 256 for 132 SMs), the launcher counts waves and picks a
// smaller tile (128 x 128 or 64 x 128: BM and BN here), split-K, or both.
// Step 4 (CLUSTER = 2, the lines marked "Step 4"): clusters of 2 blocks stacked along M. Both read
// the same columns of B, so each fetches half of B's boxes for both (TMA multicast): 32 KiB from
// L2 per stage and block instead of 48. A stage is written into both blocks, so its `empty`
// barrier counts the consumer warps of both (16): each warp arrives on its own block's and,
// through mapa, on the other's. cluster_sync() at the start (the barriers exist before the other
// block's copies target them) and at the end (no block exits while the other may still arrive on
// its barriers).
// Step 5 (TMA_STORE, the lines marked "Step 5"): C goes out through a staging buffer in shared
// memory and TMA stores (store_tile_tma, hopper_tiles.cuh), so the last chunk's copy overlaps the
// next tile's wgmmas.
//
// Why one template for three steps: steps 4 and 5 each change a few lines of step 3 (those marked
// with their number), and a copy of the kernel per step would make a student read its 110-odd
// lines three times to find them. To read step 3, read CLUSTER = 1 and TMA_STORE = false;
// `grep -n "Step 4"` and `grep -n "Step 5"` list what each step adds. What step 3 changes in
// step 2's kernel (wgmma_warp_specialized.cu), leaving aside those lines and the experiment's
// branch (kHasPieces): the unit loop around each side's K loop, with the K-step counter i
// running on across units; the tile from tile_grouped instead of the row-major order; the unit's
// last stage released for the next unit's loads (`release`, which step 4 extends to the other
// block); and the tile's size as template parameters (BM, BN), for the launcher's smaller tiles.
//
// Work per block: units of one BM x BN tile over a slice of K; per consumer warpgroup 64 x BN of
// C, BN / 2 accumulators per thread. Shared memory: STAGES stages of (BM + BN) x 64 halves, the
// barriers, and with TMA_STORE two 16 KiB staging buffers; one block per SM, or two of the
// 64 x 128 tile with 4 stages (blocks_per_sm, below).
// Preconditions: none (the launcher packs operands whose rows are not 16-byte aligned, and stores
// from registers where C's rows are not).
// Build and run:  cmake --build build --target 07_hopper
//                 ./build/bin/07_hopper --variant wgmma_persistent
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV). On an H100, % of
// cuBLAS at 4096^3 / 8192^3, timed in turns: step 3 98% / 104%, step 4 98% / 104%, step 5 100% /
// 105% (docs/figures/h100/results.csv, one run, before the steps had files of their own;
// docs/notes/07_hopper.md compares).
// =================================================================================================
#pragma once

#include <cstddef>

#include "07_hopper/hopper_tiles.cuh"

namespace gemm::hopper {

// The stages of the 128 x 256 tile (steps 3 to 5, and the tail-split experiment).
constexpr int kStagesWide = 4;

// How many clusters of 2 of the step-4 kernel the current GPU runs at once; 0 where the kernels
// cannot run (wgmma_persistent.cu).
int cluster_slots();

// One unit of a persistent block's work: the cluster tile numbered `index` in the tile order, over
// the K steps [first, last), its sums written to slice `slice` of the output.
struct Unit {
  int index, first, last, slice;
};

// Step 3's units: `tiles` cluster tiles x `splits` slices of K. Unit u is tile u % tiles over
// slice u / tiles (steps_per_split K steps; the last slice may have fewer), summed into
// out + slice x slice_floats. Without split-K: splits = 1, all K steps, out = C.
struct SplitKUnits {
  int tiles, splits, k_steps, steps_per_split;
  float* out;
  size_t slice_floats;
  __host__ __device__ int count() const { return tiles * splits; }
  __device__ Unit at(int u) const {
    const int slice = u / tiles, first = slice * steps_per_split;
    return {u % tiles, first, min(k_steps, first + steps_per_split), slice};
  }
  __device__ float* output(const Unit& unit) const { return out + unit.slice * slice_floats; }
  // Units that are pieces of a tile, stored by their last warp (the tail-split experiment,
  // wgmma_persistent_tail_split.cuh): none here, and the kernel's branch for them compiles away.
  static constexpr bool kHasPieces = false;
};

// The stages of the 64 x 128 tile's kernel that runs two blocks per SM, and the blocks per SM each
// kernel is built for (__launch_bounds__' second argument). A block of the 64 x 128 tile has one
// consumer warpgroup: while it stores a finished tile, no wgmma of its block runs. With 4 stages
// (97 KiB of shared memory) two blocks fit an SM, and one block's wgmmas can run while the other
// stores; where the units outnumber the SMs less than twice, each block has one, and an SM given
// two runs them side by side rather than in turn. The launcher runs this kernel where the units
// outnumber the SMs (wgmma_persistent.cu). Two blocks of 256 threads hold each thread to 128
// registers (65536 / 512), which one consumer's 64 accumulators fit.
constexpr int kStagesShortPair = 4;
template <int STAGES, int BM>
constexpr int blocks_per_sm() {
  return BM == 64 && STAGES <= kStagesShortPair ? 2 : 1;
}

// The kernel of steps 3 (CLUSTER = 1), 4 (CLUSTER = 2) and 5 (CLUSTER = 2, TMA_STORE). BM x BN:
// the block tile, 128 x 256, 128 x 128 or 64 x 128 (64 rows per consumer warpgroup). In a cluster,
// the cluster's tile is CLUSTER block tiles stacked along M: block `rank` computes its rank-th BM
// rows, and both walk the same units. Units: which units, and where their sums go (SplitKUnits;
// the tail-split experiment passes its own).
template <int STAGES, int BM, int BN, int CLUSTER, bool TMA_STORE, class Units>
__global__ void __launch_bounds__(ws_threads<BM>(), blocks_per_sm<STAGES, BM>())
    wgmma_persistent_kernel(const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b,
                            const __grid_constant__ CUtensorMap map_c, int M, int N, bool pairs,
                            int group_m, Units units) {
#if GEMM_SM90A_DEVICE
  extern __shared__ unsigned char smem_raw[];
  constexpr int kConsumerWarps = 4 * (BM / 64);  // arrivals per block that empty a stage
  const SharedLayout<STAGES, BM, BN> sm(smem_raw);
  const int wg = threadIdx.x / 128;
  const int rank = CLUSTER > 1 ? static_cast<int>(cluster_ctarank()) : 0;  // Step 4
  const int tiles_mc = ((M + BM - 1) / BM + CLUSTER - 1) / CLUSTER;        // rows of cluster tiles
  const int tiles_n = (N + BN - 1) / BN;
  // KEY: this block's units: first_unit, + unit_stride, ... (the blocks of a cluster: the same)
  const int first_unit = blockIdx.x / CLUSTER, unit_stride = gridDim.x / CLUSTER;
  auto tile_of = [&](const Unit& unit) {  // this block's tile: (tile row, tile column)
    int2 tile = tile_grouped(unit.index, tiles_mc, tiles_n, group_m);  // KEY: the L2-friendly order
    tile.x = tile.x * CLUSTER + rank;  // Step 4: this block's rows of the cluster tile
    return tile;
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(sm.full(s), 1);  // the producer's expect_tx
      // Step 4: one arrival per consumer warp of every block of the cluster: a stage of B is
      // written into both blocks, so it may be refilled only when both have finished reading it.
      mbar_init(sm.empty(s), kConsumerWarps * CLUSTER);
    }
    fence_mbarrier_init();
  }
  // The barriers exist; from here on, the warpgroups never meet again. Step 4: the other block's
  // copies and arrivals may target our barriers, so they must exist before it starts.
  if constexpr (CLUSTER > 1)
    cluster_sync();
  else
    __syncthreads();

  // Both sides walk the same K steps, unit after unit: step i (counted across units) uses stage
  // i % STAGES, for the (i / STAGES)-th time.
  if (wg == 0) {
    // ---- The producer -------------------------------------------------------------------------
    // (With one consumer warpgroup, BM = 64, the 256-thread block may compile for up to 255
    // registers per thread, 128 in the kernel built for two blocks per SM, and its 64 accumulators
    // fit either way: no setmaxnreg.)
    if constexpr (BM == 128) setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) {
      int i = 0;
      for (int u = first_unit; u < units.count(); u += unit_stride) {
        const Unit unit = units.at(u);
        const int2 tile = tile_of(unit);
        for (int k = unit.first; k < unit.last; ++k, ++i) {
          const int s = i % STAGES;
          mbar_wait(sm.empty(s), ((i / STAGES) & 1) ^ 1);  // KEY: released by the consumers
          load_stage<STAGES, BM, BN, CLUSTER>(sm, s, &map_a, &map_b, tile.x * BM, tile.y * BN,
                                              k * kBK, rank);
        }
      }
    }
  } else {
    // ---- The consumers ------------------------------------------------------------------------
    if constexpr (BM == 128) setmaxnreg_inc<kConsumerRegs>();
    const int cw = wg - 1;  // consumer 0: rows 0-63 of each tile, consumer 1: rows 64-127
    const bool arrives = threadIdx.x % 32 == 0;  // lane 0 of each warp releases stages
    auto release = [&](int s) {                  // KEY: this warp is done reading stage s
      if (!arrives) return;
      if constexpr (CLUSTER == 1) {
        mbar_arrive(sm.empty(s));
      } else {
#pragma unroll
        for (int c = 0; c < CLUSTER; ++c) {  // Step 4: every block of the cluster, ours included
          if (c == rank)
            mbar_arrive(sm.empty(s));
          else
            mbar_arrive_remote(sm.empty(s), c);
        }
      }
    };
    float acc[BN / 2] = {};  // [128] (BN 256) or [64]
    int i = 0;
    for (int u = first_unit; u < units.count(); u += unit_stride) {
      const Unit unit = units.at(u);
      const int2 tile = tile_of(unit);
      for (int k = unit.first; k < unit.last; ++k, ++i) {
        const int s = i % STAGES;
        mbar_wait(sm.full(s), (i / STAGES) & 1);  // KEY: the stage has landed
        mma_stage<BN>(acc, sm.a(s), sm.b(s), cw, k > unit.first);  // a unit's first: from 0
        wgmma_wait<1>();  // the wgmmas of step i - 1 have finished reading their stage
        if (k > unit.first) release((i - 1) % STAGES);
      }
      wgmma_wait<0>();
      release((i - 1) % STAGES);  // KEY: the unit's last stage, for the next unit's loads
      fence_accumulators(acc);
      const int row0 = tile.x * BM + 64 * cw, col0 = tile.y * BN;
      if constexpr (Units::kHasPieces) {  // the tail-split experiment only
        if (units.is_piece(unit)) {
          const bool completes_tile = units.add_piece(acc, unit, rank);
          if (completes_tile) store_tile<BN>(acc, units.output(unit), M, N, row0, col0, pairs);
          continue;
        }
      }
      if constexpr (TMA_STORE)  // Step 5 (never with split-K: C itself)
        store_tile_tma<BN>(acc, sm.staging(cw), &map_c, row0, col0, cw);
      else
        store_tile<BN>(acc, units.output(unit), M, N, row0, col0, pairs);
    }
    if (TMA_STORE && threadIdx.x % 128 == 0) tma_store_wait<0>();  // Step 5: the last copies
  }
  // Step 4: no block may exit while the other can still arrive on its barriers.
  if constexpr (CLUSTER > 1) cluster_sync();
#else
  __trap();  // not compiled for sm_90a: never launched (the launchers run mma_sync_pipelined)
#endif
}

}  // namespace gemm::hopper
