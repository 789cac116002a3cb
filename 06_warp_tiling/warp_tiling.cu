// =================================================================================================
// Chapter 06 - tensor cores with block and warp tiling, part 1: the WMMA warp tile.
//
// The idea: chapter 05 gave each warp one 16 x 16 WMMA fragment of C and read its fragments of A
// and B from global memory. Here a block of 8 warps stages a 128 x 32 tile of A and a 32 x 256
// tile of B in shared memory, and each warp computes a 64 x 64 warp tile of C: 4 x 4 accumulator
// fragments. Per 16-deep slice, a warp loads 4 fragments of B and 4 of A from shared memory and
// issues 16 mma_syncs: every A fragment is used 4 times (across the warp tile's columns) and every
// B fragment 4 times (down its rows). That is the warp tile: chapter 04's register outer product,
// one level up, with 16 x 16 fragments in place of single floats.
//
// What changed since chapter 05: shared-memory tiles, 8 warps per block, and the 4 x 4 fragment
// warp tile; the WMMA calls are the same.
// Work per warp: a 64 x 64 tile of C, 16 mma_syncs per 16 k: K in all. Per block (256 threads):
// a 128 x 256 tile of C.
// Global loads per MAC: (BM + BN) / (BM * BN) = 384 / 32768 = 1/85 of a half (a chapter-05 warp
// with one fragment: 1/8).
// Shared loads per MAC, per warp and 16-deep slice: (4 + 4) fragments x 256 halves for
// 16 x 4096 MACs: 1/32 of a half (one fragment per warp: 1/8).
//
// This file holds the first three refinements; cp_async.cu, mma_ptx.cu and mma_pipelined.cu the
// next three.
//   wmma_block_tiled   scalar guarded loads; As[BM][BK], Bs[BK][BN] as in A and B
//   wmma_padded        + rows padded by 8 halves: conflict-free ldmatrix reads
//   wmma_vec_loads     + 128-bit global loads and stores where alignment allows
//
// Preconditions: none. Any M, N, K >= 1 and any pointers: the edge tiles are zero-filled, the
// stores guarded, and the 128-bit path is only taken when the launcher has checked alignment.
// Build and run:  cmake --build build --target 06_warp_tiling && ./build/bin/06_warp_tiling
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include "06_warp_tiling/warp_tiling.cuh"

#include <cstdio>

#include "06_warp_tiling/tile_helpers.cuh"
#include "common/cuda_check.cuh"
#include "common/device_info.cuh"

