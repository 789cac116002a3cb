// =================================================================================================
// Chapter 07 - tensor cores on Hopper, steps 2 to 5: warp specialization, a persistent kernel
// with an L2-friendly tile order, clusters that share B, and C stored by TMA.
//
// Step 2, wgmma_warp_specialized. In wgmma_tma every thread does everything: thread 0 stops its
// warp to issue copies, and a __syncthreads() per K step makes both warpgroups wait for the
// slower one before a stage can be refilled. Here the roles are split between warpgroups:
//   warpgroup 0, the PRODUCER: one thread issues the TMA copies, nothing else. It waits until a
//     stage is empty, announces its bytes on the stage's `full` barrier, and moves on.
//   warpgroups 1 and 2, the CONSUMERS: wait until a stage is full, run their wgmmas on it, and
//     arrive on its `empty` barrier when those have finished (one arrival per warp, 8 in all).
// No __syncthreads() in the loop: each side waits only for the stage it needs, so the producer
// runs up to 4 stages ahead and a slow warpgroup no longer holds up the other one.
// Register reallocation: the producer needs few registers, a consumer 128 accumulators and more.
// All 384 threads start with the same budget (65536 / 384, rounded down to a multiple of 8: 168
// per thread, the cap that __launch_bounds__(384, 1) sets); setmaxnreg then moves registers from
// the producer (down to 40) to the consumers (up to 232): 128 x 40 + 256 x 232 = 64512 <= 65536.
//
// Step 3, wgmma_persistent_no_cluster: the same kernel, one block per SM (132 on an H100)
// instead of one per tile. Each block loops over tiles t = blockIdx.x, + gridDim.x, ... Two gains:
//   - the producer loads the next tile's first stages while the consumers still store the last
//     tile's C (with one tile per block, that store runs with no loads in flight);
//   - the order of the tiles is ours to choose: `tile_grouped` (hopper_tiles.cuh) makes the 132
//     tiles in flight a compact block of C, so the panels of A and B they read are shared in L2.
// And where C has too few tiles to give every SM one (1024^3: 32 tiles of 128 x 256 for 132 SMs),
// the launcher counts waves as chapter 06's mma_sync_pipelined does (plan_by_waves,
// common/waves.hpp) and picks a smaller tile: 128 x 128 (wgmma m64n128k16; 6 stages in the same
// shared memory) or 64 x 128 (one consumer warpgroup; 8 stages), split-K, or both. With split-K
// a block's work is a (tile, slice of K) unit, whose sums go to a workspace that reduce_split_k
// adds up in a fixed order. wgmma_persistent_no_split, _splitk, _128x128 and _64x128 force each
// choice.
//
// Step 4 (in wgmma_persistent, for the 128 x 256 tile over all of K): clusters of 2 blocks stacked
// along M. Both read the same columns of B, so each fetches half of B's boxes for both (TMA
// multicast): 32 KB from L2 per stage and block instead of 48. A stage is written into both
// blocks, so its `empty` barrier counts the consumer warps of both (16): each warp arrives on its
// own block's and, through mapa, on the other's. cluster_sync() at the start (the barriers exist
// before the other block's copies target them) and at the end (no block exits while the other may
// still arrive on its barriers). wgmma_persistent_no_cluster keeps step 3.
// Step 5 (the same kernel, TMA_STORE): C goes out through a staging buffer in shared memory and
// TMA stores (store_tile_tma, hopper_tiles.cuh), so the last chunk's copy overlaps the next tile's
// wgmmas; where C's rows do not start at 16-byte boundaries, from registers as before.
// wgmma_persistent_no_tma_store keeps step 4.
// Beside step 5, an experiment the headline does not use: wgmma_persistent_tail_split cuts the
// last wave's tiles into slices of K that all clusters share (TailSplit, hopper_host.cuh). On an
// H100 it tied step 5 at 8192^3 and lost at 6144^3 (docs/notes/07_hopper.md, "What did not pay").
//
// What changed since wgmma_tma: the roles, two barriers per stage instead of one barrier per K
// step, setmaxnreg, 384 threads; step 3 adds the tile loop, the tile order and the smaller tiles;
// step 4 the clusters, step 5 the TMA stores. load_stage, mma_stage and store_tile are the same
// (hopper_tiles.cuh), for every tile size.
// Preconditions: none (as wgmma_tma: packed operands when rows are not 16-byte aligned; on
// other GPUs the launchers run chapter 06's mma_sync_pipelined and the table says so).
// Build and run:  cmake --build build --target 07_hopper
//                 ./build/bin/07_hopper --variant wgmma_persistent
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV). On an H100, % of
// cuBLAS at 4096^3 / 8192^3, timed in turns: step 2 95% / 76%, step 3 98% / 104%, step 4 98% /
// 104%, step 5 100% / 105% (docs/figures/h100/results.csv, one run; README.md, "Measured").
// =================================================================================================
#include "07_hopper/hopper.cuh"

