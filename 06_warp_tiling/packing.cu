// Packing of A and B into zero-padded copies with 16-byte aligned rows (packing.cuh says when and
// why), with the copies allocated per call, in stream order.
#include "06_warp_tiling/packing.cuh"

#include <algorithm>
#include <cstdint>

#include "common/cuda_check.cuh"
#include "common/gemm.cuh"

namespace gemm::warp_tiling {
namespace {

// Copies rows x cols of src into a zero-padded dst of rows_p x cols_p, whose rows (cols_p halves,
// a multiple of 8) start at 16-byte boundaries. Each thread writes one 16-byte chunk of dst; its
// 8 source halves are read one by one (src rows may start anywhere). A pass over A and B costs
// reading and writing them once: a few percent of the GEMM at large sizes.
__global__ void pack_padded_kernel(const __half* __restrict__ src, int rows, int cols,
                                   __half* __restrict__ dst, int rows_p, int cols_p) {
  const long long chunks = static_cast<long long>(rows_p) * (cols_p / 8);
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < chunks;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(c / (cols_p / 8));
    const int c0 = static_cast<int>(c % (cols_p / 8)) * 8;
    alignas(16) __half v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
      v[i] = (r < rows && c0 + i < cols) ? src[static_cast<long long>(r) * cols + c0 + i]
                                         : __float2half(0.0f);
    *reinterpret_cast<uint4*>(&dst[static_cast<long long>(r) * cols_p + c0]) =
        *reinterpret_cast<const uint4*>(v);
  }
}

void pack(const __half* src, int rows, int cols, __half* dst, int rows_p, int cols_p,
          cudaStream_t stream) {
  const long long chunks = static_cast<long long>(rows_p) * (cols_p / 8);
  const int blocks = static_cast<int>(std::min<long long>((chunks + 255) / 256, 4096));
  pack_padded_kernel<<<blocks, 256, 0, stream>>>(src, rows, cols, dst, rows_p, cols_p);
  GEMM_LAUNCH_CHECK();
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

bool rows_are_16_byte_aligned(const __half* A, const __half* B, int N, int K) {
  return K % 8 == 0 && N % 8 == 0 && aligned16(A) && aligned16(B);
}

RowLengths aligned_row_lengths(const __half* A, const __half* B, int N, int K) {
  if (rows_are_16_byte_aligned(A, B, N, K)) return {K, N};
  return {ceil_div(K, 8) * 8, ceil_div(N, 8) * 8};
}

AlignedOperands::AlignedOperands(const __half* A, const __half* B, int M, int N, int K,
                                 cudaStream_t stream)
    : a_(A), b_(B), k_(K), ldb_(N) {
  if (rows_are_16_byte_aligned(A, B, N, K)) return;
  // KEY: a buffer of this call, on this call's stream: nothing is shared with a call on another.
  const RowLengths rows = aligned_row_lengths(A, B, N, K);
  k_ = rows.k;
  ldb_ = rows.ldb;
  const size_t a_halves = static_cast<size_t>(M) * k_;  // a multiple of 8: b_ stays aligned
  const size_t halves = a_halves + static_cast<size_t>(k_) * ldb_;
  copies_.allocate(halves * sizeof(__half), stream);  // common/workspace.cuh
  __half* copies = copies_.as<__half>();
  pack(A, M, K, copies, M, k_, stream);
  pack(B, K, N, copies + a_halves, k_, ldb_, stream);
  a_ = copies;
  b_ = copies + a_halves;
}

}  // namespace gemm::warp_tiling
