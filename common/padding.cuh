// Zero-padded copies of a matrix, for kernels that read rows in 16-byte pieces (host-includable).
//
// A 16-byte load (float4, or 8 halves) must start at a multiple of 16 bytes. A kernel that reads
// every row of a matrix that way therefore needs each row to start on such a boundary: the base
// pointer aligned, and the row length a multiple of 16 bytes (4 floats, 8 halves). For any other
// shape or pointer (4093^3, a pointer A + 1) the launchers of chapters 04 and 06 do what BLAS
// libraries do: they copy the operands into zero-padded matrices whose rows are rounded up, and run
// the fast kernel on those. The zeros add nothing to a dot product (padding along K) and only make
// columns of C that are never kept (padding along N). The copies belong to the call
// (StreamWorkspace, common/workspace.cuh).
#pragma once

#include <cuda_runtime.h>

namespace gemm {

// The number of elements of type T in 16 bytes: a padded row length is a multiple of it.
template <class T>
constexpr int kElemsPer16Bytes = 16 / static_cast<int>(sizeof(T));

// A row of `cols` elements of T rounded up to whole 16-byte pieces: the row length of a padded
// copy (4093 floats -> 4096, 4093 halves -> 4096, 4100 halves -> 4104).
template <class T>
constexpr int padded_row_length(int cols) {
  return (cols + kElemsPer16Bytes<T> - 1) / kElemsPer16Bytes<T> * kElemsPer16Bytes<T>;
}

// Does a rows x cols matrix have fewer than 2^31 elements, so that a kernel may compute
// row * cols + col in a 32-bit int? Every matrix a caller passes does (common/gemm.cuh), but a
// padded copy can be larger: 46339 x 46341 floats is 2,147,395,599 elements, its copy with rows of
// 46344 is 2,147,534,616, past 2^31 - 1 = 2,147,483,647. A launcher whose kernel indexes in int
// makes such a copy only where this holds (docs/library_use.md, "Sizes").
constexpr bool int_indexable(int rows, int cols) {
  return static_cast<long long>(rows) * cols <= 2147483647LL;
}

// Copies the rows x cols row-major matrix `src` (any alignment) into `dst`, a rows_p x cols_p
// row-major matrix (rows_p >= rows, cols_p >= cols, cols_p a multiple of kElemsPer16Bytes<T>,
// dst 16-byte aligned), with zeros everywhere outside the copy. One pass: src read once, dst
// written once, on `stream`. Instantiated for float (chapter 04) and __half (chapter 06).
template <class T>
void pack_padded(const T* src, int rows, int cols, T* dst, int rows_p, int cols_p,
                 cudaStream_t stream);

}  // namespace gemm
