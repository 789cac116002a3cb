// =================================================================================================
// Chapter 07 - tensor cores on Hopper, step 1: TMA, mbarriers and wgmma.
//
// The idea: on Hopper (sm_90a) the tensor cores take a bigger instruction than mma.sync, and the
// tiles get a copy engine of their own.
//   - wgmma.mma_async: a warpgroup (4 warps, 128 threads) multiplies 64 x 256 x 16 at once, its A
//     and B read by the tensor cores straight from shared memory (no ldmatrix, no fragments of A
//     and B in registers), asynchronously: the threads go on while it runs.
//   - TMA (cp.async.bulk.tensor): ONE thread asks the copy engine for two 64 x 64 boxes of A and
//     four of B (a whole stage); the engine computes every address, zero-fills what lies outside
//     the matrix, and writes the tile 128-byte-swizzled, the layout wgmma reads without conflicts.
//   - an mbarrier per stage: the copy engine counts the bytes it delivers into it; a thread that
//     waits on it knows the whole tile has landed, for every thread at once, without a barrier.
//
// What changed since chapter 06's mma_sync_ptx: everything inside the K loop. Per 64 of K the
// block issues 6 TMA requests (mma_sync_ptx: 3072 16-byte cp.async copies, 96 warp-wide
// instructions of 256 threads), each warpgroup 4 wgmmas (mma_sync_ptx: each warp 32 ldmatrix and
// 128 mma.sync). The block tile (128 x 256, 8 warps) and the 4-stage pipeline are the same; each
// warpgroup owns 64 rows of it. Measured on an H100 at 4096^3, timed in turns with cuBLAS: from
// 49% (mma_sync_ptx) to 95.5% of cuBLAS (docs/figures/h100/results.csv, commit aad2af4dc5;
// README.md, "Measured").
//
//   prologue:  thread 0 loads K steps 0..3 into stages 0..3
//   step t:    wait until full[t % 4] has completed (phase t / 4)
//              wgmma x 4 on stage t % 4, commit; wait until step t - 1's wgmmas are done
//              __syncthreads(): both warpgroups are done with stage (t - 1) % 4
//              thread 0: load K step t + 3 into stage (t - 1) % 4
//
// Work per warpgroup: 64 x 256 of C, 128 fp32 accumulators per thread. Shared memory: 4 stages of
// 48 KiB (A 16 KiB + B 32 KiB) = 192 KiB, one block per SM.
// Preconditions: none. TMA needs 16-byte aligned rows: other shapes are packed (chapter 06's
// packing.cuh). On a GPU other than compute capability 9.0, or a build without sm_90a, the
// launcher runs chapter 06's mma_sync_pipelined, and the results table says so.
// Build and run:  cmake --build build --target 07_hopper
//                 ./build/bin/07_hopper --variant wgmma_tma
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "07_hopper/hopper.cuh"

#include "06_warp_tiling/warp_tiling.cuh"  // launch_mma_sync_pipelined: the fallback
#include "07_hopper/hopper_tiles.cuh"
#include "common/cuda_check.cuh"
#include "common/per_device.cuh"

namespace gemm::hopper {

template <int STAGES>
__global__ void __launch_bounds__(256, 1)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, float* __restrict__ C, int M, int N,
                     int K, bool pairs) {
#if GEMM_SM90A_DEVICE
  extern __shared__ unsigned char smem_raw[];
  const SharedLayout<STAGES> sm(smem_raw);
  const int wg = threadIdx.x / 128;  // warpgroup 0: rows 0-63 of the tile, 1: rows 64-127
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int k_steps = (K + kBK - 1) / kBK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) mbar_init(sm.full(s), 1);  // 1 arrival: the expect_tx
    fence_mbarrier_init();
    for (int t = 0; t < min(STAGES, k_steps); ++t)  // prologue: fill every stage
      load_stage(sm, t, &map_a, &map_b, m0, n0, t * kBK);
  }
  __syncthreads();  // KEY: the barriers are initialised before anyone waits on them

  float acc[kAccs] = {};  // [128] this thread's part of the warpgroup's 64 x 256 tile
  for (int t = 0; t < k_steps; ++t) {
    const int s = t % STAGES;
    mbar_wait(sm.full(s), (t / STAGES) & 1);  // KEY: the copy engine delivered all 49152 bytes
    mma_stage(acc, sm.a(s), sm.b(s), wg, t > 0);
    wgmma_wait<1>();  // KEY: step t's wgmmas may run on; step t - 1's have finished
    __syncthreads();  // both warpgroups are done with stage (t - 1) % STAGES
    const int next = t - 1 + STAGES;
    if (threadIdx.x == 0 && t > 0 && next < k_steps)
      load_stage(sm, next % STAGES, &map_a, &map_b, m0, n0, next * kBK);
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  store_tile(acc, C, M, N, m0 + 64 * wg, n0, pairs);
#else
  __trap();  // not compiled for sm_90a: never launched (the launcher runs mma_sync_pipelined)
#endif
}

namespace {
constexpr int kStages = 4;
constexpr int kSmemBytes = SharedLayout<kStages>::kBytes;  // 197696: 4 stages, barriers, 1 KB
constexpr auto kKernel = wgmma_tma_kernel<kStages>;

// Once per GPU (common/per_device.cuh): runs this GPU the sm_90a code, with kSmemBytes?
bool ready() {
  static PerDevice<bool> ready_on;
  return ready_on.get([](int) {
    if (!runs_here()) return false;
    allow_shared_memory({{kKernel, kSmemBytes}});
    return true;
  });
}

void launch(const __half* A, const __half* B, float* C, int M, int N, int K, cudaStream_t stream) {
  if (!ready()) {  // not Hopper, or not built for sm_90a
    warp_tiling::launch_mma_sync_pipelined(A, B, C, M, N, K, stream);
    return;
  }
  const AlignedOperands ops(A, B, M, N, K, stream);  // packed copies if rows are not aligned
  const TensorMaps maps = make_tensor_maps(ops, M, N);
  const bool pairs = warp_tiling::float2_stores_ok(C, N);
  const dim3 grid(ceil_div(N, kBN), ceil_div(M, kBM));
  kKernel<<<grid, 256, kSmemBytes, stream>>>(maps.a, maps.b, C, M, N, ops.k(), pairs);
  GEMM_LAUNCH_CHECK();
}
}  // namespace

void launch_wgmma_tma(const __half* A, const __half* B, float* C, int M, int N, int K,
                      cudaStream_t stream) {
  launch(A, B, C, M, N, K, stream);
}

std::vector<KernelResources> wgmma_tma_kernels() {
  return {{"wgmma_tma", reinterpret_cast<const void*>(kKernel), 256, kSmemBytes}};
}

}  // namespace gemm::hopper
