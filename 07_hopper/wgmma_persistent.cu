// =================================================================================================
// Chapter 07 - the launcher of steps 3 to 5, wgmma_persistent: the chapter's headline. The kernel
// is in wgmma_persistent.cuh (its comment explains steps 3, 4 and 5); this file chooses what to
// run for each shape:
//   - the tile (128 x 256, 128 x 128 or 64 x 128) and split-K, by counting waves as chapter 06's
//     mma_sync_pipelined does (plan_by_waves, common/waves.hpp);
//   - for the 128 x 256 tile over all of K: clusters of 2 (step 4), if the GPU has room for one;
//   - and C stored by TMA (step 5) where C's rows start at 16-byte boundaries.
// wgmma_persistent_no_split, _splitk, _128x128 and _64x128 force one tile or split-K;
// _no_cluster (step 3) and _no_tma_store (step 4) stop before a step.
// Build and run:  cmake --build build --target 07_hopper
//                 ./build/bin/07_hopper --variant wgmma_persistent
// Reference GPU figure: in wgmma_persistent.cuh, and README.md, "Measured" (generated from the
// benchmark CSV).
// =================================================================================================
#include "07_hopper/wgmma_persistent.cuh"

#include <algorithm>
#include <string>
#include <vector>

#include "06_warp_tiling/warp_tiling.cuh"  // launch_mma_sync_pipelined: the fallback
#include "07_hopper/hopper.cuh"
#include "common/cuda_check.cuh"
#include "common/per_device.cuh"
#include "common/split_k.cuh"
#include "common/waves.hpp"

