// The cuBLAS baseline, called with our row-major convention. cuBLAS is column-major; a row-major
// M x N matrix is the same bytes as a column-major N x M matrix (its transpose). So we ask cuBLAS
// for C^T = B^T A^T: an N x M result from B (N x K, column-major) and A (K x M, column-major).
#pragma once

#include <cublas_v2.h>
#include <cuda_fp16.h>

namespace gemm {

class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  // fp32 in, fp32 compute, fp32 out, on the FP32 units: TF32 tensor cores are NOT allowed
  // (CUBLAS_COMPUTE_32F, not _FAST_TF32), so this is the SGEMM our fp32 chapters compete with.
  void sgemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t s);
  // fp16 in, fp32 accumulate, fp32 out (tensor cores): the baseline of the fp16 chapters.
  void gemm_f16(const __half* A, const __half* B, float* C, int M, int N, int K, cudaStream_t s);

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace gemm
