// =================================================================================================
// Chapter 06 - tensor cores on Hopper, steps 2 and 3: warp specialization, then a persistent
// kernel with an L2-friendly tile order.
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
// All 384 threads start with the same budget (65536 / 384 = 168 per thread, the cap that
// __launch_bounds__(384, 1) sets); setmaxnreg then moves registers from the producer (down to 40)
// to the consumers (up to 232): 128 x 40 + 256 x 232 = 64512 <= 65536.
//
// Step 3, wgmma_persistent: the same kernel, launched with one block per SM (132 on an H100)
// instead of one per tile. Each block loops over tiles t = blockIdx.x, + gridDim.x, ... Two gains:
//   - the producer loads the next tile's first stages while the consumers still store the last
//     tile's C (with one tile per block, that store runs with no loads in flight);
//   - the order of the tiles is ours to choose: `tile_grouped` (hopper_tiles.cuh) makes the 132
//     tiles in flight a compact block of C, so the panels of A and B they read are shared in L2.
// And where C has too few tiles to give every SM one (1024^3: 32 tiles of 128 x 256 for 132 SMs),
// the launcher splits K as mma_sync_pipelined does (plan_by_waves, common/waves.hpp): a block's
// work is then a (tile, slice of K) unit, whose sums go to a workspace that reduce_split_k adds
// up in a fixed order. wgmma_persistent_no_split and wgmma_persistent_splitk force either choice.
//
// What changed since wgmma_tma: the roles, two barriers per stage instead of one barrier per K
// step, setmaxnreg, 384 threads; step 3 adds the tile loop and the tile order. The tiles, the
// stages, load_stage, mma_stage and store_tile are the same (hopper_tiles.cuh).
// Preconditions: none (as wgmma_tma: packed operands when rows are not 16-byte aligned; on
// other GPUs the launchers run mma_sync_pipelined and the table says so).
// Build and run:  cmake --build build --target 06_warp_tiling
//                 ./build/bin/06_warp_tiling --variant wgmma_persistent
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV). On an H100, % of
// cuBLAS at 4096^3 / 8192^3: step 2 91% / 71%, step 3 96% / 91% (hopper.md, "Measured").
// =================================================================================================
#include "06_warp_tiling/warp_tiling.cuh"

#include <algorithm>
#include <string>
#include <vector>

#include "06_warp_tiling/hopper_tiles.cuh"
#include "common/cuda_check.cuh"
#include "common/split_k.cuh"

