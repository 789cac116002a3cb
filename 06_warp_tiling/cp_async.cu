// =================================================================================================
// Chapter 06 - tensor cores with block and warp tiling, part 2: a cp.async pipeline.
//
// The idea: in kernels 1-3 every K step is load, barrier, compute, barrier. While the tiles come
// from global memory (hundreds of clocks), the tensor cores of that block wait; with one block
// of 8 warps per SM (the 64 x 64 warp tile takes over 200 registers per thread) no other block
// fills in. Here the loads of tile t+2 are in flight while tile t is computed: STAGES = 3 buffers
// of shared memory, filled by cp.async, an instruction of sm_80 that copies 4, 8 or 16 bytes (16
// here) from global to shared memory without going through registers and without making the
// thread wait for it.
//
//   prologue:  issue tile 0 -> stage 0, commit;  issue tile 1 -> stage 1, commit
//   step t:    wait until tile t has landed (cp.async.wait_group STAGES-2);  barrier
//              issue tile t+2 -> stage (t+2) % 3, commit       (the stage tile t-1 used)
//              compute on stage t % 3
//
// What changed since wmma_vec_loads: the loads (cp.async into STAGES stages instead of
// LDG -> registers -> STS into one) and one barrier per K step instead of two. The block and warp
// tiles, the padded layout, the WMMA step and the epilogue are the same.
// Work and loads per MAC: as kernel 3. Shared memory: 3 stages of 27136 bytes (dynamic: over the
// 48 KB a block gets without asking, so the launcher raises the limit once).
//
// Preconditions: none. cp.async copies 16 bytes from a 16-byte aligned source; when pointers, N or
// K do not allow that (vec8_ok), and on GPUs without cp.async (sm_75), the launcher runs
// wmma_vec_loads instead.
// Build and run:  cmake --build build --target 06_warp_tiling
//                 ./build/bin/06_warp_tiling --variant wmma_cp_async
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "06_warp_tiling/warp_tiling.cuh"

#include "06_warp_tiling/tile_helpers.cuh"
#include "common/cuda_check.cuh"
#include "common/per_device.cuh"

namespace gemm::warp_tiling {

// -------------------------------------------------------------------------------------------------
// 4. wmma_cp_async. Changed from kernel 3: the pipeline.
//
// Why the counts are right. Every call of issue() commits exactly one group, empty past the last
// tile, so before the wait of step t this thread has committed STAGES - 1 + t groups, group g
// holding tile g. wait_group(STAGES - 2) returns when at most STAGES - 2 are still in flight: the
// oldest t + 1 groups, tiles 0 .. t, have landed. Then the barrier, which guards two things:
//   - read after write: each thread waited for its own copies only; after the barrier every
//     thread's copies of tile t are complete and visible to every warp;
//   - write after read: the copies issued right after it go to stage (t + STAGES - 1) % STAGES =
//     (t - 1) % STAGES, which the warps read in step t - 1; after the barrier, all are done.
// One barrier per K step instead of kernel 3's two. Remove it and racecheck reports both hazards.
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int WM, int WN, int PAD, int STAGES>
__global__ void __launch_bounds__(WarpGrid<BM, BN, WM, WN>::kThreads, 1)
    wmma_cp_async_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                         float* __restrict__ C, int M, int N, int K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Warps = WarpGrid<BM, BN, WM, WN>;
  constexpr int FM = WM / kFrag, FN = WN / kFrag;
  static_assert(WM % kFrag == 0 && WN % kFrag == 0,
                "WM and WN must be multiples of 16 (whole WMMA fragments)");
  static_assert(PAD % 8 == 0, "PAD must be a multiple of 8 halves (16-byte aligned rows)");
  static_assert(STAGES >= 2, "STAGES must be at least 2 (one stage computed, one loading)");
  constexpr int LDA = BK + PAD, LDB = BN + PAD;     // row strides of the padded tiles, in halves
  constexpr int kStageA = BM * LDA;                 // halves per stage of A
  constexpr int kStageB = BK * LDB;                 // halves per stage of B
  static_assert((kStageA * 2) % 128 == 0 && (kStageB * 2) % 128 == 0,
                "each stage of As and Bs must start 128-byte aligned");
  static_assert(STAGES * (kStageA + kStageB) * 2 >= Warps::kWarps * kFrag * kFrag * 4,
                "the stages must hold the epilogue's 16 x 16 float scratch of every warp");
  using AMap = ChunkMap<BM, BK, Warps::kThreads>;
  using BMap = ChunkMap<BK, BN, Warps::kThreads>;

  extern __shared__ __align__(128) unsigned char smem[];
  __half* As = reinterpret_cast<__half*>(smem);  // [STAGES][BM][BK + PAD]
  __half* Bs = As + STAGES * kStageA;            // [STAGES][BK][BN + PAD]
  const uint32_t As_u32 = smem_u32(As);          // the same, as shared-window addresses
  const uint32_t Bs_u32 = smem_u32(Bs);