#include <algorithm>
#include <string>
#include <vector>

#include "06_warp_tiling/warp_tiling.cuh"  // launch_mma_sync_pipelined: the fallback
#include "07_hopper/hopper_tiles.cuh"
#include "common/cuda_check.cuh"
#include "common/split_k.cuh"
#include "common/per_device.cuh"

namespace gemm::hopper {

// Threads of a block: the producer warpgroup, and BM / 64 consumer warpgroups (64 rows each).
template <int BM>
constexpr int ws_threads() { return 128 * (1 + BM / 64); }
constexpr int kWsThreads = ws_threads<kBM>();  // 384: 1 producer, 2 consumers
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536,
              "kProducerRegs and kConsumerRegs must fit the SM's 65536 registers");

// PERSISTENT = false: one tile per block, tile = blockIdx.x in row-major order (step 2).
// PERSISTENT = true: gridDim.x blocks loop over all tiles in the grouped order (step 3).
// CLUSTER = 2 (step 4): the blocks run in clusters of 2, and a cluster's tile is 2 block tiles
// stacked along M (256 x 256): block `rank` of the cluster computes its rank-th 128 rows, both
// read the same columns of B, and each fetches half of B's boxes for both (multicast).
// The work is `splits` x tiles units: unit u is tile u % tiles over the K steps of slice u / tiles
// (steps_per_split of them; the last slice may have fewer), summed into C + slice x slice_floats.
// Without split-K (always in step 2): splits = 1, steps_per_split = all K steps, C itself.
// TMA_STORE (step 5): C goes out through shared memory and TMA stores (map_c), which overlap the
// next tile's MMAs; otherwise each thread stores its accumulators (map_c unused).
// BM x BN: the block tile, 128 x 256, 128 x 128 or 64 x 128 (64 rows per consumer warpgroup).
template <int STAGES, bool PERSISTENT, int BM, int BN, int CLUSTER = 1, bool TMA_STORE = false>
__global__ void __launch_bounds__(ws_threads<BM>(), 1)
    wgmma_ws_kernel(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, float* __restrict__ C, int M, int N,
                    int K, bool pairs, int group_m, int splits, int steps_per_split,
                    size_t slice_floats, TailSplit tail) {
#if GEMM_SM90A_DEVICE
  extern __shared__ unsigned char smem_raw[];
  constexpr int kConsumerWarps = 4 * (BM / 64);  // arrivals per block that empty a stage
  const SharedLayout<STAGES, BM, BN> sm(smem_raw);
  const int wg = threadIdx.x / 128;
  const int rank = CLUSTER > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int tiles_mc = (tiles_m + CLUSTER - 1) / CLUSTER;  // rows of cluster tiles
  const int tiles = tiles_mc * tiles_n;                    // cluster tiles (CLUSTER = 1: tiles)
  const int k_steps = (K + kBK - 1) / kBK;
  // Both blocks of a cluster walk the same units: unit u, then u + (clusters in the grid), ...
  const int first_unit = blockIdx.x / CLUSTER, unit_stride = gridDim.x / CLUSTER;
  auto tile_at = [&](int u) {
    const int t = u % tiles;
    int2 tile = PERSISTENT ? tile_grouped(t, tiles_mc, tiles_n, group_m)
                           : tile_row_major(t, tiles_n);
    tile.x = tile.x * CLUSTER + rank;  // this block's rows of the cluster tile
    return tile;
  };
  auto first_step = [&](int u) { return (u / tiles) * steps_per_split; };  // of u's slice of K
  auto end_step = [&](int u) { return min(k_steps, first_step(u) + steps_per_split); };
  // The block's work, in order, for the producer and the consumers alike: work(tile, first K
  // step, end K step, unit, piece) for each. First the units computed whole (all of them without
  // the tail split); then, with it, pieces of the last wave's tiles: piece q is slice
  // q / tail_tiles of tail tile q % tail_tiles, round robin over the clusters as the units are.
  // piece = -1: a whole unit.
  auto for_each_work = [&](auto&& work) {
    for (int u = first_unit; u < tail.whole_units; u += unit_stride)
      work(tile_at(u), first_step(u), end_step(u), u, -1);
    for (int q = first_unit; q < tail.tail_tiles * tail.tail_splits; q += unit_stride) {
      const int slice = q / tail.tail_tiles;
      const int first = slice * tail.tail_steps;
      work(tile_at(tail.whole_units + q % tail.tail_tiles), first,
           min(k_steps, first + tail.tail_steps), tail.whole_units, q);
    }
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(sm.full(s), 1);  // the producer's expect_tx
      // One arrival per consumer warp, of every block of the cluster: a stage of B is written
      // into both blocks, so it may be refilled only when both have finished reading it.
      mbar_init(sm.empty(s), kConsumerWarps * CLUSTER);
    }
    fence_mbarrier_init();
  }
  // The barriers exist; from here on, the warpgroups never meet again. In a cluster, the other
  // block's copies and arrivals may target our barriers: they must exist before it starts.
  if constexpr (CLUSTER > 1)
    cluster_sync();
  else
    __syncthreads();

  // Both sides walk the same sequence of K steps, over all units of this block: step i (counted
  // across units) uses stage i % STAGES, for the (i / STAGES)-th time.
  if (wg == 0) {
    // ---- The producer -------------------------------------------------------------------------
    // KEY: every thread of the warpgroup, before the branch. (With one consumer warpgroup,
    // BM = 64, the 256-thread block may compile for up to 255 registers per thread, and its 64
    // accumulators fit without a trade: no setmaxnreg.)
    if constexpr (BM == 128) setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) {
      int i = 0;
      for_each_work([&](int2 tile, int first, int last, int, int) {
        for (int k = first; k < last; ++k, ++i) {
          const int s = i % STAGES;
          // KEY: wait until the consumers released this stage's previous use. The first use
          // waits for parity 1 of a fresh barrier, which returns at once.
          mbar_wait(sm.empty(s), ((i / STAGES) & 1) ^ 1);
          load_stage<STAGES, BM, BN, CLUSTER>(sm, s, &map_a, &map_b, tile.x * BM, tile.y * BN,
                                              k * kBK, rank);
        }
      });
    }
  } else {
    // ---- The consumers ------------------------------------------------------------------------
    if constexpr (BM == 128) setmaxnreg_inc<kConsumerRegs>();
    const int cw = wg - 1;  // consumer 0: rows 0-63 of each tile, consumer 1: rows 64-127
    const bool arrives = threadIdx.x % 32 == 0;  // lane 0 of each warp releases stages
    auto release = [&](int s) {  // KEY: this warp is done reading stage s
      if (!arrives) return;
      if constexpr (CLUSTER == 1) {
        mbar_arrive(sm.empty(s));
      } else {
#pragma unroll
        for (int c = 0; c < CLUSTER; ++c) {  // every block of the cluster, this one included
          if (c == rank)
            mbar_arrive(sm.empty(s));
          else
            mbar_arrive_remote(sm.empty(s), c);
        }
      }
    };
    float acc[BN / 2] = {};  // [128] (BN 256) or [64]
    int i = 0;
    for_each_work([&](int2 tile, int first, int last, int u, int piece) {
      for (int k = first; k < last; ++k, ++i) {
        const int s = i % STAGES;
        mbar_wait(sm.full(s), (i / STAGES) & 1);  // KEY: the stage has landed
        mma_stage<BN>(acc, sm.a(s), sm.b(s), cw, k > first);  // a unit's first step starts at 0
        wgmma_wait<1>();  // the wgmmas of step i - 1 have finished reading their stage
        if (k > first) release((i - 1) % STAGES);
      }
      wgmma_wait<0>();
      release((i - 1) % STAGES);  // the unit's last stage
      fence_accumulators(acc);
      const int row0 = tile.x * BM + 64 * cw;
      if (piece >= 0) {
        // KEY: the tail split: a piece of a tile of the last wave. Only the warp that arrives last
        // stores, from registers: the other warps of its warpgroup may not be last (so no named
        // barrier, no TMA store).
        const int warp = (threadIdx.x - 128) / 32;  // consumer warp 0 .. 7
        const int slot = ((piece % tail.tail_tiles) * CLUSTER + rank) * kConsumerWarps + warp;
        if (tail_fixup<BN>(acc, tail.partials, tail.arrivals, slot, piece / tail.tail_tiles,
                           tail.tail_splits))
          store_tile<BN>(acc, C, M, N, row0, tile.y * BN, pairs);
      } else if constexpr (TMA_STORE) {  // KEY: step 5 (never with split-K: C itself)
        store_tile_tma<BN>(acc, sm.staging(cw), &map_c, row0, tile.y * BN, cw);
      } else {
        store_tile<BN>(acc, C + (u / tiles) * slice_floats, M, N, row0, tile.y * BN, pairs);
      }
    });
    if (TMA_STORE && threadIdx.x % 128 == 0) tma_store_wait<0>();  // the last copies are done
  }
  // In a cluster, no block may exit while the other can still arrive on its barriers.
  if constexpr (CLUSTER > 1) cluster_sync();
