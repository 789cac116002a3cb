// =================================================================================================
// Chapter 03 - thread tiling: each thread computes TM elements of one column of C.
//
// The idea: in chapter 02 every FMA needed two shared-memory loads, As[ty][k] and Bs[k][tx], so
// the kernel was limited by shared memory, not by arithmetic. Give each thread TM outputs that
// share a column: C[r0 .. r0+TM-1][col]. For each k they all need the same B[k][col], so the
// thread loads it ONCE into a register and uses it TM times, against TM values of A. The TM
// running sums live in registers (`float acc[TM]`, indexed only by unrolled loop counters).
//
// What changed since chapter 02: the block tile is no longer square and no longer one output per
// thread. A block of (BM / TM) * BN threads computes a BM x BN tile of C, walking along K in steps
// of BK; every thread helps load the BM x BK tile of A and the BK x BN tile of B (a loop, since
// there are more elements than threads), then runs TM FMAs per loaded B value.
// Work per thread: TM elements of C, TM * K FMAs. Per block: a BM x BN tile of C.
// Global loads per FMA: (BM * BK + BK * BN) / (BM * BN * BK) = 1/BN + 1/BM (1/32 for 64 x 64;
// chapter 02 with 32 x 32 tiles: 1/16). Shared-memory loads per FMA: (TM + 1) / TM = 1 + 1/TM
// (one B value and TM A values for TM FMAs), down from 2.
//
// Variants, a sweep of TM with BN = 64 and BK = 16 fixed and BM = 8 * TM (always 512 threads):
//   thread_tiling_tm8    TM =  8, BM =  64: the headline
//   thread_tiling_tm4    TM =  4, BM =  32
//   thread_tiling_tm16   TM = 16, BM = 128
//
// Preconditions: none. Any M, N, K >= 1: tile elements outside A or B are stored as 0.0f, and each
// of a thread's TM outputs is stored only if it lies inside C.
// Build and run:  cmake --build build --target 03_thread_tiling && ./build/bin/03_thread_tiling
// The measured figures (% of cuBLAS) are in README.md, generated from the benchmark CSV.
// =================================================================================================
#include "03_thread_tiling/thread_tiling.cuh"

#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device_info.cuh"

namespace gemm::thread_tiling {

// __launch_bounds__ promises the compiler that no launch uses more threads than this, so it may
// give each thread as many registers as still fit one whole block on an SM (for 512 threads:
// 65536 / 512 = 128), and must not give it more.
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM / TM) * BN)
    thread_tiling_kernel(const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C, int M, int N, int K) {
  constexpr int kThreads = (BM / TM) * BN;
  static_assert(BM % TM == 0, "BM must be a multiple of TM: each thread owns TM whole rows");
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "(BM / TM) * BN threads must be whole warps, 1024 at most");
  static_assert(BN % 32 == 0,
                "BN must be a multiple of 32: the 32 threads of a warp then share one group of TM "
                "rows, so their reads of As are broadcasts");
  static_assert((BM * BK) % kThreads == 0,
                "BM * BK must be a multiple of (BM / TM) * BN: every thread loads as many "
                "elements of the A tile");
  static_assert((BK * BN) % kThreads == 0,
                "BK * BN must be a multiple of (BM / TM) * BN: every thread loads as many "
                "elements of the B tile");

  constexpr int kALoads = BM * BK / kThreads;  // elements of the A tile each thread loads
  constexpr int kBLoads = BK * BN / kThreads;  // elements of the B tile each thread loads

  __shared__ float As[BM][BK];  // [BM][BK]: this block's rows of A, BK columns of K
  __shared__ float Bs[BK][BN];  // [BK][BN]: BK rows of K, this block's columns of B

  const int tid = threadIdx.x;
  const int col = tid % BN;          // this thread's column inside the block tile
  const int row0 = (tid / BN) * TM;  // the first of its TM rows inside the block tile
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float acc[TM] = {};  // [TM] KEY: TM running sums, in registers (only constant indices below)

  for (int k0 = 0; k0 < K; k0 += BK) {
    // All threads load both tiles together, kALoads + kBLoads elements each. Element e of a tile
    // (row-major) goes to thread e % kThreads, so consecutive threads read consecutive addresses
    // of a row (coalesced) and write consecutive words of shared memory. Outside A or B: 0.0f.
    // No thread skips this or the barriers, not even one whose outputs all lie outside C.
#pragma unroll
    for (int i = 0; i < kALoads; ++i) {
      const int e = tid + i * kThreads;
      const int r = e / BK, c = e % BK;
      const int a_row = block_row + r, a_col = k0 + c;
      As[r][c] = (a_row < M && a_col < K) ? A[a_row * K + a_col] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kBLoads; ++i) {
      const int e = tid + i * kThreads;
      const int r = e / BN, c = e % BN;
      const int b_row = k0 + r, b_col = block_col + c;
      Bs[r][c] = (b_row < K && b_col < N) ? B[b_row * N + b_col] : 0.0f;
    }
    __syncthreads();  // the tiles are complete (read-after-write, as in chapter 02)

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k][col];  // KEY: one shared load of B ...
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] += As[row0 + i][k] * b;  // KEY: ... used TM times
    }
    __syncthreads();  // everyone is done reading before the next phase overwrites the tiles
  }

  const int c = block_col + col;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = block_row + row0 + i;
    if (r < M && c < N) C[r * N + c] = acc[i];  // consecutive threads: consecutive columns
  }
}

