// =================================================================================================
// Chapter 06 - tensor cores with block and warp tiling, part 4: the mma.sync kernel, pipelined,
// and a launcher that fits its tiles to the shape.
//
// The idea: in mma_sync_ptx every K step starts with a barrier that all 8 warps reach together,
// then 8 ldmatrix whose results the first slice's 32 mma.sync need at once (within a step the
// compiler already issues the second slice's ldmatrix among the first slice's mma, but it does
// not move them across the barrier). Right after the barrier no warp has any mma ready to issue,
// and the tensor cores idle. This kernel keeps them fed:
//   - fragments double-buffered in registers: the ldmatrix of slice k + 1 are issued before the
//     mma of slice k, across K steps too, so their latency passes while the tensor cores work (a
//     and b are [2] arrays);
//   - the barrier moved from the top of the K step to just before its last slice: by then every
//     warp has read the step's last fragments, so the next step's first fragments load right after
//     it, while the last slice's mma run from registers, and the stage just read is refilled at
//     once. The pipeline is no deeper (at most STAGES - 1 tiles in flight after the barrier, as in
//     mma_sync_ptx): what changes is that no warp leaves the barrier with nothing to issue;
//   - a block order that shares L2 (tile_grouped, tile_helpers.cuh): bands of 8 tile rows;
//   - few instructions between the mma: on an H100 a warp's other instructions hold up its
//     mma (2 warps per scheduler cannot cover for each other), so the loop's copies go unchecked
//     while the tile they fetch is whole (TileStream, tile_helpers.cuh; a second loop checks the
//     last steps), and each lane's ldmatrix addresses are worked out once (MmaWarpTile::Offsets).
//     The compiled K loop (nvcc 13.0, sm_90): 152 instructions per warp, 64 of them mma, against
//     205 before.
// What changed since mma_sync_ptx: the loop's order, the [2] fragment buffers and the leaner
// copies; the tiles, the swizzle, the 4 stages (96 KB: it still fits the 99 KB of sm_86 and sm_89)
// and the epilogue are the same (mma_tiles.cuh). Measured on an H100 with a stand-alone harness
// (the kernel alone, cuBLAS in the same process, 4096^3, warm L2): mma_sync_ptx 356 TFLOPS; the
// new order 437 to 448 (62 to 64% of cuBLAS); the leaner loop 450 to 465 (66 to 67%). README.md,
// section 6, and docs/notes/06_warp_tiling.md ("How mma_sync_pipelined was found") have the
// experiments behind each step; README.md, "Measured", has the chapter benchmark's numbers.
//
// The launcher is shape-aware: a 128 x 256 tile makes 32 blocks for a 1024 x 1024 C, and a
// 132-SM GPU then idles 100 SMs. It has three tiles:
//   128x256  8 warps of 64 x 64, 1 block per SM: the most reuse per byte loaded
//   128x128  4 warps of 64 x 64, up to 2 blocks per SM: twice the blocks
//   64x128   4 warps of 32 x 64 (64 accumulators per lane), up to 2 blocks per SM: 4 times the
//            blocks
// each with or without split-K (K cut into slices, one block per (tile, slice); partial sums go
// to a workspace of this call and a second kernel adds them up in a fixed order), and picks a
// tile and a number of slices by counting the waves each makes on this GPU (common/waves.hpp,
// plan_by_waves; docs/tile_size_tradeoffs.md, "Waves"). The variants mma_sync_pipelined_128x256,
// _128x128 and _64x128 force a tile (no split-K), _splitk the 128x256 tile in at least 2 slices
// where K allows, so that each is tested on every shape and timed at every size.
//
// Preconditions: none (the same packing and fallbacks as mma_sync_ptx: packed operands when rows
// are not 16-byte aligned; wmma_vec_loads on sm_75).
// Build and run:  cmake --build build --target 06_warp_tiling
//                 ./build/bin/06_warp_tiling --variant mma_sync_pipelined --size 1024
// =================================================================================================
#include "06_warp_tiling/warp_tiling.cuh"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "06_warp_tiling/mma_tiles.cuh"
#include "06_warp_tiling/packing.cuh"
#include "common/cuda_check.cuh"
#include "common/per_device.cuh"
#include "common/split_k.cuh"

