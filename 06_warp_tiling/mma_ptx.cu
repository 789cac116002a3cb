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
// wmma_cp_async, which falls back to kernel 3's scalar loads there, this kernel keeps its speed at
// every size (README.md, Measured).
// Build and run:  cmake --build build --target 06_warp_tiling
//                 ./build/bin/06_warp_tiling --variant mma_sync_ptx
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "06_warp_tiling/warp_tiling.cuh"

#include <cstdint>

#include "06_warp_tiling/mma_ptx.cuh"
#include "06_warp_tiling/packing.cuh"
#include "06_warp_tiling/tile_helpers.cuh"
#include "common/cuda_check.cuh"

namespace gemm::warp_tiling {

// The three PTX instructions (ldmatrix, ldmatrix.trans, mma.sync.m16n8k16) and the fragment
// layouts they produce are in mma_ptx.cuh: read it first.

// Stores C[row][col], C[row][col + 1] as one float2, skipping what falls outside. The float2 store
// needs an 8-byte aligned address: this epilogue runs only when C is 8-byte aligned and N is even
// (the launcher checks), and col is even, so row * N + col is even; col < N then means col + 1 < N.
__device__ __forceinline__ void store2_guarded(float* __restrict__ C, int M, int N, int row,
                                               int col, float x, float y) {
  if (row < M && col < N) *reinterpret_cast<float2*>(&C[row * N + col]) = make_float2(x, y);
}

// -------------------------------------------------------------------------------------------------
// 5. mma_sync_ptx. The warp tile is 64 x 64 = 4 m16 tiles x 8 n8 tiles: 32 mma.sync per k16 slice,
// 4 x 8 x 4 = 128 fp32 accumulators per lane (the same 128 registers as WMMA's 4 x 4 fragments).
//
// Per k16 slice, the ldmatrix addresses of lane l (README.md walks through them):
//   A, x4, for m16 tile i: row  wrow + 16 i + l % 16,  k  kk + 8 (l / 16)
//       lanes 0-7: rows 0-7, k 0-7 -> a[i][0]      lanes 16-23: rows 0-7,  k 8-15 -> a[i][2]
//       lanes 8-15: rows 8-15, k 0-7 -> a[i][1]    lanes 24-31: rows 8-15, k 8-15 -> a[i][3]
//   B, x4.trans, for n8 tiles 2p and 2p+1: k row  kk + l % 16,  column  wcol + 16 p + 8 (l / 16)
//       lanes 0-7: k 0-7, n 0-7 -> b[2p][0]        lanes 16-23: k 0-7,  n 8-15 -> b[2p+1][0]
//       lanes 8-15: k 8-15, n 0-7 -> b[2p][1]      lanes 24-31: k 8-15, n 8-15 -> b[2p+1][1]
// Each group of 8 lanes reads 8 consecutive rows at the same logical chunk: the swizzle puts them
// in 8 different 16-byte bank groups, one wavefront per matrix (tile_helpers.cuh, Swizzle).
// -------------------------------------------------------------------------------------------------
// K is the row length of A and the row count of B; B's rows are ldb halves long (ldb >= N, the
// columns past N zero); C is M x N. Unpacked, ldb = N; packed, K and ldb are rounded up to 8.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool STAGE_C>
__global__ void __launch_bounds__(WarpGrid<BM, BN, WM, WN>::kThreads, 1)
    mma_sync_ptx_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                        float* __restrict__ C, int M, int N, int K, int ldb) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Warps = WarpGrid<BM, BN, WM, WN>;
  constexpr int MT = WM / 16;  // m16 tiles per warp tile: 4
  constexpr int NT = WN / 8;   // n8 tiles per warp tile: 8
  static_assert(WM % 16 == 0, "WM must be a multiple of 16 (m16 tiles of mma.m16n8k16)");
  static_assert(WN % 16 == 0,
                "WN must be a multiple of 16 (ldmatrix.x4.trans loads n8 tiles in pairs)");
  static_assert(BK % 16 == 0, "BK must be a multiple of 16 (k16 slices)");
  static_assert(STAGES >= 2, "STAGES must be at least 2 (one stage computed, one loading)");
  constexpr int kStageA = BM * BK;  // halves per stage of A: no padding
  constexpr int kStageB = BK * BN;  // halves per stage of B
  static_assert((kStageA * 2) % 128 == 0 && (kStageB * 2) % 128 == 0,
                "each stage of As and Bs must start 128-byte aligned");
  using ALayout = Swizzle<BK>;  // asserts BK == 32 (64-byte rows)
  using BLayout = Swizzle<BN>;  // asserts BN % 64 == 0
  using AMap = ChunkMap<BM, BK, Warps::kThreads>;
  using BMap = ChunkMap<BK, BN, Warps::kThreads>;

  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t As = smem_u32(smem);        // [STAGES][BM][BK]  swizzled, shared-window address
  const uint32_t Bs = As + 2 * STAGES * kStageA;  // [STAGES][BK][BN]  swizzled

  const int lane = threadIdx.x % 32;
  const int wrow = Warps::warp_row();
  const int wcol = Warps::warp_col();
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;
  const int tiles = (K + BK - 1) / BK;

  float acc[MT][NT][4] = {};  // [WM/16][WN/8][4] accumulators: 128 floats per lane

  // Kernel 4's pipeline; only the layout the copies write differs (swizzled, not padded).
  const TileCopier<AMap, ALayout, BK, true> a_copy(A, M, K, block_row, 0);
  const TileCopier<BMap, BLayout, BK, false> b_copy(B, K, ldb, 0, block_col);
  auto issue = [&](int t) {  // tile t -> stage t % STAGES, one commit group per call
    if (t < tiles) {
      const int s = t % STAGES;
      a_copy.issue(As + 2 * s * kStageA, A, t, K);
      b_copy.issue(Bs + 2 * s * kStageB, B, t, K);
    }
    cp_async_commit();
  };

  // This lane's ldmatrix row, within the warp tile (see the comment above the kernel).
  const int a_row = wrow + lane % 16;        // A: + 16 i
  const int a_col = (lane / 16) * 8;         // A: + kk
  const int b_row = lane % 16;               // B: + kk
  const int b_col = wcol + (lane / 16) * 8;  // B: + 16 p

  for (int t = 0; t < STAGES - 1; ++t) issue(t);

  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // tile t has landed (this thread's copies)
    __syncthreads();              // everyone's copies; everyone is done with tile t - 1
    const int s = t % STAGES;
    const uint32_t As_s = As + 2 * s * kStageA;
    const uint32_t Bs_s = Bs + 2 * s * kStageB;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[MT][4];  // [WM/16][4]  A fragments, 2 halves per register
      uint32_t b[NT][2];  // [WN/8][2]   B fragments, 2 halves per register