#else
  __trap();  // not compiled for sm_90a: never launched (the launchers run mma_sync_pipelined)
#endif
}

namespace {
// The kernels: step 2 (one block per tile) and step 3's three tiles. Every tile gets as many
// stages as fit in the same shared memory: a 128 x 128 stage is 2/3 the bytes of a 128 x 256
// one, a 64 x 128 stage half of them.
constexpr int kStages = 4, kStagesNarrow = 6, kStagesShort = 8;
constexpr int kSmemBytes = SharedLayout<kStages>::kBytes;                      // 197696
constexpr int kSmemNarrow = SharedLayout<kStagesNarrow, 128, 128>::kBytes;     // 197728
constexpr int kSmemShort = SharedLayout<kStagesShort, 64, 128>::kBytes;        // 197760
constexpr auto kKernelWs = wgmma_ws_kernel<kStages, false, 128, 256>;
constexpr auto kKernelPersistent = wgmma_ws_kernel<kStages, true, 128, 256>;
constexpr auto kKernelNarrow = wgmma_ws_kernel<kStagesNarrow, true, 128, 128>;
constexpr auto kKernelShort = wgmma_ws_kernel<kStagesShort, true, 64, 128>;
// Step 4: the persistent 128 x 256 kernel in clusters of 2 (B multicast); step 5 the same with TMA
// stores of C, whose staging buffers take 32 KB more shared memory.
constexpr int kCluster = kClusterBlocks;  // 2 (hopper_host.cuh)
constexpr auto kKernelCluster = wgmma_ws_kernel<kStages, true, 128, 256, kCluster>;
constexpr auto kKernelTmaStore = wgmma_ws_kernel<kStages, true, 128, 256, kCluster, true>;
constexpr int kSmemTmaStore = SharedLayout<kStages>::kBytesWithStaging;  // 231424

// Once per GPU (common/per_device.cuh): runs this GPU the sm_90a code, and may each kernel use
// its shared memory there?
bool ready() {
  static PerDevice<bool> ready_on;
  return ready_on.get([](int) {
    if (!runs_here()) return false;
    auto allow = [](auto kernel, int bytes) {
      CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    };
    allow(kKernelWs, kSmemBytes);
    allow(kKernelPersistent, kSmemBytes);
    allow(kKernelNarrow, kSmemNarrow);
    allow(kKernelShort, kSmemShort);
    allow(kKernelCluster, kSmemBytes);
    allow(kKernelTmaStore, kSmemTmaStore);
    return true;
  });
}

// The tiles for plan_by_waves, one block per SM each; `warps` counts the consumer warps (the
// producer warpgroup only issues copies). `speed`, from each tile forced on its own on an H200:
//   128x128: 85.0% of cuBLAS at 4096^3, against 96.0% for 128x256: 0.88. Its shared memory
//     feeds the tensor cores 1.33 x the bytes per flop of 128x256.
//   64x128: 1.5 x 128x128's bytes per flop, and one warpgroup to issue its wgmmas. 69.1% against
//     95.7% at 4096^3 (0.72), but where both fill the GPU with one wave, the 64x128 tile in 4
//     slices (84.7%) lost to 128x128 in 8 (91.4%, 512 x 512 x 16384), which asks for less than
//     0.68; 128 x 4096 x 4096 (64x128 in 2 slices, 82.0%, against 128x128 in 4, 66.8% without)
//     asks for more than 0.57. 0.65 picks the faster of the two on every shape measured.
//     And 64x128 is a candidate only where the rows of A and B are whole 128-byte lines (K and
//     the row length of B multiples of 64 halves): at 1000^3 (rows of 2000 bytes, so most
//     128-byte rows of a TMA box straddle two lines), it took 14.2 us against 9.9 us at 1024^3,
//     slower than 128x128 there (12.6 us), which lost only 7% to its own 1024^3.
enum Config { kWide = 0, kNarrowTile = 1, kShortTile = 2 };
const std::vector<TileConfig>& configs() {
  static const std::vector<TileConfig> list = {
      {"128x256", 128, 256, kBK, 8, 1, 1.0, kSplitDepthTensor},
      {"128x128", 128, 128, kBK, 8, 1, 0.88, kSplitDepthTensor},
      {"64x128", 64, 128, kBK, 4, 1, 0.65, kSplitDepthTensor}};
  return list;
}

// What the persistent launcher runs: chosen by waves (kAuto), or one choice forced. kNoCluster is
// step 3 as it was (the 128 x 256 tile over all of K, one block per SM, C stored from registers);
// kNoTmaStore step 4 (the same in clusters of 2). kTailSplit: step 5 with its last wave split by K
// (TailSplit), an experiment the headline does not use (docs/notes/07_hopper.md, "What did not
// pay").
enum class Choice {
  kAuto, kNoSplit, kSplitK, kNarrow, kShort, kNoCluster, kNoTmaStore, kTailSplit
};

// The launch of a kernel in clusters of `cluster` blocks along x (cudaLaunchKernelEx: <<<>>> has
// no place for a cluster size).
cudaLaunchConfig_t cluster_config(int blocks, int threads, int smem, cudaStream_t stream,
                                  cudaLaunchAttribute* attribute, int cluster) {
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = cluster;
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

// How many clusters of the step-4 kernel the current GPU runs at once: one block per SM, and the
// 2 blocks of a cluster on SMs of the same GPC, so an SM left alone in its GPC gets none (an H100
// SXM: 66 clusters on 132 SMs, if each GPC has an even count). Asked once per GPU, through
// PerDevice (common/per_device.cuh). The query is not a stream operation; CUDA 13.0 answers it
// even while a stream is being captured in the global mode (checked on an H100), and PerDevice's
// relaxed capture mode costs nothing where it is not needed.
int cluster_slots() {
  static PerDevice<int> slots_on;
  return slots_on.get([](int) {
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = cluster_config(kCluster * current_sm_count(), kWsThreads,
                                                     kSmemBytes, nullptr, &attribute, kCluster);
    int clusters = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kKernelCluster, &config));
    return clusters;
  });
}