namespace gemm::warp_tiling {
namespace hopper {

constexpr int kWsThreads = 384;             // 3 warpgroups: 1 producer, 2 consumers
constexpr int kConsumerWarps = 8;           // arrivals that complete an `empty` phase
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536,
              "kProducerRegs and kConsumerRegs must fit the SM's 65536 registers");

// PERSISTENT = false: one tile per block, tile = blockIdx.x in row-major order (step 2).
// PERSISTENT = true: gridDim.x blocks loop over all tiles in the grouped order (step 3).
// The work is `splits` x tiles units: unit u is tile u % tiles over the K steps of slice u / tiles
// (steps_per_split of them; the last slice may have fewer), summed into C + slice x slice_floats.
// Without split-K (always in step 2): splits = 1, steps_per_split = all K steps, C itself.
template <int STAGES, bool PERSISTENT>
__global__ void __launch_bounds__(kWsThreads, 1)
    wgmma_ws_kernel(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b, float* __restrict__ C, int M, int N,
                    int K, bool pairs, int group_m, int splits, int steps_per_split,
                    size_t slice_floats) {
#if GEMM_SM90A_DEVICE
  extern __shared__ unsigned char smem_raw[];
  const SharedLayout<STAGES> sm(smem_raw);
  const int wg = threadIdx.x / 128;
  const int tiles_m = (M + kBM - 1) / kBM, tiles_n = (N + kBN - 1) / kBN;
  const int tiles = tiles_m * tiles_n;
  const int k_steps = (K + kBK - 1) / kBK;
  const int units = tiles * splits;
  auto tile_at = [&](int u) {
    const int t = u % tiles;
    return PERSISTENT ? tile_grouped(t, tiles_m, tiles_n, group_m)
                      : tile_row_major(t, tiles_n);
  };
  auto first_step = [&](int u) { return (u / tiles) * steps_per_split; };  // of u's slice of K
  auto end_step = [&](int u) { return min(k_steps, first_step(u) + steps_per_split); };

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(sm.full(s), 1);                // the producer's expect_tx
      mbar_init(sm.empty(s), kConsumerWarps);  // one arrival per consumer warp
    }
    fence_mbarrier_init();
  }
  __syncthreads();  // the barriers exist; from here on, the warpgroups never meet again

  // Both sides walk the same sequence of K steps, over all units of this block: step i (counted
  // across units) uses stage i % STAGES, for the (i / STAGES)-th time.
  if (wg == 0) {
    // ---- The producer -------------------------------------------------------------------------
    setmaxnreg_dec<kProducerRegs>();  // KEY: every thread of the warpgroup, before the branch
    if (threadIdx.x == 0) {
      int i = 0;
      for (int u = blockIdx.x; u < units; u += gridDim.x) {
        const int2 tile = tile_at(u);
        for (int k = first_step(u); k < end_step(u); ++k, ++i) {
          const int s = i % STAGES;
          // KEY: wait until the consumers released this stage's previous use. The first use
          // waits for parity 1 of a fresh barrier, which returns at once.
          mbar_wait(sm.empty(s), ((i / STAGES) & 1) ^ 1);
          load_stage(sm, s, &map_a, &map_b, tile.x * kBM, tile.y * kBN, k * kBK);
        }
      }
    }
  } else {
    // ---- The consumers ------------------------------------------------------------------------
    setmaxnreg_inc<kConsumerRegs>();
    const int cw = wg - 1;  // consumer 0: rows 0-63 of each tile, consumer 1: rows 64-127
    const bool arrives = threadIdx.x % 32 == 0;  // lane 0 of each warp releases stages
    float acc[kAccs] = {};  // [128]
    int i = 0;
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
      const int2 tile = tile_at(u);
      const int first = first_step(u);
      for (int k = first; k < end_step(u); ++k, ++i) {
        const int s = i % STAGES;
        mbar_wait(sm.full(s), (i / STAGES) & 1);  // KEY: the stage has landed
        mma_stage(acc, sm.a(s), sm.b(s), cw, k > first);  // the unit's first step starts at 0
        wgmma_wait<1>();  // the wgmmas of step i - 1 have finished reading their stage
        if (k > first && arrives) mbar_arrive(sm.empty((i - 1) % STAGES));  // KEY: release it
      }
      wgmma_wait<0>();
      if (arrives) mbar_arrive(sm.empty((i - 1) % STAGES));  // the unit's last stage
      fence_accumulators(acc);
      store_tile(acc, C + (u / tiles) * slice_floats, M, N, tile.x * kBM + 64 * cw, tile.y * kBN,
                 pairs);
    }
  }
#else
  __trap();  // not compiled for sm_90a: never launched (the launchers run mma_sync_pipelined)
#endif
}

namespace {
constexpr int kStages = 4;
constexpr int kSmemBytes = SharedLayout<kStages>::kBytes;
constexpr auto kKernelWs = wgmma_ws_kernel<kStages, false>;
constexpr auto kKernelPersistent = wgmma_ws_kernel<kStages, true>;

bool ready() {
  static const bool ok = [] {
    if (!runs_here()) return false;
    for (auto kernel : {kKernelWs, kKernelPersistent})
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      kSmemBytes));
    return true;
  }();
  return ok;
}

// How the persistent kernel cuts the work: its one tile, K split or not. kAuto splits where the
// waves say so (the same rule as mma_sync_pipelined); kNoSplit and kSplitK force a choice.
enum class Split { kAuto, kNoSplit, kSplitK };

// The slices of K the persistent kernel runs for this shape (1: no split-K).
int slices_for(int M, int N, int K, Split split) {
  // 8 consumer warps (the producer warpgroup issues copies only); one block per SM.
  const std::vector<TileConfig> tile = {{"128x256", kBM, kBN, kBK, 8, 1, 1.0}};
  return plan_launch(tile, M, N, K, current_sm_count(), split == Split::kAuto ? kByWaves : 0,
                     split == Split::kSplitK)
      .splits;
}