#pragma unroll
      for (int i = 0; i < MT; ++i)
        ldmatrix_x4(a[i], As_s + 2 * ALayout::offset(a_row + 16 * i, kk + a_col));  // KEY
#pragma unroll
      for (int p = 0; p < NT / 2; ++p)
        ldmatrix_x4_trans(b[2 * p][0], b[2 * p][1], b[2 * p + 1][0], b[2 * p + 1][1],
                          Bs_s + 2 * BLayout::offset(kk + b_row, b_col + 16 * p));  // KEY
      // The copies of tile t + STAGES - 1, issued between the first slice's ldmatrix and its
      // mma: the ldmatrix latency then passes while the copy instructions issue, instead of
      // stalling every warp right after the barrier. (Kernel 4 issues them before the step, as
      // its WMMA helper leaves no gap; either order is correct, the barrier above freed the stage.)
      if (kk == 0) issue(t + STAGES - 1);
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) mma_m16n8k16(acc[i][j], a[i], b[j]);  // KEY: 32 per slice
    }
  }
  cp_async_wait<0>();  // only empty groups are left in flight, but leave none behind

  const int g = lane / 4, t4 = lane % 4;
  if constexpr (!STAGE_C) {
    // Epilogue from registers: lane l holds rows g and g + 8, columns 2t and 2t + 1 of every
    // 16 x 8 tile. A warp's float2 store covers 8 rows x 32 bytes: whole 32-byte sectors.
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const int row = block_row + wrow + 16 * i + g;
        const int col = block_col + wcol + 8 * j + 2 * t4;
        store2_guarded(C, M, N, row, col, acc[i][j][0], acc[i][j][1]);
        store2_guarded(C, M, N, row + 8, col, acc[i][j][2], acc[i][j][3]);
      }
    }
  } else {
    // Epilogue through shared memory, for a C whose rows do not start 8-byte aligned (odd N, or
    // an unaligned pointer): the row-by-row float2 stores above would each straddle two 32-byte
    // sectors or be impossible. Instead, one warp row of the block tile at a time (WM x BN floats),
    // the warps that own it write their accumulators into the now idle pipeline buffers, and then
    // the whole block copies those rows out with consecutive threads on consecutive columns: every
    // warp store is 128 contiguous bytes, whatever the alignment.
    constexpr int LDC = BN + 8;  // [WM][BN + 8]: rows 8 banks apart, conflict-free float2 writes
    static_assert(WM * LDC * 4 <= STAGES * (kStageA + kStageB) * 2,
                  "the staged epilogue's WM x (BN + 8) floats must fit in the pipeline buffers");
    float* Cs = reinterpret_cast<float*>(smem);
    __syncthreads();  // KEY: every warp has finished reading the last tile; the buffers are free
#pragma unroll 1
    for (int h = 0; h < BM / WM; ++h) {
      if (wrow == h * WM) {
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
          for (int j = 0; j < NT; ++j) {
            float* at = Cs + (16 * i + g) * LDC + wcol + 8 * j + 2 * t4;
            *reinterpret_cast<float2*>(at) = make_float2(acc[i][j][0], acc[i][j][1]);
            *reinterpret_cast<float2*>(at + 8 * LDC) = make_float2(acc[i][j][2], acc[i][j][3]);
          }
      }
      __syncthreads();  // the rows are complete before anyone copies them out
      for (int e = threadIdx.x; e < WM * BN; e += Warps::kThreads) {
        const int row = block_row + h * WM + e / BN, col = block_col + e % BN;
        if (row < M && col < N) C[row * N + col] = Cs[(e / BN) * LDC + e % BN];
      }
      __syncthreads();  // everyone has copied them before the next warp row overwrites them
    }
  }
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

bool mma_ptx_ready() {
  static const bool ready = [] {
    if (!runs_sm80_code(reinterpret_cast<const void*>(kKernel))) return false;
    for (auto kernel : {kKernel, kKernelStagedC})
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      kSmemBytes));
    return true;
  }();
  return ready;
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