// The tiles of the TM sweep (TileSizes, thread_tiling.cuh) and the kernel they instantiate.
template <int TM>
struct Tiles : TileSizes<TM> {
  static constexpr auto kernel =
      thread_tiling_kernel<TileSizes<TM>::BM, TileSizes<TM>::BN, TileSizes<TM>::BK, TM>;
};

template <int TM>
void launch_tiles(const float* A, const float* B, float* C, int M, int N, int K,
                  cudaStream_t stream) {
  using T = Tiles<TM>;
  const dim3 grid(ceil_div(N, T::BN), ceil_div(M, T::BM));  // x covers columns, y rows
  T::kernel<<<grid, T::kThreads, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_tm8(const float* A, const float* B, float* C, int M, int N, int K,
                cudaStream_t stream) {
  static_assert(kHeadlineTM == 8, "launch_tm8 (thread_tiling_tm8) is named after its TM");
  launch_tiles<kHeadlineTM>(A, B, C, M, N, K, stream);
}

void launch_tm4(const float* A, const float* B, float* C, int M, int N, int K,
                cudaStream_t stream) {
  launch_tiles<4>(A, B, C, M, N, K, stream);
}

void launch_tm16(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream) {
  launch_tiles<16>(A, B, C, M, N, K, stream);
}

std::vector<Variant> variants() {
  return {
      {"thread_tiling_tm8", launch_tm8, nullptr,
       "TM=8 outputs per thread; BM=64 BN=64 BK=16, 512 threads, 8 KiB shared per block"},
      {"thread_tiling_tm4", launch_tm4, nullptr,
       "TM=4 outputs per thread; BM=32 BN=64 BK=16, 512 threads, 6 KiB shared per block"},
      {"thread_tiling_tm16", launch_tm16, nullptr,
       "TM=16 outputs per thread; BM=128 BN=64 BK=16, 512 threads, 12 KiB shared per block"},
  };
}

// --- Resources: what each variant costs per thread and per block, and what fits on one SM -------

template <int TM>
KernelResources resources(const char* name) {
  return {name, reinterpret_cast<const void*>(Tiles<TM>::kernel), Tiles<TM>::kThreads};
}

void print_resources() {
  print_kernel_resources({resources<8>("thread_tiling_tm8"), resources<4>("thread_tiling_tm4"),
                          resources<16>("thread_tiling_tm16")});
}

}  // namespace gemm::thread_tiling
