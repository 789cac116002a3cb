// =================================================================================================
// Chapter 06 - tensor cores with block and warp tiling, part 3: what WMMA compiles to, by hand.
//
// The idea: on sm_80 and newer, wmma::load_matrix_sync from shared memory compiles to ldmatrix and
// wmma::mma_sync (16 x 16 x 16) to two mma.sync.m16n8k16 (HMMA.16816 in the SASS). This kernel
// writes those two PTX instructions itself. In exchange for a fragment layout we must know (it is
// specified in the PTX ISA, unlike WMMA's), we get:
//   - a shared-memory layout WMMA cannot read: the XOR swizzle of tile_helpers.cuh. ldmatrix takes
//     one address per lane (per row of an 8 x 8 matrix), so the rows may be permuted at will;
//     load_matrix_sync takes one pointer and one stride. The swizzle is conflict-free with no
//     padding, and the 2.5 KB per stage that padding cost buy a 4th stage within 99 KB;
//   - an epilogue straight from registers: we know which lane holds which element of C, so there
//     is no trip through shared memory and every store can be bounds-checked on its own.
//
// What changed since wmma_cp_async: WMMA -> ldmatrix + mma.sync PTX; padded -> swizzled tiles;
// 3 -> 4 stages; the epilogue; the copies issued after the first slice's ldmatrix (see the loop).
// The block tile, the warp tile, the pipeline's counts and the loads are the same.
// Work per warp and K step: 2 k16 slices x (4 + 4 ldmatrix.x4, 4 x 8 = 32 mma.sync.m16n8k16).
// Shared memory: 4 stages of 24576 bytes = 98304 bytes (dynamic).
//
// Preconditions: none. On sm_75 the launcher runs wmma_vec_loads instead. When pointers, N or K do
// not allow 16-byte copies (an odd K, say), the launcher first packs A and B into zero-padded,
// aligned copies made for this call (packing.cuh) and runs the same kernel on them: unlike
// wmma_cp_async, which falls back to kernel 3's scalar loads there, this kernel keeps most of its
// speed at every size (README.md, "Packing").
// Build and run:  cmake --build build --target 06_warp_tiling
//                 ./build/bin/06_warp_tiling --variant mma_sync_ptx
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "06_warp_tiling/warp_tiling.cuh"

#include <cstdint>

#include "06_warp_tiling/mma_tiles.cuh"
#include "06_warp_tiling/packing.cuh"
#include "common/cuda_check.cuh"
#include "common/per_device.cuh"

namespace gemm::warp_tiling {

// The three PTX instructions (ldmatrix, ldmatrix.trans, mma.sync.m16n8k16) and the fragment
// layouts they produce are in mma_ptx.cuh: read it first. The warp tile's ldmatrix addresses, its
// mma.sync loop and its epilogue are in mma_tiles.cuh (MmaWarpTile), shared with kernel 6.

// -------------------------------------------------------------------------------------------------
// 5. mma_sync_ptx. The warp tile is 64 x 64 = 4 m16 tiles x 8 n8 tiles: 32 mma.sync per k16 slice,
// 4 x 8 x 4 = 128 fp32 accumulators per lane (the same 128 registers as WMMA's 4 x 4 fragments).
// -------------------------------------------------------------------------------------------------
// K is the row length of A and the row count of B; B's rows are ldb halves long (ldb >= N, the
// columns past N zero); C is M x N. Unpacked, ldb = N; packed, K and ldb are rounded up to 8.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool STAGE_C>
__global__ void __launch_bounds__(WarpGrid<BM, BN, WM, WN>::kThreads, 1)
    mma_sync_ptx_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                        float* __restrict__ C, int M, int N, int K, int ldb) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Warps = WarpGrid<BM, BN, WM, WN>;
  using Tile = MmaWarpTile<BM, BN, BK, WM, WN>;
  static_assert(STAGES >= 2, "STAGES must be at least 2 (one stage computed, one loading)");
  constexpr int kStageA = BM * BK;  // halves per stage of A: no padding
  constexpr int kStageB = BK * BN;  // halves per stage of B
  static_assert((kStageA * 2) % 128 == 0 && (kStageB * 2) % 128 == 0,
                "each stage of As and Bs must start 128-byte aligned");
  using AMap = ChunkMap<BM, BK, Warps::kThreads>;
  using BMap = ChunkMap<BK, BN, Warps::kThreads>;

  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t As = smem_u32(smem);        // [STAGES][BM][BK]  swizzled, shared-window address
  const uint32_t Bs = As + 2 * STAGES * kStageA;  // [STAGES][BK][BN]  swizzled

  const Tile warp(Warps::warp_row(), Warps::warp_col());
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;
  const int tiles = (K + BK - 1) / BK;

  typename Tile::Acc acc = {};  // [WM/16][WN/8][4] accumulators: 128 floats per lane

  // Kernel 4's pipeline; only the layout the copies write differs (swizzled, not padded).
  const TileCopier<AMap, typename Tile::ALayout, BK, true> a_copy(A, M, K, block_row, 0);
  const TileCopier<BMap, typename Tile::BLayout, BK, false> b_copy(B, K, ldb, 0, block_col);
  auto issue = [&](int t) {  // tile t -> stage t % STAGES, one commit group per call
    if (t < tiles) {
      const int s = t % STAGES;
      a_copy.issue(As + 2 * s * kStageA, A, t, K);
      b_copy.issue(Bs + 2 * s * kStageB, B, t, K);
    }
    cp_async_commit();
  };

  for (int t = 0; t < STAGES - 1; ++t) issue(t);

  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // tile t has landed (this thread's copies)
    __syncthreads();              // everyone's copies; everyone is done with tile t - 1
    const int s = t % STAGES;
    const uint32_t As_s = As + 2 * s * kStageA;
    const uint32_t Bs_s = Bs + 2 * s * kStageB;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      typename Tile::FragsA a;  // [WM/16][4]  A fragments, 2 halves per register
      typename Tile::FragsB b;  // [WN/8][2]   B fragments, 2 halves per register
      warp.load(a, b, As_s, Bs_s, kk);  // KEY: 4 + 4 ldmatrix.x4
      // The copies of tile t + STAGES - 1, issued between the first slice's ldmatrix and its
      // mma: the ldmatrix latency then passes while the copy instructions issue, instead of
      // stalling every warp right after the barrier. (Kernel 4 issues them before the step, as
      // its WMMA helper leaves no gap; either order is correct, the barrier above freed the stage.)
      if (kk == 0) issue(t + STAGES - 1);
      Tile::mma(acc, a, b);  // KEY: 32 mma.sync per slice
    }
  }
  cp_async_wait<0>();  // only empty groups are left in flight, but leave none behind

  // The register epilogue when C's rows start 8-byte aligned; else staged through shared memory
  // (for an odd N or an unaligned pointer, where the float2 stores would straddle 32-byte sectors
  // or be impossible). mma_tiles.cuh has both.
  warp.template store<STAGE_C, Warps::kThreads, STAGES * (kStageA + kStageB) * 2>(
      acc, smem, C, M, N, block_row, block_col);