// k and ldb: the rows of A and B as the kernel reads them (AlignedOperands, after any packing).
LaunchPlan plan_for(int M, int N, int k, int ldb, Choice choice) {
  int forced = kByWaves;
  if (choice == Choice::kNoSplit || choice == Choice::kSplitK || choice == Choice::kNoCluster ||
      choice == Choice::kNoTmaStore || choice == Choice::kTailSplit)
    forced = kWide;
  if (choice == Choice::kNarrow) forced = kNarrowTile;
  if (choice == Choice::kShort) forced = kShortTile;
  const std::vector<TileConfig>& all = configs();
  const bool whole_lines = k % 64 == 0 && ldb % 64 == 0;  // rows of 128-byte multiples
  if (forced != kByWaves || whole_lines)  // KEY: counting waves (common/waves.cpp)
    return plan_launch(all, M, N, k, current_sm_count(), forced, choice == Choice::kSplitK);
  static const std::vector<TileConfig> without_64x128(all.begin(), all.begin() + kShortTile);
  return plan_launch(without_64x128, M, N, k, current_sm_count(), forced, false);
}

// The number of slices for the `left` tiles of the last wave: the one that finishes them soonest,
// or 1 (whole tiles) where none beats a whole round.
int tail_slices(int left, int clusters, int k_steps) {
  if (left == 0) return 1;  // the last wave is a whole one
  int best = 1;
  double best_time = 1.0;  // in tiles: one round of whole tiles
  for (int s = 2; s <= kTailMaxSplits && k_steps >= s * kTailMinSteps; ++s) {
    const double time = static_cast<double>(ceil_div(left * s, clusters)) / s;
    if (time < best_time) best = s, best_time = time;
  }
  return best;
}

