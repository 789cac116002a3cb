// =================================================================================================
// Chapter 01 - naive: one thread computes one element of C.
//
// The idea: C has M*N independent dot products, so give each to its own thread. Thread (row, col)
// walks along row `row` of A and down column `col` of B, accumulating K products in a register.
// No data is shared between threads on purpose; the reuse there is (much: every element of A and
// B is read by many threads) is left to the L1 and L2 caches.
//
// What changed since chapter 00: the loops over i and j become the grid of threads; only the k
// loop is left in the code. Work per thread: K multiply-adds (FMAs). Per block (32 x 8 threads):
// 256 elements of C.
// Global loads per FMA: 2 (one element of A, one of B), 8 bytes for 2 FLOP. On this GPU's DRAM
// that could never feed the FP32 units (README.md: the bytes-per-FLOP argument); only the L1 and
// L2 caches, which catch most of these loads, keep it from being far slower still.
//
// Three variants teach one lesson each:
//   naive_coalesced           threadIdx.x -> column. A warp's 32 threads read 32 neighbouring
//                             elements of a row of B (4 sectors of 32 bytes, one 128-byte line,
//                             when N is a multiple of 32 so that rows start aligned) and the same
//                             element of A (a broadcast), and write 32 neighbouring elements of C.
//   naive_uncoalesced         threadIdx.x -> row. Now a warp touches 32 different rows of A, K
//                             floats apart: 32 sectors for 32 useful floats.
//   naive_global_accumulate   the running sum lives in C, in global memory: every step stores it.
//
// Preconditions: none. Any M, N, K >= 1 (threads outside C return at once).
// Build and run:  cmake --build build --target 01_naive && ./build/bin/01_naive
// =================================================================================================
#include "01_naive/naive.cuh"

#include "common/cuda_check.cuh"
#include "common/device_info.cuh"

namespace gemm::naive {

__global__ void naive_coalesced_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int M, int N, int K) {
  // KEY: consecutive threads of a warp (consecutive threadIdx.x) get consecutive columns.
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;  // the grid is rounded up to whole blocks

  float acc = 0.0f;  // KEY: the running sum lives in a register
  for (int k = 0; k < K; ++k) {
    // A[row][k]: the same address for the whole warp (a broadcast).
    // B[k][col]: 32 consecutive floats across the warp (coalesced).
    acc += A[row * K + k] * B[k * N + col];
  }
  C[row * N + col] = acc;  // 32 consecutive floats across the warp (coalesced)
}

__global__ void naive_uncoalesced_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K) {
  // KEY: the only change - threadIdx.x now walks down a column of C (x and y swapped).
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;

  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    // A[row][k]: 32 rows, K floats apart -> 32 separate sectors per warp load.
    // B[k][col]: now the broadcast.
    acc += A[row * K + k] * B[k * N + col];
  }
  C[row * N + col] = acc;  // 32 rows, N floats apart: 32 sectors again
}

// No __restrict__ on C here: as far as the compiler knows, C may overlap A or B, so it must store
// the running sum to memory at every step before it may load the next A and B (a load through A
// could read what was just stored through C). This is what "accumulate in C" costs.
__global__ void naive_global_accumulate_kernel(const float* A, const float* B, float* C, int M,
                                               int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;

  float* c = &C[row * N + col];
  *c = 0.0f;
  for (int k = 0; k < K; ++k) *c += A[row * K + k] * B[k * N + col];  // KEY: load-add-store in memory
}

void launch_coalesced(const float* A, const float* B, float* C, int M, int N, int K,
                      cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceil_div(N, kBlockX), ceil_div(M, kBlockY));  // x covers columns, y rows
  naive_coalesced_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_uncoalesced(const float* A, const float* B, float* C, int M, int N, int K,
                        cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceil_div(M, kBlockX), ceil_div(N, kBlockY));  // x covers rows, y columns
  naive_uncoalesced_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

void launch_global_accumulate(const float* A, const float* B, float* C, int M, int N, int K,
                              cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceil_div(N, kBlockX), ceil_div(M, kBlockY));
  naive_global_accumulate_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

std::vector<Variant> variants() {
  return {
      {"naive_coalesced", launch_coalesced, nullptr,
       "threadIdx.x walks a row of C: B loads and C stores coalesce, A is broadcast"},
      {"naive_uncoalesced", launch_uncoalesced, nullptr,
       "threadIdx.x walks a column of C: 32 sectors per warp load of A"},
      {"naive_global_accumulate", launch_global_accumulate, nullptr,
       "coalesced, but the running sum is stored to C in global memory every step"},
  };
}

void print_resources() {
  const int threads = kBlockX * kBlockY;
  print_kernel_resources({
      {"naive_coalesced", reinterpret_cast<const void*>(naive_coalesced_kernel), threads},
      {"naive_uncoalesced", reinterpret_cast<const void*>(naive_uncoalesced_kernel), threads},
      {"naive_global_accumulate", reinterpret_cast<const void*>(naive_global_accumulate_kernel),
       threads},
  });
}

}  // namespace gemm::naive