void launch(bool persistent, Split split, const __half* A, const __half* B, float* C, int M,
            int N, int K, cudaStream_t stream) {
  if (!ready()) {  // not Hopper, or not built for sm_90a
    launch_mma_sync_pipelined(A, B, C, M, N, K, stream);
    return;
  }
  const AlignedOperands ops(A, B, M, N, K, stream);
  const TensorMaps maps = make_tensor_maps(ops, M, N);
  const int tiles = ceil_div(M, kBM) * ceil_div(N, kBN);
  int splits = persistent ? slices_for(M, N, ops.k(), split) : 1;
  const int per_split = k_tiles_per_split(ops.k(), kBK, splits);  // K steps per slice
  // Never a slice without K steps (the plans make none): its unit would arrive on a stage's
  // `empty` barrier that no copy filled, and the pipeline's phases would drift apart.
  splits = ceil_div(ceil_div(ops.k(), kBK), per_split);
  const SplitKOutput out(C, M, N, splits, stream);  // C, or this call's workspace
  const bool pairs = float2_stores_ok(out.data(), N);
  // KEY: step 2 launches a block per tile; step 3 a block per SM (never more than the units).
  const int units = tiles * splits;
  const int blocks = persistent ? std::min(units, current_sm_count()) : tiles;
  const auto kernel = persistent ? kKernelPersistent : kKernelWs;
  kernel<<<blocks, kWsThreads, kSmemBytes, stream>>>(maps.a, maps.b, out.data(), M, N, ops.k(),
                                                     pairs, kGroupM, splits, per_split,
                                                     out.slice_floats());
  GEMM_LAUNCH_CHECK();
  out.reduce(stream);  // KEY: the slices added into C in a fixed order
}

template <Split SPLIT>
void launch_persistent(const __half* A, const __half* B, float* C, int M, int N, int K,
                       cudaStream_t stream) {
  launch(true, SPLIT, A, B, C, M, N, K, stream);
}

// The note: what ran instead off Hopper (hopper_runs_instead), else how K was cut, when it was.
template <Split SPLIT>
std::string persistent_ran(const void* A, const void* B, const float* C, int M, int N, int K) {
  if (!runs_here()) return hopper_runs_instead(A, B, C, M, N, K);
  const int splits = slices_for(M, N, K, SPLIT);
  if (SPLIT == Split::kSplitK && splits == 1) return "ran 128x256: K has 1 step, no split";
  return SPLIT == Split::kAuto && splits > 1 ? "ran split-K " + std::to_string(splits) : "";
}
}  // namespace
}  // namespace hopper

void launch_wgmma_warp_specialized(const __half* A, const __half* B, float* C, int M, int N,
                                   int K, cudaStream_t stream) {
  hopper::launch(false, hopper::Split::kNoSplit, A, B, C, M, N, K, stream);
}

void launch_wgmma_persistent(const __half* A, const __half* B, float* C, int M, int N, int K,
                             cudaStream_t stream) {
  hopper::launch(true, hopper::Split::kAuto, A, B, C, M, N, K, stream);
}

std::vector<Variant> wgmma_persistent_variants() {
  using hopper::Split;
  return {
      {"wgmma_persistent", nullptr, launch_wgmma_persistent,
       "+ one block per SM looping over tiles in an L2-friendly order; split-K where the waves "
       "say so (sm_90a)",
       hopper::persistent_ran<Split::kAuto>},
      {"wgmma_persistent_no_split", nullptr, hopper::launch_persistent<Split::kNoSplit>,
       "wgmma_persistent forced to one slice of K (no split-K)",
       hopper::persistent_ran<Split::kNoSplit>},
      {"wgmma_persistent_splitk", nullptr, hopper::launch_persistent<Split::kSplitK>,
       "wgmma_persistent forced to split-K (at least 2 slices of K)",
       hopper::persistent_ran<Split::kSplitK>},
  };
}

std::vector<KernelInfo> wgmma_ws_kernels() {
  using namespace hopper;
  return {{"wgmma_warp_specialized", reinterpret_cast<const void*>(kKernelWs), kWsThreads,
           kSmemBytes, KernelInfo::kSm90a},
          {"wgmma_persistent", reinterpret_cast<const void*>(kKernelPersistent), kWsThreads,
           kSmemBytes, KernelInfo::kSm90a}};
}

}  // namespace gemm::warp_tiling
