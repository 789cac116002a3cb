// Packing of A and B into zero-padded copies with 16-byte aligned rows (packing.cuh says when and
// why), with the copies allocated per call, in stream order. The copy itself is
// common/padding.cuh's pack_padded, which chapter 04 uses too.
#include "06_warp_tiling/packing.cuh"

#include <cstdint>

#include "common/padding.cuh"

namespace gemm::warp_tiling {
namespace {

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

bool rows_are_16_byte_aligned(const __half* A, const __half* B, int N, int K) {
  return K % 8 == 0 && N % 8 == 0 && aligned16(A) && aligned16(B);
}

RowLengths aligned_row_lengths(const __half* A, const __half* B, int N, int K) {
  if (rows_are_16_byte_aligned(A, B, N, K)) return {K, N};
  return {padded_row_length<__half>(K), padded_row_length<__half>(N)};
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
  pack_padded(A, M, K, copies, M, k_, stream);  // common/padding.cuh
  pack_padded(B, K, N, copies + a_halves, k_, ldb_, stream);
  a_ = copies;
  b_ = copies + a_halves;
}

}  // namespace gemm::warp_tiling