namespace gemm::warp_tiling {

// -------------------------------------------------------------------------------------------------
// 1. wmma_block_tiled. Warp w owns rows warp_row() .. +WM-1 and columns warp_col() .. +WN-1 of
// the block tile (WarpGrid: 2 x 4 warps of 64 x 64). Each K step: all 256 threads load the two
// tiles one element at a time (zero outside A and B), barrier, each warp runs its 4 x 4 fragment
// outer product, barrier.
//
// Registers are the limit of the warp tile. An accumulator fragment holds 16 x 16 / 32 = 8 floats
// per lane, so a WM x WN warp tile costs WM * WN / 32 registers per lane: 128 at 64 x 64, half of
// the 255 a thread may have. The fragments of B and of A come on top: on sm_75 and newer each
// holds 8 distinct halves per lane, 4 registers (one LDSM .4, or two .2 on sm_75), so 4 x 4 for
// B and 4 for A. A 64 x 128 warp tile would need 256 for its accumulators alone.
// -------------------------------------------------------------------------------------------------
// -------------------------------------------------------------------------------------------------
// 2. wmma_padded. Changed from kernel 1: each shared row is PAD = 8 halves (16 bytes) longer. The
// two variants are one kernel, below: wmma_block_tiled is PAD = 0, wmma_padded PAD = 8.
//
// load_matrix_sync compiles to ldmatrix (LDSM.16.M88.4 for A, LDSM.16.MT88.4 for row-major B).
// One ldmatrix 8x8 matrix is 8 rows of 16 bytes, one address per row, served in one pass of the
// 32 banks (4 bytes each: 128 bytes) only if the 8 rows fall into 8 different 16-byte bank groups.
// A row r of a tile with a row stride of S bytes starts in bank group (r * S / 16) % 8:
//   As[BM][BK]:      S = 64 bytes:  groups 0, 4, 0, 4, ... : 4 rows per group, 4 passes (4-way);
//   Bs[BK][BN]:      S = 512 bytes: group 0 for all 8 rows: 8 passes (8-way);
//   +8 halves:       S = 80 and 528 bytes = 5 and 33 groups: rows start at groups
//                    0, 5, 2, 7, 4, 1, 6, 3 and 0, 1, 2, ..., 7: all different, one pass.
// Any odd number of 16-byte groups per row works; 8 halves is the smallest padding that keeps
// rows 16-byte aligned (ldmatrix needs it; WMMA wants ldm a multiple of 8 halves). It costs 25%
// more shared memory for As and 3% for Bs.
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int WM, int WN, int PAD>
__global__ void __launch_bounds__(WarpGrid<BM, BN, WM, WN>::kThreads, 1)
    wmma_block_tiled_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                            float* __restrict__ C, int M, int N, int K) {
  using Warps = WarpGrid<BM, BN, WM, WN>;
  constexpr int FM = WM / kFrag, FN = WN / kFrag;
  static_assert(WM % kFrag == 0 && WN % kFrag == 0,
                "WM and WN must be multiples of 16 (whole WMMA fragments)");
  static_assert(BK % kFrag == 0, "BK must be a multiple of 16 (k16 fragments)");
  static_assert(PAD % 8 == 0, "PAD must be a multiple of 8 halves (16-byte aligned rows)");
  using AMap = ElementMap<BM, BK, Warps::kThreads>;
  using BMap = ElementMap<BK, BN, Warps::kThreads>;

  __shared__ __align__(128) __half As[BM][BK + PAD];  // [BM][BK + PAD]  KEY (variant 2): PAD
  __shared__ __align__(128) __half Bs[BK][BN + PAD];  // [BK][BN + PAD]
  static_assert(sizeof(As) >= Warps::kWarps * kFrag * kFrag * sizeof(float),
                "As must hold the epilogue's 16 x 16 float scratch of every warp");

  const int wrow = Warps::warp_row();
  const int wcol = Warps::warp_col();
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  FragC acc[FM][FN];  // [WM/16][WN/16] accumulators: 4 x 4 fragments, 8 floats per lane each
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    // Element e = tid + 256 p of each tile: a warp reads 32 consecutive halves of one row.
    // 16 loads at a time (16 of A, then 2 x 16 of B): fully unrolled, the compiler keeps a row
    // or column index of each of the 48 loads in a register across the K loop, and the kernel
    // needs 255 registers and spills 40 bytes on sm_80 (nvcc 13.0). 16 loads in flight are plenty.
#pragma unroll 16
    for (int p = 0; p < AMap::kPerThread; ++p) {
      const int r = AMap::row(threadIdx.x, p), c = AMap::col(threadIdx.x, p);
      As[r][c] = load_or_zero(A, M, K, block_row + r, k0 + c);
    }
#pragma unroll 16
    for (int p = 0; p < BMap::kPerThread; ++p) {
      const int r = BMap::row(threadIdx.x, p), c = BMap::col(threadIdx.x, p);
      Bs[r][c] = load_or_zero(B, K, N, k0 + r, block_col + c);
    }
    __syncthreads();  // the tiles are complete before any warp reads them

#pragma unroll
    for (int kk = 0; kk < BK; kk += kFrag) {
      FragB b[FN];  // [WN/16]  this warp's B fragments of the k slice kk .. kk+15
#pragma unroll
      for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wcol + j * kFrag], BN + PAD);
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        FragA a;  // one A fragment at a time (4 registers on sm_75+, not 4 x 4)
        wmma::load_matrix_sync(a, &As[wrow + i * kFrag][kk], BK + PAD);
#pragma unroll
        for (int j = 0; j < FN; ++j)
          wmma::mma_sync(acc[i][j], a, b[j], acc[i][j]);  // KEY: a used FN times, b[j] FM times
      }
    }
    __syncthreads();  // every warp is done reading before the next tiles overwrite them
  }
  // The tiles are free now (the loop ended on a barrier): As becomes the epilogue's scratch.
  float* scratch = reinterpret_cast<float*>(&As[0][0]) + (threadIdx.x / 32) * kFrag * kFrag;
  store_acc_staged<false>(acc, scratch, C, M, N, block_row + wrow, block_col + wcol);
}