namespace gemm::hopper {
namespace {

// The kernels. Every tile gets as many stages as fit in the same shared memory: a 128 x 128
// stage is 2/3 the bytes of a 128 x 256 one, a 64 x 128 stage half of them. The 64 x 128 tile also
// has a kernel with half of its stages, two blocks per SM (kStagesShortPair, 4:
// wgmma_persistent.cuh says why).
constexpr int kStages = kStagesWide, kStagesNarrow = 6, kStagesShort = 8;  // 4, 6, 8
constexpr int kCluster = kClusterBlocks;  // 2 (hopper_host.cuh)
template <int STAGES, int BM, int BN, int CLUSTER = 1, bool TMA_STORE = false>
constexpr auto kKernel = wgmma_persistent_kernel<STAGES, BM, BN, CLUSTER, TMA_STORE, SplitKUnits>;
template <int STAGES, int BM, int BN, bool TMA_STORE = false>
constexpr int kSmem = TMA_STORE ? SharedLayout<STAGES, BM, BN>::kBytesWithStaging
                                : SharedLayout<STAGES, BM, BN>::kBytes;
// Step 3, and the 128 x 256 tile under split-K; its two smaller tiles; step 4; step 5.
constexpr auto kKernelWide = kKernel<kStages, 128, 256>;
constexpr auto kKernelNarrow = kKernel<kStagesNarrow, 128, 128>;
constexpr auto kKernelShort = kKernel<kStagesShort, 64, 128>;
constexpr auto kKernelShortPair = kKernel<kStagesShortPair, 64, 128>;
constexpr auto kKernelCluster = kKernel<kStages, 128, 256, kCluster>;
constexpr auto kKernelTmaStore = kKernel<kStages, 128, 256, kCluster, true>;
constexpr int kSmemWide = kSmem<kStages, 128, 256>;            // 197696
constexpr int kSmemNarrow = kSmem<kStagesNarrow, 128, 128>;    // 197728
constexpr int kSmemShort = kSmem<kStagesShort, 64, 128>;       // 197760
constexpr int kSmemShortPair = kSmem<kStagesShortPair, 64, 128>;  // 99392
// Two blocks of it fit an SM: 228 KiB of shared memory, of which the GPU reserves 1 KiB per block.
static_assert(2 * (kSmemShortPair + 1024) <= 228 * 1024, "two 64 x 128 blocks must fit an SM");
constexpr int kSmemTmaStore = kSmem<kStages, 128, 256, true>;  // 231424: + C's staging

// Once per GPU (common/per_device.cuh): runs this GPU the sm_90a code, and may each kernel use
// its shared memory there?
bool ready() {
  static PerDevice<bool> ready_on;
  return ready_on.get([](int) {
    if (!runs_here()) return false;
    allow_shared_memory({{kKernelWide, kSmemWide},
                         {kKernelNarrow, kSmemNarrow},
                         {kKernelShort, kSmemShort},
                         {kKernelShortPair, kSmemShortPair},
                         {kKernelCluster, kSmemWide},
                         {kKernelTmaStore, kSmemTmaStore}});
    return true;
  });
}
}  // namespace

// How many clusters of the step-4 kernel the current GPU runs at once (max_active_clusters,
// hopper_host.cuh; 66 on an H100 SXM), asked once per GPU through PerDevice; 0 where the kernels
// cannot run. After ready(): the occupancy query counts no block of a kernel not yet allowed its
// shared memory (before 3bb74a7 a note asked for before the first launch on a GPU could have
// cached 0 clusters there). Step 5's kernel takes 33,728 bytes more shared memory than step 4's
// (C's staging, at a 1024-byte boundary): one block per SM all the same, so the same count for
// both. PerDevice's relaxed capture mode costs nothing where it is not needed.
int cluster_slots() {
  if (!ready()) return 0;
  static PerDevice<int> slots_on;
  return slots_on.get(
      [](int) { return max_active_clusters(kKernelCluster, kCluster, kWsThreads, kSmemWide); });
}

namespace {

// The tiles for plan_by_waves, one block per SM each; `warps` counts the consumer warps (the
// producer warpgroup only issues copies). `speed`, from each tile forced on its own on an H200:
//   128x128: 85.0% of cuBLAS at 4096^3, against 96.0% for 128x256: 0.88. Its shared memory
//     feeds the tensor cores 1.33 x the bytes per flop of 128x256.
//   64x128: 1.5 x 128x128's bytes per flop, and one warpgroup to issue its wgmmas. 69.1% against
//     95.7% at 4096^3 (0.72, one block per SM: measured before 79e1747, which runs it two per SM
//     where its units outnumber the SMs), but where both fill the GPU with one wave, the 64x128
//     tile in 4 slices (84.7%) lost to 128x128 in 8 (91.4%, 512 x 512 x 16384), which asks for
//     less than 0.68; 128 x 4096 x 4096 (64x128 in 2 slices, 82.0%, against 128x128 in 4, 66.8%
//     without) asks for more than 0.57. 0.65 picks the faster of the two on every shape measured.
//     And 64x128 is a candidate only where the rows of A and B are whole 128-byte lines (K and
//     the row length of B multiples of 64 halves): at 1000^3 (rows of 2000 bytes, so most
//     128-byte rows of a TMA box straddle two lines), it took 14.2 us against 9.9 us at 1024^3,
//     slower than 128x128 there (12.6 us), which lost only 7% to its own 1024^3.
// The plan counts each tile one block per SM, as these were measured: where launch() then runs the
// 64 x 128 tile two per SM (more units than SMs), the waves it counted are the one-block launch's,
// not those that run, and the 0.65 may undervalue the tile there.
enum Config { kWide = 0, kNarrowTile = 1, kShortTile = 2 };
const std::vector<TileConfig>& configs() {
  static const std::vector<TileConfig> list = {
      {"128x256", 128, 256, kBK, 8, 1, 1.0, kSplitDepthTensor},
      {"128x128", 128, 128, kBK, 8, 1, 0.88, kSplitDepthTensor},
      {"64x128", 64, 128, kBK, 4, 1, 0.65, kSplitDepthTensor}};
  return list;
}

// What the launcher runs: chosen by waves (kAuto), or one choice forced. kNoCluster is step 3
// (the 128 x 256 tile over all of K, one block per SM, C stored from registers); kNoTmaStore step 4
// (the same in clusters of 2).
enum class Choice { kAuto, kNoSplit, kSplitK, kNarrow, kShort, kNoCluster, kNoTmaStore };

// k and ldb: the rows of A and B as the kernel reads them (AlignedOperands, after any packing).
LaunchPlan plan_for(int M, int N, int k, int ldb, Choice choice) {
  int forced = kByWaves;
  if (choice == Choice::kNoSplit || choice == Choice::kSplitK || choice == Choice::kNoCluster ||
      choice == Choice::kNoTmaStore)
    forced = kWide;
  if (choice == Choice::kNarrow) forced = kNarrowTile;
  if (choice == Choice::kShort) forced = kShortTile;
  const std::vector<TileConfig>& all = configs();
  const bool whole_lines = k % 64 == 0 && ldb % 64 == 0;  // rows of 128-byte multiples
  if (forced != kByWaves || whole_lines)                  // KEY: counting waves (common/waves.cpp)
    return plan_launch(all, M, N, k, current_sm_count(), forced, choice == Choice::kSplitK);
  static const std::vector<TileConfig> without_64x128(all.begin(), all.begin() + kShortTile);
  return plan_launch(without_64x128, M, N, k, current_sm_count(), forced, false);
}

// One launch of the BM x BN kernel over `splits` slices of K, in clusters of CLUSTER blocks.
template <int STAGES, int BM, int BN, int CLUSTER = 1, bool TMA_STORE = false>
void run(const TensorMaps& maps, float* C, int M, int N, int K, int splits, cudaStream_t stream) {
  const int tiles = cluster_tiles(M, N, BM, BN, CLUSTER);
  const int per_split = k_tiles_per_split(K, kBK, splits);  // K steps per slice
  // Never a slice without K steps (the plans make none): its unit would arrive on a stage's
  // `empty` barrier that no copy filled, and the pipeline's phases would drift apart.
  splits = ceil_div(ceil_div(K, kBK), per_split);
  const SplitKOutput out(C, M, N, splits, stream);  // C, or this call's workspace
  const bool pairs = warp_tiling::float2_stores_ok(out.data(), N);
  SplitKUnits units;
  units.tiles = tiles;
  units.splits = splits;
  units.k_steps = ceil_div(K, kBK);
  units.steps_per_split = per_split;
  units.out = out.data();
  units.slice_floats = out.slice_floats();
  constexpr auto kernel = kKernel<STAGES, BM, BN, CLUSTER, TMA_STORE>;
  constexpr int smem = kSmem<STAGES, BM, BN, TMA_STORE>;
  // Step 5's stores go to C itself: never with split-K (the launcher sees to it).
  const CUtensorMap map_c = TMA_STORE ? c_tensor_map(C, M, N) : CUtensorMap{};
  if constexpr (CLUSTER == 1) {
    // KEY: step 3, a block per SM (two for the 64 x 128 tile's kernel built for it), never more
    // than the units
    const int blocks = std::min(units.count(), blocks_per_sm<STAGES, BM>() * current_sm_count());
    kernel<<<blocks, ws_threads<BM>(), smem, stream>>>(maps.a, maps.b, map_c, M, N, pairs, kGroupM,
                                                       units);
    GEMM_LAUNCH_CHECK();
  } else {
    // KEY: step 4, at most a cluster per pair of SMs that can hold one, and only as many as
    // finish the units in the fewest rounds (balanced_slots, common/waves.hpp: 64 of the 66 for
    // the 256 cluster tiles of 4096^3, 4 rounds either way; notes/07, "How many clusters");
    // the tile order's bands counted in cluster tiles, never 0 (cluster_group_m, hopper_tiles.cuh).
    const int clusters = balanced_slots(units.count(), cluster_slots());
    launch_in_clusters(kernel, clusters, CLUSTER, ws_threads<BM>(), smem, stream, maps.a, maps.b,
                       map_c, M, N, pairs, cluster_group_m(CLUSTER), units);
  }
  out.reduce(stream);  // KEY: the slices added into C in a fixed order
}

void launch(Choice choice, const __half* A, const __half* B, float* C, int M, int N, int K,
            cudaStream_t stream) {
  if (!ready()) {  // not Hopper, or not built for sm_90a
    warp_tiling::launch_mma_sync_pipelined(A, B, C, M, N, K, stream);
    return;
  }
  const AlignedOperands ops(A, B, M, N, K, stream);
  const TensorMaps maps = make_tensor_maps(ops, M, N);
  const LaunchPlan plan = plan_for(M, N, ops.k(), ops.ldb(), choice);
  switch (plan.config) {
    case kNarrowTile:
      run<kStagesNarrow, 128, 128>(maps, C, M, N, ops.k(), plan.splits, stream);
      break;
    case kShortTile:
      // KEY: where the units (tiles x slices of K) outnumber the SMs, two blocks per SM with 4
      // stages each (wgmma_persistent.cuh says why); where one round of one block per SM does
      // them all (1024^3 on 132 SMs), one block per SM with 8 stages in flight.
      if (cluster_tiles(M, N, 64, 128, 1) * plan.splits > current_sm_count())
        run<kStagesShortPair, 64, 128>(maps, C, M, N, ops.k(), plan.splits, stream);
      else
        run<kStagesShort, 64, 128>(maps, C, M, N, ops.k(), plan.splits, stream);
      break;
    default:
      // KEY: step 4. The 128 x 256 tile over all of K runs in clusters, unless told not to (or
      // the GPU has no room for one); step 5, stores by TMA, where C's rows start at 16-byte
      // boundaries.
      if (plan.splits == 1 && choice != Choice::kNoCluster && cluster_slots() > 0) {
        if (choice != Choice::kNoTmaStore && tma_stores_ok(C, N))
          run<kStages, 128, 256, kCluster, true>(maps, C, M, N, ops.k(), 1, stream);
        else
          run<kStages, 128, 256, kCluster>(maps, C, M, N, ops.k(), 1, stream);
      } else {
        run<kStages, 128, 256>(maps, C, M, N, ops.k(), plan.splits, stream);
      }
  }
}

template <Choice CHOICE>
void launch_persistent(const __half* A, const __half* B, float* C, int M, int N, int K,
                       cudaStream_t stream) {
  launch(CHOICE, A, B, C, M, N, K, stream);
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
    return kNoteNoClusters;
  if (wide_whole_k && (CHOICE == Choice::kAuto || CHOICE == Choice::kNoSplit) &&
      !tma_stores_ok(C, N))
    return kNoteCFromRegisters;
  if (CHOICE != Choice::kAuto || wide_whole_k) return "";
  return "ran " + plan.describe(configs());
}
}  // namespace

void launch_wgmma_persistent(const __half* A, const __half* B, float* C, int M, int N, int K,
                             cudaStream_t stream) {
  launch(Choice::kAuto, A, B, C, M, N, K, stream);
}

// Step 3 alone, public: the tail-split experiment runs it where the GPU has no room for a cluster.
void launch_wgmma_persistent_no_cluster(const __half* A, const __half* B, float* C, int M, int N,
                                        int K, cudaStream_t stream) {
  launch(Choice::kNoCluster, A, B, C, M, N, K, stream);
}

std::vector<Variant> wgmma_persistent_variants() {
  return {
      {"wgmma_persistent", nullptr, launch_wgmma_persistent,
       "+ one block per SM (two of the 64 x 128 tile) looping over tiles in an L2-friendly order; "
       "a narrower tile or split-K where the waves say so (sm_90a)",
       persistent_ran<Choice::kAuto>},
      {"wgmma_persistent_no_split", nullptr, launch_persistent<Choice::kNoSplit>,
       "wgmma_persistent forced to its 128 x 256 tile (no split-K slices), in clusters of 2",
       persistent_ran<Choice::kNoSplit>},
      {"wgmma_persistent_no_tma_store", nullptr, launch_persistent<Choice::kNoTmaStore>,
       "wgmma_persistent forced to its 128 x 256 tile over all of K, in clusters of 2, C stored "
       "from registers (step 4)",
       persistent_ran<Choice::kNoTmaStore>},
      {"wgmma_persistent_no_cluster", nullptr, launch_wgmma_persistent_no_cluster,
       "wgmma_persistent forced to its 128 x 256 tile over all of K, one block per SM, no clusters "
       "(step 3)",
       persistent_ran<Choice::kNoCluster>},
      {"wgmma_persistent_splitk", nullptr, launch_persistent<Choice::kSplitK>,
       "wgmma_persistent forced to split-K (128 x 256, at least 2 slices of K)",
       persistent_ran<Choice::kSplitK>},
      {"wgmma_persistent_128x128", nullptr, launch_persistent<Choice::kNarrow>,
       "wgmma_persistent forced to its 128 x 128 tile (wgmma m64n128k16, 6 stages; no split-K)",
       persistent_ran<Choice::kNarrow>},
      {"wgmma_persistent_64x128", nullptr, launch_persistent<Choice::kShort>,
       "wgmma_persistent forced to its 64 x 128 tile (one consumer warpgroup; 8 stages, or 4 and "
       "two blocks per SM where its tiles outnumber the SMs; no split-K)",
       persistent_ran<Choice::kShort>},
  };
}

// Each kernel under the name of the step (variant) that runs it; the headline, wgmma_persistent,
// runs the clustered kernel with TMA stores (and the 128x128 and 64x128 kernels where its plan
// picks a smaller tile).
std::vector<KernelResources> wgmma_persistent_kernels() {
  auto entry = [](const char* name, auto kernel, int threads, size_t smem) {
    return KernelResources{name, reinterpret_cast<const void*>(kernel), threads, smem};
  };
  return {entry("wgmma_persistent_no_cluster", kKernelWide, kWsThreads, kSmemWide),
          entry("wgmma_persistent 128x128", kKernelNarrow, kWsThreads, kSmemNarrow),
          entry("wgmma_persistent 64x128", kKernelShort, ws_threads<64>(), kSmemShort),
          entry("wgmma_persistent 64x128 (2 per SM)", kKernelShortPair, ws_threads<64>(),
                kSmemShortPair),
          entry("wgmma_persistent_no_tma_store", kKernelCluster, kWsThreads, kSmemWide),
          entry("wgmma_persistent", kKernelTmaStore, kWsThreads, kSmemTmaStore)};
}

}  // namespace gemm::hopper
