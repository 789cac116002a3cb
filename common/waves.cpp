// Launch plans by counting waves (waves.hpp explains the rule).
#include "common/waves.hpp"

#include <algorithm>

namespace gemm {
namespace {
int ceil_div_int(int n, int d) { return (n + d - 1) / d; }
}  // namespace

std::string LaunchPlan::describe(const std::vector<TileConfig>& configs) const {
  std::string s = configs[config].name;
  if (splits > 1) s += ", split-K " + std::to_string(splits);
  return s;
}

int balanced_slots(int units, int slots) {
  if (units < 1) return 1;
  const int rounds = ceil_div_int(units, slots < 1 ? 1 : slots);
  return ceil_div_int(units, rounds);
}

int k_tiles_per_split(int K, int bk, int splits) {
  return ceil_div_int(ceil_div_int(K, bk), splits);
}

LaunchPlan plan_by_waves(const std::vector<TileConfig>& configs, int M, int N, int K, int sms,
                         int max_splits) {
  LaunchPlan best;
  double best_cost = 0.0;
  for (int c = 0; c < static_cast<int>(configs.size()); ++c) {
    const TileConfig& t = configs[c];
    const long long tiles =
        static_cast<long long>(ceil_div_int(M, t.bm)) * ceil_div_int(N, t.bn);
    const int k_tiles = ceil_div_int(K, t.bk);
    for (int s = 1; s <= max_splits; ++s) {
      if (s > 1 && k_tiles < s * kMinTilesPerSplit) break;  // slices too thin to pipeline
      const int per_split = k_tiles_per_split(K, t.bk, s);
      if (s > 1 && ceil_div_int(k_tiles, per_split) < s) continue;  // same slices as a smaller s
      // KEY: the waves this launch makes, and the time they take.
      const long long slots = static_cast<long long>(sms) * t.blocks_per_sm;
      const long long waves = (tiles * s + slots - 1) / slots;
      // A wave lasts as long as one block's work at its share of its SM: blocks that share an
      // SM share its speed (a launch of fewer blocks than SMs gives each block an SM of its own).
      const long long sharing = std::min<long long>(t.blocks_per_sm, (tiles * s + sms - 1) / sms);
      const double busy =
          std::min(1.0, static_cast<double>(sharing * t.warps) / kSchedulersPerSm);
      const double block_work = static_cast<double>(t.bm) * t.bn * per_split;
      const double wave_time = block_work * static_cast<double>(sharing) / (t.speed * busy);
      // KEY: what the extra slices cost, in units of the multiplication itself.
      const double split_cost = s == 1 ? 0.0 : kSplitFixed + (s - 1) * t.split_depth / K;
      const double cost = static_cast<double>(waves) * wave_time * (1.0 + split_cost);
      if (best.waves == 0 || cost < best_cost) {
        best = {c, s, static_cast<int>(std::min<long long>(waves, 1 << 30))};
        best_cost = cost;
      }
    }
  }
  return best;
}

LaunchPlan plan_launch(const std::vector<TileConfig>& configs, int M, int N, int K, int sms,
                       int forced, bool split_k) {
  if (forced == kByWaves) return plan_by_waves(configs, M, N, K, sms);  // KEY: the choice by waves
  const TileConfig& t = configs[forced];
  LaunchPlan p = plan_by_waves({t}, M, N, K, sms, split_k ? kMaxSplits : 1);
  p.config = forced;
  if (split_k && p.splits == 1) p.splits = std::min(2, ceil_div_int(K, t.bk));
  return p;
}

size_t split_k_slice_floats(int M, int N) {
  return (static_cast<size_t>(M) * N + 3) / 4 * 4;
}

}  // namespace gemm
