// The launch plan of the shape-aware launchers (common/waves.hpp): waves counted right, the large
// tile kept where it fills the GPU, split-K only where K is deep enough, every slice non-empty.
#include <algorithm>
#include <array>
#include <vector>

#include "catch_compat.hpp"
#include "common/waves.hpp"

namespace {

// Chapter 06's candidates as an H100 or H200 reports them (132 SMs; blocks per SM from the
// occupancy API; speeds as in mma_pipelined.cu).
constexpr double kTensor = gemm::kSplitDepthTensor, kFp32 = gemm::kSplitDepthFp32;
const std::vector<gemm::TileConfig> kConfigs = {{"128x256", 128, 256, 32, 8, 1, 1.0, kTensor},
                                                {"128x128", 128, 128, 32, 4, 2, 0.9, kTensor},
                                                {"64x128", 64, 128, 32, 4, 2, 0.55, kTensor}};
constexpr int kSms = 132;

}  // namespace

TEST_CASE("the large tile runs alone wherever it fills the GPU", "[waves]") {
  for (int n : {2048, 4096, 8192}) {
    const gemm::LaunchPlan p = gemm::plan_by_waves(kConfigs, n, n, n, kSms);
    CHECK(p.config == 0);
    CHECK(p.splits == 1);
  }
  // 4096^3: 512 tiles of 128 x 256 on 132 SMs = 3.9 -> 4 waves.
  CHECK(gemm::plan_by_waves(kConfigs, 4096, 4096, 4096, kSms).waves == 4);
  CHECK(gemm::plan_by_waves(kConfigs, 4096, 4096, 4096, kSms).describe(kConfigs) == "128x256");
}

TEST_CASE("a small C fills the GPU in one wave: a smaller tile, or split-K", "[waves]") {
  for (auto [m, n, k] : std::vector<std::array<int, 3>>{{1024, 1024, 1024}, {512, 512, 16384},
                                                        {16, 4096, 4096}, {128, 4096, 4096}}) {
    const gemm::LaunchPlan p = gemm::plan_by_waves(kConfigs, m, n, k, kSms);
    INFO(m << " x " << n << " x " << k << ": " << p.describe(kConfigs));
    const gemm::TileConfig& t = kConfigs[p.config];
    const long long tiles = static_cast<long long>((m + t.bm - 1) / t.bm) * ((n + t.bn - 1) / t.bn);
    const long long blocks = tiles * p.splits;
    CHECK(blocks > kSms / 2);                           // no longer most of the GPU idle
    CHECK(p.waves == 1);
    CHECK(blocks <= static_cast<long long>(kSms) * t.blocks_per_sm);
  }
}

TEST_CASE("split-K never makes slices without work or thinner than the minimum", "[waves]") {
  for (int k : {1, 31, 32, 100, 127, 128, 129, 1000, 4093, 16384}) {
    for (int max_splits : {1, 2, 7, gemm::kMaxSplits}) {
      const gemm::LaunchPlan p = gemm::plan_by_waves(kConfigs, 64, 64, k, kSms, max_splits);
      const int k_tiles = (k + 31) / 32;
      INFO("K = " << k << ", max_splits = " << max_splits << ": " << p.describe(kConfigs));
      CHECK(p.splits >= 1);
      CHECK(p.splits <= max_splits);
      const int per = gemm::k_tiles_per_split(k, 32, p.splits);
      CHECK((k_tiles + per - 1) / per == p.splits);  // every slice holds at least one K step
      if (p.splits > 1) CHECK(per >= gemm::kMinTilesPerSplit);
    }
  }
}

TEST_CASE("the workspace's slices start 16-byte aligned", "[waves]") {
  for (auto [m, n] : std::vector<std::array<int, 2>>{{1, 1}, {3, 5}, {7, 1}, {4093, 4093}}) {
    const size_t s = gemm::split_k_slice_floats(m, n);
    CHECK(s % 4 == 0);
    CHECK(s >= static_cast<size_t>(m) * n);
    CHECK(s < static_cast<size_t>(m) * n + 4);
  }
}

