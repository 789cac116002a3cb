// =================================================================================================
// Chapter 07 - tensor cores on Hopper, step 2: warp specialization (wgmma_warp_specialized).
//
// The idea: in wgmma_tma every thread does everything: thread 0 stops its warp to issue copies,
// and a __syncthreads() per K step makes both warpgroups wait for the slower one before a stage
// can be refilled. Here the roles are split between warpgroups:
//   warpgroup 0, the PRODUCER: one thread issues the TMA copies, nothing else. It waits until a
//     stage is empty, announces its bytes on the stage's `full` barrier, and moves on.
//   warpgroups 1 and 2, the CONSUMERS: wait until a stage is full, run their wgmmas on it, and
//     arrive on its `empty` barrier when those have finished (one arrival per warp, 8 in all).
// No __syncthreads() in the loop: each side waits only for the stage it needs, so the producer
// runs up to 4 stages ahead, and a warpgroup waits for the other only when it would refill a
// stage the other still reads (empty(s) counts the warps of both), not at every K step.
// Register reallocation: the producer needs few registers, a consumer 128 accumulators and more.
// All 384 threads start with the same budget (65536 / 384, rounded down to a multiple of 8: 168
// per thread, the cap that __launch_bounds__(384, 1) sets); setmaxnreg then moves registers from
// the producer (down to 40) to the consumers (up to 232): 128 x 40 + 256 x 232 = 64512 <= 65536.
//
// What changed since wgmma_tma.cu (diff the two files): the roles, two barriers per stage instead
// of one barrier per K step, no prologue (the producer's first 4 waits return at once),
// setmaxnreg, 384 threads, a 1D grid of tiles (tile_row_major: step 3 replaces this order).
// load_stage, mma_stage and store_tile are the same (hopper_tiles.cuh), and so are the block tile
// (128 x 256) and the 4 stages; one block per tile.
// exercise.cu is this kernel with its four waits and arrivals left for the student to write (and
// a drain, so that a wrong protocol stops the kernel instead of faulting the GPU).
//
// Work per consumer warpgroup: 64 x 256 of C, 128 fp32 accumulators per thread. Shared memory: 4
// stages of 48 KiB (A 16 KiB + B 32 KiB) and 8 barriers, one block per SM.
// Preconditions: none (as wgmma_tma: packed operands when rows are not 16-byte aligned; on other
// GPUs the launcher runs chapter 06's mma_sync_pipelined and the table says so).
// Build and run:  cmake --build build --target 07_hopper
//                 ./build/bin/07_hopper --variant wgmma_warp_specialized
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV). On an H100, %
// of cuBLAS at 4096^3 / 8192^3, timed in turns: 95% / 76% (docs/figures/h100/results.csv, one
// run, before the steps had files of their own; docs/notes/07_hopper.md compares).
// =================================================================================================
#include "07_hopper/hopper.cuh"

#include "06_warp_tiling/warp_tiling.cuh"  // launch_mma_sync_pipelined: the fallback
#include "07_hopper/hopper_tiles.cuh"
#include "common/cuda_check.cuh"
#include "common/per_device.cuh"