// -------------------------------------------------------------------------------------------------
// 3. wmma_vec_loads. Changed from kernel 2: the global traffic.
//   - Each thread loads its part of the tiles as 16-byte chunks of 8 halves
//     (LDG.E.128.CONSTANT: an eighth of kernel 2's load instructions) into registers, then
//     stores them as 16-byte chunks (STS.128). A tile: BM * BK / 8 = 512 chunks of A and 1024 of B, 2 + 4 per thread.
//   - The epilogue writes C in 16-byte pieces.
// Both only when the launcher has checked alignment (VEC = true). Otherwise the same kernel is
// compiled with VEC = false: the same chunks, read one guarded half at a time. In the VEC build a
// chunk that is not wholly inside the matrix is also read element by element.
// This kernel is also the fallback of kernels 4-6 on GPUs without cp.async (sm_75), and of
// kernel 4 for shapes or pointers that do not allow 16-byte copies (kernels 5 and 6 pack A and B).
// -------------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int WM, int WN, int PAD, bool VEC>
__global__ void __launch_bounds__(WarpGrid<BM, BN, WM, WN>::kThreads, 1)
    wmma_vec_loads_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                          float* __restrict__ C, int M, int N, int K) {
  using Warps = WarpGrid<BM, BN, WM, WN>;
  constexpr int FM = WM / kFrag, FN = WN / kFrag;
  static_assert(WM % kFrag == 0 && WN % kFrag == 0,
                "WM and WN must be multiples of 16 (whole WMMA fragments)");
  static_assert(PAD % 8 == 0, "PAD must be a multiple of 8 halves (16-byte aligned rows)");
  using AMap = ChunkMap<BM, BK, Warps::kThreads>;
  using BMap = ChunkMap<BK, BN, Warps::kThreads>;

  __shared__ __align__(128) __half As[BM][BK + PAD];  // [BM][BK + PAD]
  __shared__ __align__(128) __half Bs[BK][BN + PAD];  // [BK][BN + PAD]
  static_assert(sizeof(As) >= Warps::kWarps * kFrag * kFrag * sizeof(float),
                "As must hold the epilogue's 16 x 16 float scratch of every warp");

  const int wrow = Warps::warp_row();
  const int wcol = Warps::warp_col();
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  FragC acc[FM][FN];  // [WM/16][WN/16] accumulators
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    uint4 a_chunks[AMap::kPerThread];  // [BM*BK/8/THREADS] = [2]  8 halves each
    uint4 b_chunks[BMap::kPerThread];  // [BK*BN/8/THREADS] = [4]
    // All loads first, then all stores: the 6 loads are in flight together.
#pragma unroll
    for (int p = 0; p < AMap::kPerThread; ++p)
      a_chunks[p] = load8_or_zero<VEC>(A, M, K, block_row + AMap::row(threadIdx.x, p),
                                       k0 + AMap::col(threadIdx.x, p));  // KEY: LDG.E.128.CONSTANT
#pragma unroll
    for (int p = 0; p < BMap::kPerThread; ++p)
      b_chunks[p] = load8_or_zero<VEC>(B, K, N, k0 + BMap::row(threadIdx.x, p),
                                       block_col + BMap::col(threadIdx.x, p));
#pragma unroll
    for (int p = 0; p < AMap::kPerThread; ++p)
      *reinterpret_cast<uint4*>(&As[AMap::row(threadIdx.x, p)][AMap::col(threadIdx.x, p)]) =
          a_chunks[p];
#pragma unroll
    for (int p = 0; p < BMap::kPerThread; ++p)
      *reinterpret_cast<uint4*>(&Bs[BMap::row(threadIdx.x, p)][BMap::col(threadIdx.x, p)]) =
          b_chunks[p];
    __syncthreads();
    wmma_warp_step<BK, BK + PAD, BN + PAD>(&As[wrow][0], &Bs[0][wcol], acc);
    __syncthreads();
  }
  float* scratch = reinterpret_cast<float*>(&As[0][0]) + (threadIdx.x / 32) * kFrag * kFrag;
  store_acc_staged<VEC>(acc, scratch, C, M, N, block_row + wrow, block_col + wcol);  // STG.E.128
}

