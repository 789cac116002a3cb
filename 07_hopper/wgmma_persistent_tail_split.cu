// =================================================================================================
// Chapter 07 - the launcher of the tail-split experiment, wgmma_persistent_tail_split
// (wgmma_persistent_tail_split.cuh explains it; docs/notes/07_hopper.md, "What did not pay", says
// what it gave). Step 5's kernel in clusters of 2, its last wave cut into slices of K.
// Build and run:  cmake --build build --target 07_hopper
//                 ./build/bin/07_hopper --variant wgmma_persistent_tail_split --size 8192
// =================================================================================================
#include "07_hopper/wgmma_persistent_tail_split.cuh"

#include <algorithm>
#include <string>
#include <vector>

#include "06_warp_tiling/warp_tiling.cuh"  // float2_stores_ok
#include "07_hopper/hopper.cuh"
#include "common/cuda_check.cuh"
#include "common/per_device.cuh"
#include "common/split_k.cuh"

namespace gemm::hopper {
namespace {

constexpr int kStages = kStagesWide;      // 4: step 5's (wgmma_persistent.cuh)
constexpr int kCluster = kClusterBlocks;  // 2 (hopper_host.cuh)
using Units = TailSplitUnits<kCluster>;
// Step 5's kernel (C by TMA stores), and step 4's where C's rows are not 16-byte aligned.
constexpr auto kKernelTmaStore = wgmma_persistent_kernel<kStages, 128, 256, kCluster, true, Units>;
constexpr auto kKernelCluster = wgmma_persistent_kernel<kStages, 128, 256, kCluster, false, Units>;
constexpr int kSmemTmaStore = SharedLayout<kStages>::kBytesWithStaging;  // 231424
constexpr int kSmemCluster = SharedLayout<kStages>::kBytes;              // 197696

// Once per GPU (common/per_device.cuh): runs this GPU the sm_90a code, and may each kernel use
// its shared memory there?
bool ready() {
  static PerDevice<bool> ready_on;
  return ready_on.get([](int) {
    if (!runs_here()) return false;
    allow_shared_memory({{kKernelTmaStore, kSmemTmaStore}, {kKernelCluster, kSmemCluster}});
    return true;
  });
}

// Clusters of 2 that run at once (cluster_slots, wgmma_persistent.cu: steps 4 and 5 launch at most
// that many, and only as many as their rounds need), the same for these kernels, which take the
// same threads and shared memory; this experiment launches all of them; 0 where they cannot run.
int clusters_here() { return ready() ? cluster_slots() : 0; }

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

// The plan for one call: the full waves computed whole, then the last wave's tiles in the number
// of slices of K that finishes them soonest, and this call's workspace for the pieces' partial
// sums. With r tiles left for C clusters, s slices take ceil(r s / C) rounds of 1 / s of a tile:
// 8192^3 on 66 clusters leaves 34 tiles, which take 1 round whole, 2 rounds of 1/2 in 2 slices, 2
// of 1/3 in 3, 3 of 1/4 in 4; 3 slices win. Where no number of slices beats whole tiles (4096^3:
// 58 tiles left, 0.88 of a wave), or the workspace does not fit in the GPU's memory, every tile
// stays whole.
class TailSplitPlan {
 public:
  TailSplitPlan(float* C, int tiles, int clusters, int K, cudaStream_t stream) {
    const int k_steps = ceil_div(K, kBK), left = tiles % clusters;
    units_ = {tiles, k_steps, 0, 0, 0, C, nullptr, nullptr};  // every tile whole
    const int best = tail_slices(left, clusters, k_steps);
    if (best == 1) return;
    // KEY: the slices as split-K cuts them, never an empty one (6 K steps in 4: 2 + 2 + 2)
    const int steps = k_tiles_per_split(K, kBK, best);
    const int splits = ceil_div(k_steps, steps);
    const size_t slots = static_cast<size_t>(left) * kCluster * Units::kConsumerWarps;
    const size_t partial_bytes = slots * splits * tail_warp_floats(kBN) * sizeof(float);
    if (!workspace_.try_allocate(partial_bytes + slots * sizeof(int), stream)) return;
    units_.whole_units = tiles - left;
    units_.tail_tiles = left;
    units_.tail_splits = splits;
    units_.tail_steps = steps;
    units_.partials = workspace_.as<float>();
    units_.arrivals = reinterpret_cast<int*>(workspace_.as<char>() + partial_bytes);
    // The pool's memory holds whatever its last user left: the counters start at 0.
    CUDA_CHECK(cudaMemsetAsync(units_.arrivals, 0, slots * sizeof(int), stream));
  }
  const Units& units() const { return units_; }