namespace gemm::warp_tiling {

// -------------------------------------------------------------------------------------------------
// 6. mma_sync_pipelined. One block computes the BM x BN tile tile_grouped(blockIdx.x) of C over
// the K steps of its slice blockIdx.y: steps blockIdx.y * steps_per_split .. (all of K without
// split-K: gridDim.y = 1). Its sums go to C, or, with split-K, to slice blockIdx.y of the
// workspace (C then points at the workspace, slices slice_floats apart).
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS, bool STAGE_C>
__global__ void __launch_bounds__(WarpGrid<BM, BN, WM, WN>::kThreads, MIN_BLOCKS)
    mma_pipelined_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                         float* __restrict__ C, int M, int N, int K, int ldb, int group_m,
                         int steps_per_split, size_t slice_floats) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Warps = WarpGrid<BM, BN, WM, WN>;
  using Tile = MmaWarpTile<BM, BN, BK, WM, WN>;
  constexpr int kSlices = BK / 16;
  static_assert(kSlices % 2 == 0,
                "BK / 16 must be even: a K step's first slice then always uses buffer 0");
  static_assert(STAGES >= 2, "STAGES must be at least 2 (one stage computed, one loading)");
  constexpr int kStageA = BM * BK, kStageB = BK * BN;  // halves per stage
  using AMap = ChunkMap<BM, BK, Warps::kThreads>;
  using BMap = ChunkMap<BK, BN, Warps::kThreads>;

  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t As = smem_u32(smem);             // [STAGES][BM][BK]  swizzled
  const uint32_t Bs = As + 2 * STAGES * kStageA;  // [STAGES][BK][BN]  swizzled

  // KEY: which tile of C, in the grouped order; which K steps; where the sums go.
  const int2 tile = tile_grouped(blockIdx.x, (M + BM - 1) / BM, (N + BN - 1) / BN, group_m);
  const int block_row = tile.x * BM, block_col = tile.y * BN;
  const int first = blockIdx.y * steps_per_split;                   // first K step (tile of K)
  const int steps = min((K + BK - 1) / BK - first, steps_per_split);  // >= 1 (the launcher)
  float* __restrict__ out = C + blockIdx.y * slice_floats;

  const Tile warp(Warps::warp_row(), Warps::warp_col());
  const typename Tile::Offsets at = warp.offsets();  // KEY: ldmatrix addresses, once
  typename Tile::Acc acc = {};

  TileStream<AMap, typename Tile::ALayout, BK, true> a_copy(A, M, K, block_row, 0, first);
  TileStream<BMap, typename Tile::BLayout, BK, false> b_copy(B, K, ldb, 0, block_col, first);
  auto stage_a = [&](int s) { return As + 2 * s * kStageA; };  // s: a stage, 0 .. STAGES - 1
  auto stage_b = [&](int s) { return Bs + 2 * s * kStageB; };
  // This block's K step i -> stage i % STAGES, one commit group. WHOLE: step i is a whole tile of
  // K (not the block's last), so the copies need no check.
  auto issue = [&](int i, auto whole) {
    constexpr bool kChecked = !decltype(whole)::value;
    if (!kChecked || i < steps) {  // a whole tile is always one of this block's steps
      a_copy.template issue<kChecked>(stage_a(i % STAGES), A, first + i, K);
      b_copy.template issue<kChecked>(stage_b(i % STAGES), B, first + i, K);
    }
    cp_async_commit();
  };

  typename Tile::FragsA a[2];  // KEY: two slices of fragments: one computed, one loading
  typename Tile::FragsB b[2];

  // K step i, from stage i % STAGES; then it refills that stage with step i + STAGES.
  auto k_step = [&](int i, auto whole) {
    const int s = i % STAGES;
#pragma unroll
    for (int q = 0; q < kSlices; ++q) {  // slice q computes from buffer q % 2
      const int next = (q + 1) % 2;
      if (q < kSlices - 1) {
        // KEY: the next slice's ldmatrix first; its latency passes under this slice's mma.
        Tile::load(a[next], b[next], stage_a(s), stage_b(s), at, q + 1);
      } else {
        // The last slice's fragments are already in registers, so no warp reads stage s any
        // more once it gets here.
        cp_async_wait<STAGES - 2>();  // step i + 1 has landed (this thread's copies)
        __syncthreads();  // KEY: everyone's copies of step i + 1; everyone is done with stage s
        const int s1 = s + 1 == STAGES ? 0 : s + 1;
        if (i + 1 < steps) Tile::load(a[next], b[next], stage_a(s1), stage_b(s1), at, 0);
        issue(i + STAGES, whole);  // into stage s, free since the barrier
      }
      Tile::mma(acc, a[q % 2], b[q % 2]);  // KEY: 32 mma.sync at 64 x 64 warps, fragments ready
    }
  };

  for (int i = 0; i < STAGES; ++i) issue(i, std::false_type{});  // every stage in flight
  cp_async_wait<STAGES - 1>();                                    // step 0 has landed (mine)
  __syncthreads();                                                // everyone's
  Tile::load(a[0], b[0], stage_a(0), stage_b(0), at, 0);

  // KEY: two loops over the same step: while the step being refilled (i + STAGES) is a whole tile
  // of K, its copies go unchecked; the last steps check k.
  const int unchecked = steps - STAGES - 1;  // steps i whose refill i + STAGES < steps - 1
  int i = 0;
  for (; i < unchecked; ++i) k_step(i, std::true_type{});
  for (; i < steps; ++i) k_step(i, std::false_type{});
  cp_async_wait<0>();  // only empty groups are left in flight, but leave none behind

  warp.template store<STAGE_C, Warps::kThreads, STAGES * (kStageA + kStageB) * 2>(
      acc, smem, out, M, N, block_row, block_col);
