// Loud, local error checks. Every CUDA and cuBLAS call in this repository goes through one of
// these; every kernel launch is followed by GEMM_LAUNCH_CHECK(). On failure they print the
// expression, file, line and error string, and exit with kExitCudaError: such an error is a bug,
// not a user mistake (user mistakes are caught earlier, with one clear sentence).
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "common/exit_codes.hpp"

#define CUDA_CHECK(expr)                                                                 \
  do {                                                                                   \
    cudaError_t gemm_err_ = (expr);                                                      \
    if (gemm_err_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "CUDA error: %s\n  in %s at %s:%d\n",                         \
                   cudaGetErrorString(gemm_err_), #expr, __FILE__, __LINE__);            \
      std::exit(gemm::kExitCudaError);                                                   \
    }                                                                                    \
  } while (0)

#define CUBLAS_CHECK(expr)                                                               \
  do {                                                                                   \
    cublasStatus_t gemm_st_ = (expr);                                                    \
    if (gemm_st_ != CUBLAS_STATUS_SUCCESS) {                                             \
      std::fprintf(stderr, "cuBLAS error: %s\n  in %s at %s:%d\n",                       \
                   cublasGetStatusString(gemm_st_), #expr, __FILE__, __LINE__);          \
      std::exit(gemm::kExitCudaError);                                                   \
    }                                                                                    \
  } while (0)

// After every <<<...>>>: catches a bad launch configuration at once (too many threads, too much
// shared memory). Errors inside the kernel surface at the next synchronizing call's CUDA_CHECK.
#define GEMM_LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())