 private:
  Units units_;
  StreamWorkspace workspace_;  // this call's, on its stream (common/workspace.cuh)
};

// Cluster tiles of 256 x 256 (two 128 x 256 block tiles stacked along M).
int tail_cluster_tiles(int M, int N) { return cluster_tiles(M, N, kBM, kBN, kCluster); }

void launch_tail_split(const __half* A, const __half* B, float* C, int M, int N, int K,
                       cudaStream_t stream) {
  if (clusters_here() == 0) {  // no clusters here: step 3 (or off Hopper, what that runs)
    launch_wgmma_persistent_no_cluster(A, B, C, M, N, K, stream);
    return;
  }
  const AlignedOperands ops(A, B, M, N, K, stream);
  const TensorMaps maps = make_tensor_maps(ops, M, N);
  const int tiles = tail_cluster_tiles(M, N);
  const int clusters = std::min(tiles, clusters_here());
  const TailSplitPlan plan(C, tiles, clusters, ops.k(), stream);
  const bool pairs = warp_tiling::float2_stores_ok(C, N);
  if (tma_stores_ok(C, N))
    launch_in_clusters(kKernelTmaStore, clusters, kCluster, kWsThreads, kSmemTmaStore, stream,
                       maps.a, maps.b, c_tensor_map(C, M, N), M, N, pairs,
                       cluster_group_m(kCluster), plan.units());
  else
    launch_in_clusters(kKernelCluster, clusters, kCluster, kWsThreads, kSmemCluster, stream, maps.a,
                       maps.b, CUtensorMap{}, M, N, pairs, cluster_group_m(kCluster), plan.units());
}

// The note: what ran instead off Hopper or without clusters; where no split pays, that every tile
// stayed whole; where C's rows are not 16-byte aligned, that C went out from registers.
std::string tail_split_ran(const void* A, const void* B, const float* C, int M, int N, int K) {
  if (!runs_here()) return runs_instead(A, B, C, M, N, K);
  if (clusters_here() == 0) return kNoteNoClusters;
  const RowLengths rows =
      aligned_row_lengths(static_cast<const __half*>(A), static_cast<const __half*>(B), N, K);
  const int tiles = tail_cluster_tiles(M, N), clusters = std::min(tiles, clusters_here());
  if (tail_slices(tiles % clusters, clusters, ceil_div(rows.k, kBK)) == 1)
    return "every tile whole: no split of the last wave beats that here";
  if (!tma_stores_ok(C, N)) return kNoteCFromRegisters;
  return "";
}
}  // namespace

Variant wgmma_persistent_tail_split_variant() {
  return {"wgmma_persistent_tail_split", nullptr, launch_tail_split,
          "wgmma_persistent forced to its 128 x 256 tile in clusters of 2, its last wave's tiles "
          "cut into slices of K shared by all clusters (an experiment: docs/notes/07_hopper.md, "
          "\"What did not pay\")",
          tail_split_ran};
}

std::vector<KernelResources> wgmma_persistent_tail_split_kernels() {
  return {{"wgmma_persistent_tail_split", reinterpret_cast<const void*>(kKernelTmaStore),
           kWsThreads, kSmemTmaStore},
          {"wgmma_persistent_tail_split (C from registers)",
           reinterpret_cast<const void*>(kKernelCluster), kWsThreads, kSmemCluster}};
}

}  // namespace gemm::hopper