namespace gemm::hopper {

template <int STAGES>
__global__ void __launch_bounds__(kWsThreads, 1)
    wgmma_warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a,
                                  const __grid_constant__ CUtensorMap map_b, float* __restrict__ C,
                                  int M, int N, int K, bool pairs) {
#if GEMM_SM90A_DEVICE
  extern __shared__ unsigned char smem_raw[];
  constexpr int kConsumerWarps = 8;  // arrivals that empty a stage
  const SharedLayout<STAGES> sm(smem_raw);
  const int wg = threadIdx.x / 128;  // 0: the producer; 1 and 2: the consumers
  const int2 tile = tile_row_major(blockIdx.x, (N + kBN - 1) / kBN);  // (tile row, tile column)
  const int m0 = tile.x * kBM, n0 = tile.y * kBN;
  const int k_steps = (K + kBK - 1) / kBK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(sm.full(s), 1);                // the producer's expect_tx
      mbar_init(sm.empty(s), kConsumerWarps);  // one arrival per consumer warp
    }
    fence_mbarrier_init();
  }
  __syncthreads();  // KEY: the barriers exist; from here on, the warpgroups never meet again

  // Both sides walk the same K steps: step k uses stage k % STAGES, for the (k / STAGES)-th time.
  if (wg == 0) {
    // ---- The producer -------------------------------------------------------------------------
    setmaxnreg_dec<kProducerRegs>();  // KEY: every thread of the warpgroup, before the branch
    if (threadIdx.x == 0) {
      for (int k = 0; k < k_steps; ++k) {
        const int s = k % STAGES;
        // KEY: wait until the consumers released this stage's previous use. The first use waits
        // for parity 1 of a fresh barrier, which returns at once.
        mbar_wait(sm.empty(s), ((k / STAGES) & 1) ^ 1);
        load_stage(sm, s, &map_a, &map_b, m0, n0, k * kBK);
      }
    }
  } else {
    // ---- The consumers ------------------------------------------------------------------------
    setmaxnreg_inc<kConsumerRegs>();
    const int cw = wg - 1;  // consumer 0: rows 0-63 of the tile, consumer 1: rows 64-127
    const bool arrives = threadIdx.x % 32 == 0;  // lane 0 of each warp releases stages
    float acc[kAccs] = {};  // [128] this thread's part of the warpgroup's 64 x 256 tile
    for (int k = 0; k < k_steps; ++k) {
      const int s = k % STAGES;
      mbar_wait(sm.full(s), (k / STAGES) & 1);  // KEY: the stage has landed
      mma_stage(acc, sm.a(s), sm.b(s), cw, k > 0);
      wgmma_wait<1>();  // the wgmmas of step k - 1 have finished reading their stage
      // KEY: this warp is done reading step k - 1's stage (step k's wgmmas may still read theirs)
      if (k > 0 && arrives) mbar_arrive(sm.empty((k - 1) % STAGES));
    }
    // The last stage is not released: one tile per block, nothing will refill it.
    wgmma_wait<0>();
    fence_accumulators(acc);
    store_tile(acc, C, M, N, m0 + 64 * cw, n0, pairs);
  }
#else
  __trap();  // not compiled for sm_90a: never launched (the launcher runs mma_sync_pipelined)
#endif
}

namespace {
constexpr int kStages = 4;
constexpr int kSmemBytes = SharedLayout<kStages>::kBytes;  // 197696: 4 stages, barriers, 1 KB
constexpr auto kKernel = wgmma_warp_specialized_kernel<kStages>;

// Once per GPU (common/per_device.cuh): runs this GPU the sm_90a code, with kSmemBytes?
bool ready() {
  static PerDevice<bool> ready_on;
  return ready_on.get([](int) {
    if (!runs_here()) return false;
    allow_shared_memory({{kKernel, kSmemBytes}});
    return true;
  });
}
}  // namespace

void launch_wgmma_warp_specialized(const __half* A, const __half* B, float* C, int M, int N, int K,
                                   cudaStream_t stream) {
  if (!ready()) {  // not Hopper, or not built for sm_90a
    warp_tiling::launch_mma_sync_pipelined(A, B, C, M, N, K, stream);
    return;
  }
  const AlignedOperands ops(A, B, M, N, K, stream);  // packed copies if rows are not aligned
  const TensorMaps maps = make_tensor_maps(ops, M, N);
  const bool pairs = warp_tiling::float2_stores_ok(C, N);
  const int tiles = ceil_div(M, kBM) * ceil_div(N, kBN);  // KEY: one block per tile
  kKernel<<<tiles, kWsThreads, kSmemBytes, stream>>>(maps.a, maps.b, C, M, N, ops.k(), pairs);
  GEMM_LAUNCH_CHECK();
}

std::vector<KernelResources> wgmma_warp_specialized_kernels() {
  return {
      {"wgmma_warp_specialized", reinterpret_cast<const void*>(kKernel), kWsThreads, kSmemBytes}};
}

}  // namespace gemm::hopper
