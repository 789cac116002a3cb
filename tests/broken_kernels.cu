// Each kernel is the naive coalesced kernel with one classic bug.
#include "broken_kernels.hpp"

#include "common/cuda_check.cuh"

namespace gemm::broken {
namespace {

enum Bug { kStopsOneShort, kSkipsLastColumn, kWritesTransposed, kSwapsStrides };

template <Bug bug>
__global__ void broken_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  if (bug == kSkipsLastColumn && col == N - 1) return;  // leaves the NaN poison in place
  const int k_end = (bug == kStopsOneShort) ? K - 1 : K;
  float acc = 0.0f;
  for (int k = 0; k < k_end; ++k) {
    if (bug == kSwapsStrides)
      acc += A[row * K + k] * B[col * K + k];  // reads B as if stored transposed (in bounds)
    else
      acc += A[row * K + k] * B[k * N + col];
  }
  if (bug == kWritesTransposed)
    C[col * M + row] = acc;  // stays in bounds (M*N elements), wrong place
  else
    C[row * N + col] = acc;
}

template <Bug bug>
void launch(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  const dim3 block(32, 8), grid(ceil_div(N, 32), ceil_div(M, 8));
  broken_kernel<bug><<<grid, block, 0, s>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

enum Barrier { kNoBarrierAfterLoad, kNoBarrierAfterCompute };

// Chapter 02's tiled kernel, 16 x 16, minus one barrier.
template <Barrier missing>
__global__ void racy_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int TILE = 16;
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    if (missing != kNoBarrierAfterLoad) __syncthreads();  // read-after-write hazard without it
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    if (missing != kNoBarrierAfterCompute) __syncthreads();  // write-after-read hazard without it
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

template <Barrier missing>
void launch_racy(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s) {
  const dim3 block(16, 16), grid(ceil_div(N, 16), ceil_div(M, 16));
  racy_tiled_kernel<missing><<<grid, block, 0, s>>>(A, B, C, M, N, K);
  GEMM_LAUNCH_CHECK();
}

}  // namespace

std::vector<Variant> racy_variants() {
  return {
      {"no_barrier_after_load", launch_racy<kNoBarrierAfterLoad>, nullptr,
       "reads the tile before every thread has written it"},
      {"no_barrier_after_compute", launch_racy<kNoBarrierAfterCompute>, nullptr,
       "overwrites the tile while other threads still read it"},
  };
}

std::vector<Variant> variants() {
  return {
      {"stops_one_short", launch<kStopsOneShort>, nullptr, "k loop ends at K-1"},
      {"skips_last_column", launch<kSkipsLastColumn>, nullptr, "never writes column N-1"},
      {"writes_transposed", launch<kWritesTransposed>, nullptr, "stores C[col][row]"},
      {"swaps_strides", launch<kSwapsStrides>, nullptr, "indexes B with the wrong stride"},
  };
}

}  // namespace gemm::broken