namespace {

// Chapter 04's candidates (fp32; kernel 5 with four block tiles, tiling_2d_shape_aware, in its
// order): warps per block, and blocks per SM as the occupancy API reports them on an H100 or H200.
const std::vector<gemm::TileConfig> kConfigs04 = {{"128x128", 128, 128, 16, 8, 1, 0.9, kFp32},
                                                  {"64x128", 64, 128, 16, 4, 3, 0.81, kFp32},
                                                  {"32x128", 32, 128, 16, 2, 4, 0.675, kFp32},
                                                  {"128x256", 128, 256, 16, 8, 1, 1.0, kFp32}};

}  // namespace

TEST_CASE("chapter 04: the largest tile from 2048 up, split-K at 1024, a thin tile for few rows",
          "[waves]") {
  for (int n : {2048, 4096, 8192}) {
    const gemm::LaunchPlan p = gemm::plan_by_waves(kConfigs04, n, n, n, kSms);
    CHECK(p.describe(kConfigs04) == "128x256");
  }
  // Without the 128 x 256 tile (the scalar path's list), 128 x 128 from 2048 up.
  const std::vector<gemm::TileConfig> three(kConfigs04.begin(), kConfigs04.begin() + 3);
  CHECK(gemm::plan_by_waves(three, 4096, 4096, 4096, kSms).describe(three) == "128x128");
  // 64 tiles of 128 x 128 would leave half of the 132 SMs idle: 2 slices of K fill them.
  CHECK(gemm::plan_by_waves(kConfigs04, 1024, 1024, 1024, kSms).describe(kConfigs04) ==
        "128x128, split-K 2");
  // 16 rows: 32 x 128 tiles (a quarter of the padding of 128 x 128), K split until most SMs hold
  // two blocks, whose 4 warps keep the SM's 4 schedulers busy (here 8 slices: 256 blocks).
  const gemm::LaunchPlan p = gemm::plan_by_waves(kConfigs04, 16, 4096, 4096, kSms);
  CHECK(kConfigs04[p.config].name == "32x128");
  CHECK(32 * p.splits > kSms);
  // The plans that 04_2d_tiling/README.md, section 6 ("Fitting the tile to the shape") and its
  // waves table under "Measured" describe.
  auto plan = [](int m, int n, int k) {
    return gemm::plan_by_waves(kConfigs04, m, n, k, kSms).describe(kConfigs04);
  };
  CHECK(plan(16, 4096, 4096) == "32x128, split-K 8");
  CHECK(plan(128, 4096, 4096) == "128x256, split-K 8");
  CHECK(plan(512, 512, 16384) == "128x256, split-K 16");
  CHECK(plan(8192, 8192, 128) == "128x256");
}

TEST_CASE("a block of fewer warps than an SM has schedulers does not fill the SM alone",
          "[waves]") {
  // One block per SM already (132 tiles): without split-K each SM would run 2 warps on its 4
  // schedulers. Two slices put two blocks, 4 warps, on every SM, for 4% more work.
  const std::vector<gemm::TileConfig> thin = {{"32x128", 32, 128, 16, 2, 8, 1.0, kFp32}};
  const gemm::LaunchPlan p = gemm::plan_by_waves(thin, 32, 128 * kSms, 4096, kSms);
  CHECK(p.splits == 2);
  CHECK(p.waves == 1);
  // With 4 warps per block, one block per SM is enough: no split.
  const std::vector<gemm::TileConfig> wide = {{"32x128", 32, 128, 16, 4, 8, 1.0, kFp32}};
  CHECK(gemm::plan_by_waves(wide, 32, 128 * kSms, 4096, kSms).splits == 1);
}

