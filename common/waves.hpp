// Launch plans by counting waves: which tile configuration, and how many slices of K (split-K),
// a shape-aware launcher runs (plain C++: the CPU tests check the rule without a GPU).
//
// A launch of `units` blocks, of which the GPU holds SMs x blocks_per_sm at a time, runs in
// ceil(units / (SMs x blocks_per_sm)) waves; the last one may be nearly empty (the tail). A
// 128 x 256 tile makes 32 blocks for a 1024 x 1024 C: on a 132-SM GPU, 100 SMs idle for the whole
// run. Two remedies: a smaller tile (more blocks, each loading more bytes per FMA), or split-K: cut
// K into `splits` slices, one block per (tile, slice), each writing its partial sums to a
// workspace, then a second kernel adds the slices up in a fixed order (common/split_k.cuh).
// docs/tile_size_tradeoffs.md, "Waves", is the lesson behind it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gemm {

// One tile configuration a launcher can run.
struct TileConfig {
  std::string name;    // e.g. "128x256"
  int bm, bn, bk;      // block tile and K step
  int warps;           // warps per block
  int blocks_per_sm;   // resident blocks per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
  double speed;        // relative throughput of one whole SM running this configuration (the
                       // largest tile 1.0; measured, see the launcher)
  double split_depth;  // what one more slice of K costs, as a depth of K (kSplitDepthFp32 or
                       // kSplitDepthTensor below)
};

// What a launcher will run: which configuration, with how many K slices, in how many waves.
struct LaunchPlan {
  int config = 0;      // index into the candidates
  int splits = 1;      // 1: no split-K
  int waves = 0;
  std::string describe(const std::vector<TileConfig>& configs) const;  // "128x256, split-K 4"
};

// The rule, in a few lines (waves.cpp): for every configuration and every split count
// s = 1, 2, ... (s <= kMaxSplits, and K at least s x kMinTilesPerSplit steps deep: that many per
// slice on average, the last slice may get fewer), estimate
//   waves = ceil(tiles x s / (SMs x blocks_per_sm))
//   time  ~ waves x (work of one block) x (blocks sharing an SM) / (speed x busy)
//           x (1 + kSplitFixed + (s - 1) x split_depth / K)      (the last factor only if s > 1)
// and take the smallest. `busy` is the share of the SM's kSchedulersPerSm warp schedulers that the
// blocks sharing it keep busy: a warp runs on one scheduler, so one block of 2 warps alone on an
// SM leaves half of them idle. The last factor is what split-K costs. Each extra slice writes
// M x N partial sums and the reduction reads them back: 8 bytes per element of C, against the
// 2 K flops that computing the element takes. That costs as much as the multiplication itself
// when K is about 4 x (flops per second) / (bytes per second): `split_depth`. The tensor cores do
// many times the FP32 pipe's flops for the same memory (the H200's measured mma.sync ceiling is
// about 9 times its FP32 peak, docs/figures/machine.csv; the datasheets' dense fp16 peak about 15
// times), so their split_depth should be that much larger (fitted to the measurements, the two
// constants below differ by 24x): split-K pays off for tensor cores only where K is much deeper.
// kSplitFixed stands for the second kernel's launch. The constants are fitted to the forced
// variants (each configuration timed at every shape of the benchmark) on an H200. One cost for
// both, 5% per slice (about right for FP32 at K = 1024), made 06's launcher split 1024^3 into 4
// slices at 40% of cuBLAS, where its 64 x 128 tile alone ran at 65%. `max_splits` = 1: no split-K.
constexpr int kMinTilesPerSplit = 4;
constexpr int kMaxSplits = 32;
constexpr double kSplitFixed = 0.02;
constexpr double kSplitDepthFp32 = 64;      // chapter 04: FP32 on the CUDA cores
constexpr double kSplitDepthTensor = 1536;  // chapters 06 and 07: fp16 on the tensor cores
constexpr int kSchedulersPerSm = 4;  // 4 SM sub-partitions from Maxwell on (GP100, sm_60: 2)
LaunchPlan plan_by_waves(const std::vector<TileConfig>& configs, int M, int N, int K, int sms,
                         int max_splits = kMaxSplits);

// A launcher's plan: chosen by waves among all `configs` (forced = kByWaves), or the one
// configuration configs[forced], which a forced variant asks for: no split-K, or, with `split_k`,
// as many slices as the rule would take and at least 2 where K has 2 steps.
constexpr int kByWaves = -1;
LaunchPlan plan_launch(const std::vector<TileConfig>& configs, int M, int N, int K, int sms,
                       int forced, bool split_k);

// How many of K's BK-deep steps each of `splits` slices gets (the last slice may get fewer), and
// the number of slices that then actually hold work: ceil(k_tiles / per_split).
int k_tiles_per_split(int K, int bk, int splits);

// A persistent launch: `units` pieces of work dealt round-robin to at most `slots` resident blocks
// (or clusters) takes ceil(units / slots) rounds. So do ceil(units / rounds) of them, each given
// `rounds` or `rounds` - 1 units: the fewest that finish in as many rounds, and the count
// chapter 07's cluster launch takes (64 clusters for the 256 cluster tiles of 4096^3, where 66
// fit; 4 rounds either way; its one-block-per-SM launches keep min(units, SMs)). At least 1;
// `slots` < 1 counts as 1.
int balanced_slots(int units, int slots);

// Floats between two slices of partial sums in the workspace: M x N rounded up to a multiple of
// 4, so that every slice starts 16-byte aligned (chapter 04's float4 stores, and 06's and 07's
// float2 stores, stay aligned).
size_t split_k_slice_floats(int M, int N);

}  // namespace gemm