// -------------------------------------------------------------------------------------------------
// Launchers. The tile sizes (kBM, kBN, kBK, kWM, kWN, kPad) are chosen in one place for the whole
// chapter, at the end of tile_helpers.cuh: the same block and warp tiles in every kernel, so that
// each refinement is the only difference between two variants.
// -------------------------------------------------------------------------------------------------
void launch_block_tiled(const __half* A, const __half* B, float* C, int M, int N, int K,
                        cudaStream_t stream) {
  wmma_block_tiled_kernel<kBM, kBN, kBK, kWM, kWN, 0>
      <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_padded(const __half* A, const __half* B, float* C, int M, int N, int K,
                   cudaStream_t stream) {
  wmma_block_tiled_kernel<kBM, kBN, kBK, kWM, kWN, kPad>
      <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_vec_loads(const __half* A, const __half* B, float* C, int M, int N, int K,
                      cudaStream_t stream) {
  if (vec8_ok(A, B, C, N, K))  // KEY: 16-byte loads only where every chunk is aligned
    wmma_vec_loads_kernel<kBM, kBN, kBK, kWM, kWN, kPad, true>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  else
    wmma_vec_loads_kernel<kBM, kBN, kBK, kWM, kWN, kPad, false>
        <<<grid_for(M, N), kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

std::vector<KernelInfo> wmma_kernels() {
  return {
      {"wmma_block_tiled",
       reinterpret_cast<const void*>(wmma_block_tiled_kernel<kBM, kBN, kBK, kWM, kWN, 0>), kThreads,
       0, KernelInfo::kAnyGpu},
      {"wmma_padded",
       reinterpret_cast<const void*>(wmma_block_tiled_kernel<kBM, kBN, kBK, kWM, kWN, kPad>), kThreads,
       0, KernelInfo::kAnyGpu},
      {"wmma_vec_loads",
       reinterpret_cast<const void*>(
           wmma_vec_loads_kernel<kBM, kBN, kBK, kWM, kWN, kPad, true>),
       kThreads, 0, KernelInfo::kAnyGpu},
      {"wmma_vec_loads (scalar fallback)",
       reinterpret_cast<const void*>(
           wmma_vec_loads_kernel<kBM, kBN, kBK, kWM, kWN, kPad, false>),
       kThreads, 0, KernelInfo::kAnyGpu},
  };
}

std::string vec_loads_runs_instead(const void* A, const void* B, const float* C, int, int N,
                                   int K) {
  return vec8_ok(static_cast<const __half*>(A), static_cast<const __half*>(B), C, N, K)
             ? ""
             : "scalar loads: rows not 16-byte aligned";
}

std::vector<Variant> variants() {
  std::vector<Variant> steps = {
      {"wmma_block_tiled", nullptr, launch_block_tiled,
       "128 x 256 block tile, 8 warps of 64 x 64 (4 x 4 WMMA fragments); scalar loads"},
      {"wmma_padded", nullptr, launch_padded,
       "+ shared rows padded by 8 halves: conflict-free fragment loads"},
      {"wmma_vec_loads", nullptr, launch_vec_loads,
       "+ 128-bit global loads and stores when pointers, N and K allow (else scalar)",
       vec_loads_runs_instead},
      {"wmma_cp_async", nullptr, launch_cp_async,
       "+ 3-stage cp.async pipeline, one barrier per K step (sm_80+)", cp_async_runs_instead},
      {"mma_sync_ptx", nullptr, launch_mma_sync_ptx,
       "ldmatrix + mma.sync m16n8k16 (PTX), XOR-swizzled tiles, 4-stage cp.async (sm_80+)",
       mma_sync_ptx_runs_instead},
  };
  // KEY: the headline first, step 6 (the fastest, README.md, "Measured"); the others follow in
  // the order of the steps, step 6's forced configurations last (mma_pipelined.cu lists them).
  const std::vector<Variant> pipelined = mma_pipelined_variants();
  steps.insert(steps.begin(), pipelined.front());
  steps.insert(steps.end(), pipelined.begin() + 1, pipelined.end());
  return steps;
}

void print_resources() {
  std::vector<KernelInfo> kernels = wmma_kernels();
  for (auto more : {cp_async_kernels, mma_ptx_kernels, mma_pipelined_kernels})
    for (const KernelInfo& k : more()) kernels.push_back(k);

  // The shared table of common/ (also written by --resources-csv), for the kernels this GPU runs.
  std::vector<KernelResources> runnable;
  for (const KernelInfo& k : kernels) {
    if (k.needs == KernelInfo::kSm80 && !runs_sm80_code(k.kernel)) {
      std::printf("  %s: sm_80 code, not run on this GPU (wmma_vec_loads runs instead)\n", k.name);
      continue;
    }
    if (k.dynamic_smem > 0)  // the occupancy API counts 0 blocks until the kernel may use it
      CUDA_CHECK(cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      k.dynamic_smem));
    runnable.push_back({k.name, k.kernel, k.threads, static_cast<size_t>(k.dynamic_smem)});
  }
  print_kernel_resources(runnable);
}

}  // namespace gemm::warp_tiling