// The tail split's plan for one call (TailSplit, hopper_host.cuh): the full waves computed whole,
// then the last wave's tiles in the number of slices of K that finishes them soonest, and this
// call's workspace for the pieces' partial sums. With r tiles left for C clusters, s slices take
// ceil(r s / C) rounds of 1 / s of a tile: 8192^3 on 66 clusters leaves 34 tiles, which take 1
// round whole, 2 rounds of 1/2 in 2 slices, 2 of 1/3 in 3, 3 of 1/4 in 4; 3 slices win. Where no
// number of slices beats whole tiles (4096^3: 58 tiles left, 0.88 of a wave), or the workspace
// does not fit in the GPU's memory, every tile stays whole.
class TailSplitPlan {
 public:
  TailSplitPlan(bool wanted, int units, int clusters, int K, int cluster_blocks,
                int consumer_warps, int bn, cudaStream_t stream) {
    tail_.whole_units = units;  // without the split
    const int left = units % clusters, k_steps = ceil_div(K, kBK);
    const int best = tail_slices(left, clusters, k_steps);
    if (!wanted || best == 1) return;
    // KEY: the slices as split-K cuts them, never an empty one (6 K steps in 4: 2 + 2 + 2)
    const int steps = k_tiles_per_split(K, kBK, best);
    const int splits = ceil_div(k_steps, steps);
    const size_t slots = static_cast<size_t>(left) * cluster_blocks * consumer_warps;
    const size_t partial_bytes = slots * splits * tail_warp_floats(bn) * sizeof(float);
    if (!workspace_.try_allocate(partial_bytes + slots * sizeof(int), stream)) return;
    tail_.whole_units = units - left;
    tail_.tail_tiles = left;
    tail_.tail_splits = splits;
    tail_.tail_steps = steps;
    tail_.partials = workspace_.as<float>();
    tail_.arrivals = reinterpret_cast<int*>(workspace_.as<char>() + partial_bytes);
    // The pool's memory holds whatever its last user left: the counters start at 0.
    CUDA_CHECK(cudaMemsetAsync(tail_.arrivals, 0, slots * sizeof(int), stream));
  }
  const TailSplit& args() const { return tail_; }

