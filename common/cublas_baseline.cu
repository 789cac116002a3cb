#include "common/cublas_baseline.cuh"

#include "common/cuda_check.cuh"

namespace gemm {

Cublas::Cublas() {
  CUBLAS_CHECK(cublasCreate(&handle_));
  CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
}

Cublas::~Cublas() { cublasDestroy(handle_); }

void Cublas::sgemm(const float* A, const float* B, float* C, int M, int N, int K,
                   cudaStream_t s) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle_, s));
  CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_32F, N,
                            A, CUDA_R_32F, K, &beta, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

void Cublas::gemm_f16(const __half* A, const __half* B, float* C, int M, int N, int K,
                      cudaStream_t s) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle_, s));
  CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16F, N,
                            A, CUDA_R_16F, K, &beta, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

}  // namespace gemm
