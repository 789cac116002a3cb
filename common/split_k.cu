// Split-K's reduction, and the SM count (split_k.cuh).
#include "common/split_k.cuh"

#include <algorithm>

#include "common/cuda_check.cuh"
#include "common/gemm.cuh"

namespace gemm {

int current_sm_count() {
  // Asked at every call (a host-side lookup, no synchronization): a process may use several GPUs.
  int device = 0, count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

namespace {

// One thread per element of C (grid-stride): consecutive threads read consecutive floats of each
// slice and write consecutive floats of C, every access coalesced. The slices are added in order.
__global__ void reduce_split_k_kernel(const float* __restrict__ partials, int splits,
                                      size_t slice_floats, float* __restrict__ C, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float sum = partials[i];
    for (int s = 1; s < splits; ++s) sum += partials[s * slice_floats + i];  // KEY: fixed order
    C[i] = sum;
  }
}

}  // namespace

void reduce_split_k(const float* partials, int splits, size_t slice_floats, float* C, int M, int N,
                    cudaStream_t stream) {
  const size_t count = static_cast<size_t>(M) * N;
  const int threads = 256;
  const int blocks = static_cast<int>(std::min<size_t>((count + threads - 1) / threads, 4096));
  reduce_split_k_kernel<<<blocks, threads, 0, stream>>>(partials, splits, slice_floats, C, count);
  GEMM_LAUNCH_CHECK();
}

SplitKOutput::SplitKOutput(float* C, int M, int N, int splits, cudaStream_t stream)
    : C_(C), M_(M), N_(N), splits_(splits), out_(C) {
  if (splits_ > 1) {
    slice_floats_ = split_k_slice_floats(M, N);  // 16-byte aligned slices: wide stores stay aligned
    partials_.allocate(slice_floats_ * splits_ * sizeof(float), stream);
    out_ = partials_.as<float>();
  }
}

void SplitKOutput::reduce(cudaStream_t stream) const {
  if (splits_ > 1) reduce_split_k(out_, splits_, slice_floats_, C_, M_, N_, stream);  // KEY
}

}  // namespace gemm