#else
  __trap();  // compiled for sm_75: never launched there (the launcher runs wmma_vec_loads)
#endif
}

// -------------------------------------------------------------------------------------------------
// Launcher. STAGES = 4: 4 x 24576 = 98304 bytes, within the 99 KB a block may have on sm_86 and
// sm_89 (sm_80: 163 KB, sm_90: 227 KB).
// -------------------------------------------------------------------------------------------------
namespace {
constexpr int kStages = 4;
constexpr int kSmemBytes = kStages * (kBM * kBK + kBK * kBN) * 2;  // 98304
constexpr auto kKernel = mma_sync_ptx_kernel<kBM, kBN, kBK, kWM, kWN, kStages, false>;
constexpr auto kKernelStagedC = mma_sync_ptx_kernel<kBM, kBN, kBK, kWM, kWN, kStages, true>;

// Once per GPU, as cp_async.cu: runs this GPU the sm_80 code, and may the kernels use kSmemBytes?
bool mma_ptx_ready() {
  static PerDevice<bool> ready_on;
  return ready_on.get([](int) {
    if (!runs_sm80_code(reinterpret_cast<const void*>(kKernel))) return false;
    for (auto kernel : {kKernel, kKernelStagedC})
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      kSmemBytes));
    return true;
  });
}

}  // namespace

void launch_mma_sync_ptx(const __half* A, const __half* B, float* C, int M, int N, int K,
                         cudaStream_t stream) {
  if (!mma_ptx_ready()) {  // sm_75 (no cp.async, no m16n8k16): kernel 3 instead
    launch_vec_loads(A, B, C, M, N, K, stream);
    return;
  }
  // KEY: rows of C that start 8-byte aligned take the register epilogue, others the staged one.
  const auto kernel = float2_stores_ok(C, N) ? kKernel : kKernelStagedC;
  // KEY: A and B themselves when their rows start at 16-byte boundaries, else zero-padded copies
  // made for this call (packing.cuh); then the same kernel. The padding adds zero terms (K) and
  // zero columns that are never stored (N).
  const AlignedOperands ops(A, B, M, N, K, stream);
  kernel<<<grid_for(M, N), kThreads, kSmemBytes, stream>>>(ops.a(), ops.b(), C, M, N, ops.k(),
                                                            ops.ldb());
  GEMM_LAUNCH_CHECK();
}

std::string mma_sync_ptx_runs_instead(const void* A, const void* B, const float* C, int M,
                                      int N, int K) {
  if (mma_ptx_ready()) return "";
  const std::string scalar = vec_loads_runs_instead(A, B, C, M, N, K);
  return "ran wmma_vec_loads" + (scalar.empty() ? "" : ", " + scalar) + ": needs sm_80";
}

std::vector<KernelInfo> mma_ptx_kernels() {
  return {{"mma_sync_ptx", reinterpret_cast<const void*>(kKernel), kThreads, kSmemBytes,
           KernelInfo::kSm80},
          {"mma_sync_ptx (staged C epilogue)", reinterpret_cast<const void*>(kKernelStagedC),
           kThreads, kSmemBytes, KernelInfo::kSm80}};
}

}  // namespace gemm::warp_tiling