#else
  __trap();  // compiled for sm_75: never launched there (the launcher runs wmma_vec_loads)
#endif
}

// -------------------------------------------------------------------------------------------------
// Launcher.
// -------------------------------------------------------------------------------------------------
namespace {

constexpr int kStages = 4;
constexpr int kGroupRows = 8;  // tile_grouped's band: measured on an H100 at 8192^3, 8 rows
                               // 454 TFLOPS, 1 row 449, 16 rows 416 (at 4096^3 all within 1%)

// One tile configuration: its kernel (register or staged epilogue) and launch shape.
template <int BM, int BN, int WM, int WN, int MIN_BLOCKS>
struct Shape {
  static constexpr int kBM = BM, kBN = BN;
  static constexpr int kThreadsPerBlock = WarpGrid<BM, BN, WM, WN>::kThreads;
  static constexpr int kSmem = kStages * (BM * kBK + kBK * BN) * 2;
  static constexpr auto kKernel =
      mma_pipelined_kernel<BM, BN, kBK, WM, WN, kStages, MIN_BLOCKS, false>;
  static constexpr auto kKernelStagedC =
      mma_pipelined_kernel<BM, BN, kBK, WM, WN, kStages, MIN_BLOCKS, true>;
};
using Large = Shape<128, 256, 64, 64, 1>;   // 8 warps, 96 KB
using Medium = Shape<128, 128, 64, 64, 2>;  // 4 warps, 64 KB
using Small = Shape<64, 128, 32, 64, 2>;    // 4 warps, 48 KB

enum Config { kLarge = 0, kMedium = 1, kSmall = 2 };

// The candidates for plan_by_waves, with their resident blocks per SM on this GPU (queried), or
// empty when this GPU does not run the sm_80 code. `speed`: the whole SM's throughput relative to
// Large, fitted to the forced variants on an H200 before commit 73dde4e. Medium: 54.7% of cuBLAS
// at 4096^3 against Large's 61.2% in that run, 0.89 (the reference run in docs/figures/results.csv
// gives 0.96: a fit, not a constant of the hardware). Small: 0.74 at 4096^3, where 2 blocks share
// each SM; but the plans use it where it runs alone on its SM (small and skinny C), and there 4
// warps hide less latency: 0.55 is what fits the forced variants at those shapes (with 0.75 the
// rule chose it for 128 x 4096 x 4096 and 512 x 512 x 16384 and ran at 58% and 49% of cuBLAS,
// where 128x128 in slices ran at 65% and 60%).
// Made once per GPU (common/per_device.cuh): its permissions, and blocks per SM, are this GPU's.
const std::vector<TileConfig>& configs() {
  static PerDevice<std::vector<TileConfig>> list_on;
  return list_on.get([](int) {
    std::vector<TileConfig> c;
    if (!runs_sm80_code(reinterpret_cast<const void*>(Large::kKernel))) return c;
    auto add = [&](const char* name, auto shape, double speed) {
      using S = decltype(shape);
      int blocks = 0;
      for (auto kernel : {S::kKernel, S::kKernelStagedC}) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        S::kSmem));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel,
                                                                 S::kThreadsPerBlock, S::kSmem));
      }
      c.push_back({name, S::kBM, S::kBN, kBK, S::kThreadsPerBlock / 32, blocks > 0 ? blocks : 1,
                   speed, kSplitDepthTensor});
    };
    add("128x256", Large{}, 1.0);  // configs()[kLarge]
    add("128x128", Medium{}, 0.9);  // configs()[kMedium]
    add("64x128", Small{}, 0.55);   // configs()[kSmall]
    return c;
  });
}