  const int wrow = Warps::warp_row();
  const int wcol = Warps::warp_col();
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;
  const int tiles = (K + BK - 1) / BK;  // K steps, the last one zero-filled past K

  FragC acc[FM][FN];  // [WM/16][WN/16] accumulators
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  // This thread's chunks of every A tile and every B tile (tile_helpers.cuh).
  const TileCopier<AMap, Padded<LDA>, BK, true> a_copy(A, M, K, block_row, 0);
  const TileCopier<BMap, Padded<LDB>, BK, false> b_copy(B, K, N, 0, block_col);
  // Tile t -> stage t % STAGES, as one commit group; past the last tile, an empty group.
  auto issue = [&](int t) {
    if (t < tiles) {
      const int s = t % STAGES;
      a_copy.issue(As_u32 + 2 * s * kStageA, A, t, K);  // KEY: cp.async, 16 bytes per chunk
      b_copy.issue(Bs_u32 + 2 * s * kStageB, B, t, K);
    }
    cp_async_commit();  // KEY: always one group per call, so wait_group's count stays right
  };

  for (int t = 0; t < STAGES - 1; ++t) issue(t);  // prologue: STAGES - 1 tiles in flight

  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // KEY: this thread's copies of tile t have landed
    __syncthreads();              // KEY: everyone's have, and everyone is done with tile t - 1
    issue(t + STAGES - 1);        // into the stage of tile t - 1
    const int s = t % STAGES;
    wmma_warp_step<BK, LDA, LDB>(As + s * kStageA + wrow * LDA, Bs + s * kStageB + wcol, acc);
  }
  cp_async_wait<0>();  // only empty groups are left in flight, but leave none behind
  __syncthreads();     // every warp is done with the stages: they become the epilogue's scratch
  float* scratch = reinterpret_cast<float*>(smem) + (threadIdx.x / 32) * kFrag * kFrag;
  store_acc_staged<true>(acc, scratch, C, M, N, block_row + wrow, block_col + wcol);
#else
  __trap();  // compiled for sm_75: never launched there (the launcher runs wmma_vec_loads)
#endif
}

// -------------------------------------------------------------------------------------------------
// Launcher. STAGES = 3: 3 x 27136 = 81408 bytes. A fourth stage (108544 bytes) would not fit the
// 99 KB a block may have on sm_86 and sm_89; mma_ptx.cu gets its fourth stage from dropping the
// padding.
// -------------------------------------------------------------------------------------------------
namespace {
constexpr int kStages = kCpAsyncStages;  // 3 (warp_tiling.cuh)
constexpr int kSmemBytes = kStages * (kBM * (kBK + kPad) + kBK * (kBN + kPad)) * 2;  // 81408
constexpr auto kKernel = wmma_cp_async_kernel<kBM, kBN, kBK, kWM, kWN, kPad, kStages>;

// Once per GPU: does this GPU run the kernel's sm_80 code? If so, let it have kSmemBytes of
// dynamic shared memory (a kernel may use at most 48 KB unless it asks; the permission belongs to
// the GPU that is current when it is given: common/per_device.cuh).
bool cp_async_ready() {
  static PerDevice<bool> ready_on;
  return ready_on.get([](int) {
    if (!runs_sm80_code(reinterpret_cast<const void*>(kKernel))) return false;
    CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    kSmemBytes));
    return true;
  });
}
}  // namespace

void launch_cp_async(const __half* A, const __half* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  if (cp_async_ready() && vec8_ok(A, B, C, N, K)) {
    kKernel<<<grid_for(M, N), kThreads, kSmemBytes, stream>>>(A, B, C, M, N, K);
    GEMM_LAUNCH_CHECK();
  } else {
    // sm_75 (no cp.async), or pointers / N / K that forbid 16-byte copies: kernel 3, which
    // itself takes its scalar path when the 16-byte test fails.
    launch_vec_loads(A, B, C, M, N, K, stream);
  }
}

std::string cp_async_runs_instead(const void* A, const void* B, const float* C, int, int N,
                                  int K) {
  if (!cp_async_ready()) return "ran wmma_vec_loads: needs sm_80";
  if (!vec8_ok(static_cast<const __half*>(A), static_cast<const __half*>(B), C, N, K))
    return "ran wmma_vec_loads, scalar loads: rows not 16-byte aligned";
  return "";
}

std::vector<KernelInfo> cp_async_kernels() {
  return {{"wmma_cp_async", reinterpret_cast<const void*>(kKernel), kThreads, kSmemBytes,
           KernelInfo::kSm80}};
}

}  // namespace gemm::warp_tiling