TEST_CASE("a forced plan splits only when asked, and then in at least 2 where K allows",
          "[waves]") {
  const gemm::TileConfig& large = kConfigs[0];
  for (int k : {1, 32, 33, 64, 1000, 4096}) {
    INFO("K = " << k);
    CHECK(gemm::plan_launch(kConfigs, 4096, 4096, k, kSms, 0, false).splits == 1);
    const gemm::LaunchPlan p = gemm::plan_launch(kConfigs, 4096, 4096, k, kSms, 0, true);
    CHECK(p.config == 0);
    const int k_tiles = (k + 31) / 32;
    if (k_tiles >= 2)
      CHECK(p.splits >= 2);
    else
      CHECK(p.splits == 1);
    const int per = gemm::k_tiles_per_split(k, 32, p.splits);
    CHECK((k_tiles + per - 1) / per == p.splits);  // every slice holds at least one K step
  }
  // Where the rule itself splits, the forced plan keeps its count: 512 x 512 x 16384 on the
  // large tile.
  CHECK(gemm::plan_by_waves({large}, 512, 512, 16384, kSms).splits > 2);
  CHECK(gemm::plan_launch(kConfigs, 512, 512, 16384, kSms, 0, true).splits ==
        gemm::plan_by_waves({large}, 512, 512, 16384, kSms).splits);
  // Not forced: the rule's own choice among all configurations.
  CHECK(gemm::plan_launch(kConfigs, 1024, 1024, 1024, kSms, gemm::kByWaves, false).describe(
            kConfigs) == gemm::plan_by_waves(kConfigs, 1024, 1024, 1024, kSms).describe(kConfigs));
}

TEST_CASE("split-K costs the tensor cores more than the FP32 pipe: 1024^3", "[waves]") {
  // The same 64 tiles of 128 x 128, the same 132 SMs. FP32: the partial sums of 2 slices cost
  // little next to 2 x 1024 flops per element; split-K fills the GPU. Tensor cores: the same
  // bytes cost as much as the multiplication, so a smaller tile fills the GPU instead.
  CHECK(gemm::plan_by_waves(kConfigs04, 1024, 1024, 1024, kSms).describe(kConfigs04) ==
        "128x128, split-K 2");
  CHECK(gemm::plan_by_waves(kConfigs, 1024, 1024, 1024, kSms).describe(kConfigs) == "64x128");
  // Deep K makes split-K pay off for the tensor cores too.
  CHECK(gemm::plan_by_waves(kConfigs, 512, 512, 16384, kSms).splits > 1);
}

TEST_CASE("a persistent grid: the fewest slots that finish in as many rounds", "[waves]") {
  // chapter 07 at 4096^3 and 8192^3 on an H100: 256 and 1024 cluster tiles, 66 clusters fit.
  CHECK(gemm::balanced_slots(256, 66) == 64);   // 4 rounds either way
  CHECK(gemm::balanced_slots(1024, 66) == 64);  // 16 rounds either way
  CHECK(gemm::balanced_slots(64, 66) == 64);    // fewer units than slots: one each
  CHECK(gemm::balanced_slots(67, 66) == 34);    // 2 rounds: 33 with 2 units, 1 with 1
  CHECK(gemm::balanced_slots(1, 66) == 1);
  CHECK(gemm::balanced_slots(0, 66) == 1);      // never 0 blocks
  CHECK(gemm::balanced_slots(5, 0) == 1);       // no slot reported: counted as one
  for (int units = 1; units <= 600; ++units)
    for (int slots = 1; slots <= 140; ++slots) {
      const int b = gemm::balanced_slots(units, slots);
      const int rounds = (units + slots - 1) / slots;
      REQUIRE(b >= 1);
      REQUIRE(b <= std::min(units, slots));             // never more than fit, or than units
      REQUIRE((units + b - 1) / b == rounds);            // the same number of rounds
      REQUIRE((b - 1 == 0 || (units + b - 2) / (b - 1) > rounds));  // and the fewest that do
    }
}