// Which configuration runs for this shape: chosen by counting waves (Choice::kAuto), or forced.
enum class Choice { kAuto, kLarge, kMedium, kSmall, kSplitK };

LaunchPlan plan_for(int M, int N, int K, Choice choice) {
  // kSplitK: the large tile, split as the rule would split it, and in at least 2 where K allows.
  const int forced = choice == Choice::kAuto     ? kByWaves
                     : choice == Choice::kMedium ? kMedium
                     : choice == Choice::kSmall  ? kSmall
                                                 : kLarge;
  return plan_launch(configs(), M, N, K, current_sm_count(), forced,
                     choice == Choice::kSplitK);  // KEY: counting waves (common/waves.cpp)
}

template <class S>
void launch_shape(const AlignedOperands& ops, float* C, int M, int N, int splits,
                  cudaStream_t stream) {
  const int per_split = k_tiles_per_split(ops.k(), kBK, splits);  // K steps per slice
  const SplitKOutput out(C, M, N, splits, stream);  // KEY: C, or this call's workspace
  const auto kernel = float2_stores_ok(out.data(), N) ? S::kKernel : S::kKernelStagedC;
  const dim3 grid(ceil_div(M, S::kBM) * ceil_div(N, S::kBN), splits);
  kernel<<<grid, S::kThreadsPerBlock, S::kSmem, stream>>>(ops.a(), ops.b(), out.data(), M, N,
                                                          ops.k(), ops.ldb(), kGroupRows,
                                                          per_split, out.slice_floats());
  GEMM_LAUNCH_CHECK();
  out.reduce(stream);  // KEY: the slices added into C in a fixed order
}

void launch(const __half* A, const __half* B, float* C, int M, int N, int K, cudaStream_t stream,
            Choice choice) {
  if (configs().empty()) {  // sm_75 (no cp.async, no m16n8k16): kernel 3 instead
    launch_vec_loads(A, B, C, M, N, K, stream);
    return;
  }
  const LaunchPlan plan = plan_for(M, N, K, choice);
  const AlignedOperands ops(A, B, M, N, K, stream);  // packed copies if rows are not aligned
  if (plan.config == kMedium)
    launch_shape<Medium>(ops, C, M, N, plan.splits, stream);
  else if (plan.config == kSmall)
    launch_shape<Small>(ops, C, M, N, plan.splits, stream);
  else
    launch_shape<Large>(ops, C, M, N, plan.splits, stream);
}