 private:
  TailSplit tail_{0, 0, 0, 0, nullptr, nullptr};
  StreamWorkspace workspace_;  // this call's, on its stream (common/workspace.cuh)
};

// The bands of the grouped tile order for a launch in clusters of `cluster` blocks stacked along
// M. tile_grouped walks cluster tiles, each `cluster` block rows tall, so kGroupM rows of block
// tiles are kGroupM / cluster rows of cluster tiles; but never fewer than one, since tile_grouped
// divides by it: kGroupM = 1 (the row-major order) gives bands of one row of cluster tiles, that
// is `cluster` block rows, the row-major order of the cluster tiles. (An odd kGroupM rounds down:
// kGroupM = 5 in clusters of 2 gives bands of 2 cluster rows, 4 block rows.)
constexpr int cluster_group_m(int cluster) { return std::max(1, kGroupM / cluster); }

// One launch of the BM x BN kernel over `splits` slices of K, in clusters of CLUSTER blocks, with
// the last wave split by K where `tail_split` (only in clusters, only without split-K).
template <int STAGES, bool PERSISTENT, int BM, int BN, int CLUSTER = 1, bool TMA_STORE = false>
void run(const TensorMaps& maps, float* C, int M, int N, int K, int splits, cudaStream_t stream,
         bool tail_split = false) {
  const int tiles = ceil_div(ceil_div(M, BM), CLUSTER) * ceil_div(N, BN);  // cluster tiles
  const int per_split = k_tiles_per_split(K, kBK, splits);  // K steps per slice
  // Never a slice without K steps (the plans make none): its unit would arrive on a stage's
  // `empty` barrier that no copy filled, and the pipeline's phases would drift apart.
  splits = ceil_div(ceil_div(K, kBK), per_split);
  const SplitKOutput out(C, M, N, splits, stream);  // C, or this call's workspace
  const bool pairs = warp_tiling::float2_stores_ok(out.data(), N);
  // KEY: step 2 launches a block per tile; step 3 a block per SM (never more than the units);
  // step 4 a cluster per pair of SMs that can hold one.
  const int units = tiles * splits;
  using Layout = SharedLayout<STAGES, BM, BN>;
  constexpr int smem = TMA_STORE ? Layout::kBytesWithStaging : Layout::kBytes;
  constexpr auto kernel = wgmma_ws_kernel<STAGES, PERSISTENT, BM, BN, CLUSTER, TMA_STORE>;
  // Step 5's stores go to C itself: never with split-K (the launcher sees to it).
  const CUtensorMap map_c = TMA_STORE ? c_tensor_map(C, M, N) : CUtensorMap{};
  if constexpr (CLUSTER == 1) {
    const int blocks = PERSISTENT ? std::min(units, current_sm_count()) : tiles;
    const TailSplit whole = {units, 0, 0, 0, nullptr, nullptr};  // every unit whole
    kernel<<<blocks, ws_threads<BM>(), smem, stream>>>(maps.a, maps.b, map_c, out.data(), M, N,
                                                       K, pairs, kGroupM, splits, per_split,
                                                       out.slice_floats(), whole);
    GEMM_LAUNCH_CHECK();
  } else {
    static_assert(PERSISTENT, "clusters only in the persistent kernel");
    const int clusters = std::min(units, cluster_slots());
    const TailSplitPlan plan(tail_split && splits == 1, units, clusters, K, CLUSTER,
                           ws_threads<BM>() / 32 - 4, BN, stream);
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config =
        cluster_config(CLUSTER * clusters, ws_threads<BM>(), smem, stream, &attribute, CLUSTER);
    // KEY: the tile order's bands counted in cluster tiles, never 0 (cluster_group_m).
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, maps.a, maps.b, map_c, out.data(), M, N, K,
                                  pairs, cluster_group_m(CLUSTER), splits, per_split,
                                  out.slice_floats(), plan.args()));
  }
  out.reduce(stream);  // KEY: the slices added into C in a fixed order
}

