// Zero-padded copies with 16-byte aligned rows (padding.cuh says when and why).
#include "common/padding.cuh"

#include <algorithm>

#include <cuda_fp16.h>

#include "common/cuda_check.cuh"

namespace gemm {
namespace {

// Each thread writes one 16-byte chunk of dst (grid-stride); its elements are read from src one by
// one, since src rows may start anywhere. Consecutive threads read and write consecutive chunks of
// a row: both sides coalesced.
template <class T>
__global__ void pack_padded_kernel(const T* __restrict__ src, int rows, int cols,
                                   T* __restrict__ dst, int rows_p, int cols_p) {
  constexpr int kPer = kElemsPer16Bytes<T>;
  const long long chunks = static_cast<long long>(rows_p) * (cols_p / kPer);
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < chunks;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(c / (cols_p / kPer));
    const int c0 = static_cast<int>(c % (cols_p / kPer)) * kPer;
    alignas(16) T v[kPer];
#pragma unroll
    for (int i = 0; i < kPer; ++i)
      v[i] = (r < rows && c0 + i < cols) ? src[static_cast<long long>(r) * cols + c0 + i]
                                         : T(0.0f);  // KEY: the padding is zeros
    *reinterpret_cast<uint4*>(&dst[static_cast<long long>(r) * cols_p + c0]) =
        *reinterpret_cast<const uint4*>(v);  // one 16-byte store
  }
}

}  // namespace

template <class T>
void pack_padded(const T* src, int rows, int cols, T* dst, int rows_p, int cols_p,
                 cudaStream_t stream) {
  const long long chunks = static_cast<long long>(rows_p) * (cols_p / kElemsPer16Bytes<T>);
  const int blocks = static_cast<int>(std::min<long long>((chunks + 255) / 256, 4096));
  pack_padded_kernel<T><<<blocks, 256, 0, stream>>>(src, rows, cols, dst, rows_p, cols_p);
  GEMM_LAUNCH_CHECK();
}

template void pack_padded<float>(const float*, int, int, float*, int, int, cudaStream_t);
template void pack_padded<__half>(const __half*, int, int, __half*, int, int, cudaStream_t);

}  // namespace gemm
