// Packing, for the kernels that copy A and B in 16-byte pieces (mma_sync_ptx's and
// mma_sync_pipelined's cp.async here, and the TMA of chapter 07's kernels, which reuse it).
// Host-includable.
//
// Such a copy needs every row of A and B to start at a 16-byte boundary: K and N multiples of 8
// halves, and A and B themselves 16-byte aligned. For any other shape (4093^3, K = 4100, a
// pointer A + 1) the launcher does what BLAS libraries do: it packs A and B into zero-padded
// copies whose rows are rounded up to a multiple of 8 halves, and runs the same kernel on them.
// The padding adds zero terms to every dot product (K) and columns of C that are never stored (N).
//
// The copies belong to one call: they are allocated on the call's stream, from a memory pool,
// and freed on the same stream after the kernel (common/workspace.cuh, StreamWorkspace). Two
// calls on two streams at the same time therefore never share a buffer. (A buffer kept between
// calls, as this chapter once had, corrupted both results when two problems ran at once on two
// streams: the second call's packing overwrote the first call's operands while its kernel read
// them.)
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "common/workspace.cuh"

namespace gemm::warp_tiling {

// May a kernel read A (M x K) and B (K x N) in 16-byte pieces as they are? (vec8_ok, in
// tile_helpers.cuh, adds C for the kernels that also store it in 16-byte pieces.)
bool rows_are_16_byte_aligned(const __half* A, const __half* B, int N, int K);

// The rows of A and B, in halves, as AlignedOperands hands them to a kernel: K and N when
// rows_are_16_byte_aligned, else both rounded up to multiples of 8 (the packed copies). A
// launcher's note uses it to plan with the rows its launch will see, without packing anything.
struct RowLengths {
  int k, ldb;
};
RowLengths aligned_row_lengths(const __half* A, const __half* B, int N, int K);

// A and B as a 16-byte kernel may read them: the originals when rows_are_16_byte_aligned, else
// packed copies (K and N rounded up to multiples of 8). Use: construct before the launch, launch
// the kernel on `stream` with a(), b(), k() and ldb(), and let it go out of scope after the
// launch: the destructor frees the copies in stream order, after the kernel has read them.
class AlignedOperands {
 public:
  AlignedOperands(const __half* A, const __half* B, int M, int N, int K, cudaStream_t stream);
  AlignedOperands(const AlignedOperands&) = delete;
  AlignedOperands& operator=(const AlignedOperands&) = delete;

  const __half* a() const { return a_; }  // M x k(), rows of k() halves
  const __half* b() const { return b_; }  // k() x N, rows of ldb() halves (columns past N are 0)
  int k() const { return k_; }            // K, or K rounded up to a multiple of 8
  int ldb() const { return ldb_; }        // N, or N rounded up to a multiple of 8

 private:
  const __half* a_;
  const __half* b_;
  int k_, ldb_;
  StreamWorkspace copies_;  // both packed copies, in one allocation; empty when not packed
};

}  // namespace gemm::warp_tiling