void launch(bool persistent, Choice choice, const __half* A, const __half* B, float* C, int M,
            int N, int K, cudaStream_t stream) {
  if (!ready()) {  // not Hopper, or not built for sm_90a
    warp_tiling::launch_mma_sync_pipelined(A, B, C, M, N, K, stream);
    return;
  }
  const AlignedOperands ops(A, B, M, N, K, stream);
  const TensorMaps maps = make_tensor_maps(ops, M, N);
  if (!persistent) {
    run<kStages, false, 128, 256>(maps, C, M, N, ops.k(), 1, stream);
    return;
  }
  const LaunchPlan plan = plan_for(M, N, ops.k(), ops.ldb(), choice);
  switch (plan.config) {
    case kNarrowTile:
      run<kStagesNarrow, true, 128, 128>(maps, C, M, N, ops.k(), plan.splits, stream);
      break;
    case kShortTile:
      run<kStagesShort, true, 64, 128>(maps, C, M, N, ops.k(), plan.splits, stream);
      break;
    default:
      // KEY: step 4. The 128 x 256 tile over all of K runs in clusters, unless told not to (or
      // the GPU has no room for one).
      // KEY: step 5, stores by TMA, where C's rows start at 16-byte boundaries.
      // (wgmma_persistent_tail_split: and the last wave split by K.)
      if (plan.splits == 1 && choice != Choice::kNoCluster && cluster_slots() > 0) {
        const bool step_5 = choice != Choice::kNoTmaStore;
        const bool split_tail = choice == Choice::kTailSplit;
        if (step_5 && tma_stores_ok(C, N))
          run<kStages, true, 128, 256, kCluster, true>(maps, C, M, N, ops.k(), 1, stream,
                                                       split_tail);
        else
          run<kStages, true, 128, 256, kCluster>(maps, C, M, N, ops.k(), 1, stream, split_tail);
      } else
        run<kStages, true, 128, 256>(maps, C, M, N, ops.k(), plan.splits, stream);
  }
}

template <Choice CHOICE>
void launch_persistent(const __half* A, const __half* B, float* C, int M, int N, int K,
                       cudaStream_t stream) {
  launch(true, CHOICE, A, B, C, M, N, K, stream);
}

// The note: what ran instead off Hopper (runs_instead, hopper_host.cu); else the plan, where the
// launcher chose something other than its 128 x 256 tile over all of K.
template <Choice CHOICE>
std::string persistent_ran(const void* A, const void* B, const float* C, int M, int N, int K) {
  if (!runs_here()) return runs_instead(A, B, C, M, N, K);
  const RowLengths rows =
      aligned_row_lengths(static_cast<const __half*>(A), static_cast<const __half*>(B), N, K);
  const LaunchPlan plan = plan_for(M, N, rows.k, rows.ldb, CHOICE);
  if (CHOICE == Choice::kSplitK && plan.splits == 1) return "ran 128x256: K has 1 step, no split";
  const bool wide_whole_k = plan.config == kWide && plan.splits == 1;
  if (wide_whole_k && CHOICE != Choice::kNoCluster && cluster_slots() == 0)
    return "ran 128x256 without clusters: no 2 SMs of one GPC free";
  if (CHOICE == Choice::kTailSplit && wide_whole_k && cluster_slots() > 0) {
    const int units = ceil_div(ceil_div(M, kBM), kCluster) * ceil_div(N, kBN);
    const int clusters = std::min(units, cluster_slots());
    if (tail_slices(units % clusters, clusters, ceil_div(rows.k, kBK)) == 1)
      return "every tile whole: no split of the last wave beats that here";
  }
  if (wide_whole_k &&
      (CHOICE == Choice::kAuto || CHOICE == Choice::kNoSplit || CHOICE == Choice::kTailSplit) &&
      !tma_stores_ok(C, N))
    return "C stored from registers: its rows do not start at 16-byte boundaries";
  if (CHOICE != Choice::kAuto || wide_whole_k) return "";
  return "ran " + plan.describe(configs());
}
}  // namespace