template <Choice CHOICE>
void launch_as(const __half* A, const __half* B, float* C, int M, int N, int K,
               cudaStream_t stream) {
  launch(A, B, C, M, N, K, stream, CHOICE);
}

// The note for the table and the CSV. On sm_75 the fallback's note, as mma_sync_ptx's; else, for
// the shape-aware launcher, what it chose; for a forced configuration nothing, unless split-K
// could not split (K of one step).
template <Choice CHOICE>
std::string ran(const void* A, const void* B, const float* C, int M, int N, int K) {
  if (configs().empty()) return mma_sync_ptx_runs_instead(A, B, C, M, N, K);
  if (CHOICE == Choice::kAuto) return "ran " + mma_sync_pipelined_choice(M, N, K);
  if (CHOICE == Choice::kSplitK && plan_for(M, N, K, CHOICE).splits == 1)
    return "ran 128x256: K has 1 step, no split";
  return "";
}

}  // namespace

std::string mma_sync_pipelined_choice(int M, int N, int K) {
  return plan_for(M, N, K, Choice::kAuto).describe(configs());
}

void launch_mma_sync_pipelined(const __half* A, const __half* B, float* C, int M, int N, int K,
                               cudaStream_t stream) {
  launch(A, B, C, M, N, K, stream, Choice::kAuto);
}

std::vector<Variant> mma_pipelined_variants() {
  return {
      {"mma_sync_pipelined", nullptr, launch_mma_sync_pipelined,
       "+ fragments double-buffered in registers, barrier before the last slice, grouped block "
       "order, unchecked copies of whole tiles; tile or split-K chosen by counting waves (sm_80+)",
       ran<Choice::kAuto>},
      {"mma_sync_pipelined_128x256", nullptr, launch_as<Choice::kLarge>,
       "mma_sync_pipelined forced to its 128 x 256 tile (8 warps), no split-K",
       ran<Choice::kLarge>},
      {"mma_sync_pipelined_128x128", nullptr, launch_as<Choice::kMedium>,
       "mma_sync_pipelined forced to its 128 x 128 tile (4 warps, 2 blocks per SM), no split-K",
       ran<Choice::kMedium>},
      {"mma_sync_pipelined_64x128", nullptr, launch_as<Choice::kSmall>,
       "mma_sync_pipelined forced to its 64 x 128 tile (4 warps of 32 x 64), no split-K",
       ran<Choice::kSmall>},
      {"mma_sync_pipelined_splitk", nullptr, launch_as<Choice::kSplitK>,
       "mma_sync_pipelined forced to split-K (128 x 256 tiles, at least 2 slices of K)",
       ran<Choice::kSplitK>},
  };
}

std::vector<KernelInfo> mma_pipelined_kernels() {
  return {{"mma_sync_pipelined 128x256", reinterpret_cast<const void*>(Large::kKernel),
           Large::kThreadsPerBlock, Large::kSmem, KernelInfo::kSm80},
          {"mma_sync_pipelined 128x256 (staged C)",
           reinterpret_cast<const void*>(Large::kKernelStagedC), Large::kThreadsPerBlock,
           Large::kSmem, KernelInfo::kSm80},
          {"mma_sync_pipelined 128x128", reinterpret_cast<const void*>(Medium::kKernel),
           Medium::kThreadsPerBlock, Medium::kSmem, KernelInfo::kSm80},
          {"mma_sync_pipelined 128x128 (staged C)",
           reinterpret_cast<const void*>(Medium::kKernelStagedC), Medium::kThreadsPerBlock,
           Medium::kSmem, KernelInfo::kSm80},
          {"mma_sync_pipelined 64x128", reinterpret_cast<const void*>(Small::kKernel),
           Small::kThreadsPerBlock, Small::kSmem, KernelInfo::kSm80},
          {"mma_sync_pipelined 64x128 (staged C)",
           reinterpret_cast<const void*>(Small::kKernelStagedC), Small::kThreadsPerBlock,
           Small::kSmem, KernelInfo::kSm80}};
}

}  // namespace gemm::warp_tiling
