// Device helpers that more than one chapter's epilogue uses (nvcc only, not host-includable).
#pragma once

#include <cuda_runtime.h>

namespace gemm {

// Stores (row, col .. col+3) of the row-major M x N matrix C, skipping what falls outside. With
// VEC and all four inside, one 16-byte store: the caller guarantees that the address is then
// 16-byte aligned (C aligned, N and col multiples of 4). Otherwise four guarded 4-byte stores.
template <bool VEC>
__device__ __forceinline__ void store4_guarded(float* __restrict__ C, int M, int N, int row,
                                               int col, float4 v) {
  if (row >= M) return;
  if (VEC && col + 3 < N) {
    *reinterpret_cast<float4*>(&C[row * N + col]) = v;  // KEY: one 128-bit store
    return;
  }
  if (col + 0 < N) C[row * N + col + 0] = v.x;
  if (col + 1 < N) C[row * N + col + 1] = v.y;
  if (col + 2 < N) C[row * N + col + 2] = v.z;
  if (col + 3 < N) C[row * N + col + 3] = v.w;
}

}  // namespace gemm