void launch_wgmma_warp_specialized(const __half* A, const __half* B, float* C, int M, int N,
                                   int K, cudaStream_t stream) {
  launch(false, Choice::kNoSplit, A, B, C, M, N, K, stream);
}

void launch_wgmma_persistent(const __half* A, const __half* B, float* C, int M, int N, int K,
                             cudaStream_t stream) {
  launch(true, Choice::kAuto, A, B, C, M, N, K, stream);
}

std::vector<Variant> wgmma_persistent_variants() {
  return {
      {"wgmma_persistent", nullptr, launch_wgmma_persistent,
       "+ one block per SM looping over tiles in an L2-friendly order; a narrower tile or "
       "split-K where the waves say so (sm_90a)",
       persistent_ran<Choice::kAuto>},
      {"wgmma_persistent_no_split", nullptr, launch_persistent<Choice::kNoSplit>,
       "wgmma_persistent forced to its 128 x 256 tile (no split-K slices), in clusters of 2",
       persistent_ran<Choice::kNoSplit>},
      {"wgmma_persistent_no_tma_store", nullptr, launch_persistent<Choice::kNoTmaStore>,
       "wgmma_persistent forced to its 128 x 256 tile over all of K, in clusters of 2, C stored "
       "from registers (step 4)",
       persistent_ran<Choice::kNoTmaStore>},
      {"wgmma_persistent_no_cluster", nullptr, launch_persistent<Choice::kNoCluster>,
       "wgmma_persistent forced to its 128 x 256 tile over all of K, one block per SM, no clusters "
       "(step 3)",
       persistent_ran<Choice::kNoCluster>},
      {"wgmma_persistent_splitk", nullptr, launch_persistent<Choice::kSplitK>,
       "wgmma_persistent forced to split-K (128 x 256, at least 2 slices of K)",
       persistent_ran<Choice::kSplitK>},
      {"wgmma_persistent_tail_split", nullptr, launch_persistent<Choice::kTailSplit>,
       "wgmma_persistent forced to its 128 x 256 tile in clusters of 2, its last wave's tiles cut "
       "into slices of K shared by all clusters (an experiment: docs/notes/07_hopper.md, \"What did "
       "not pay\")",
       persistent_ran<Choice::kTailSplit>},
      {"wgmma_persistent_128x128", nullptr, launch_persistent<Choice::kNarrow>,
       "wgmma_persistent forced to its 128 x 128 tile (wgmma m64n128k16, 6 stages; no split-K)",
       persistent_ran<Choice::kNarrow>},
      {"wgmma_persistent_64x128", nullptr, launch_persistent<Choice::kShort>,
       "wgmma_persistent forced to its 64 x 128 tile (one consumer warpgroup, 8 stages; no "
       "split-K)",
       persistent_ran<Choice::kShort>},
  };
}

// Each kernel under the name of the step (variant) that runs it; the headline, wgmma_persistent,
// runs the clustered kernel with TMA stores (and the 128x128 and 64x128 kernels where its plan
// picks a smaller tile).
std::vector<KernelResources> wgmma_ws_kernels() {
  return {{"wgmma_warp_specialized", reinterpret_cast<const void*>(kKernelWs), kWsThreads,
           kSmemBytes},
          {"wgmma_persistent_no_cluster", reinterpret_cast<const void*>(kKernelPersistent),
           kWsThreads, kSmemBytes},
          {"wgmma_persistent 128x128", reinterpret_cast<const void*>(kKernelNarrow), kWsThreads,
           kSmemNarrow},
          {"wgmma_persistent 64x128", reinterpret_cast<const void*>(kKernelShort),
           ws_threads<64>(), kSmemShort},
          {"wgmma_persistent_no_tma_store", reinterpret_cast<const void*>(kKernelCluster),
           kWsThreads, kSmemBytes},
          {"wgmma_persistent", reinterpret_cast<const void*>(kKernelTmaStore), kWsThreads,
           kSmemTmaStore}};
}

}  // namespace gemm::hopper
