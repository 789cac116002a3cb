// Chapter 05: tensor cores through WMMA, fp16 inputs and fp32 accumulation. Host-includable:
// declares the launchers and the error study only.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::tensor_core {

// Headline: one warp per 16 x 16 tile of C; fragments loaded straight from global memory where
// the tile is inside the matrices and the launcher found the pointers and N, K suitable, through a
// zero-padded shared-memory copy everywhere else.
void launch_wmma_direct(const __half* A, const __half* B, float* C, int M, int N, int K,
                        cudaStream_t stream);
// The same kernel with every tile taking the shared-memory copy: the cost of the extra copy.
void launch_wmma_staged_always(const __half* A, const __half* B, float* C, int M, int N, int K,
                               cudaStream_t stream);

// The first is the chapter's headline.
std::vector<Variant> variants();

// Registers, shared memory and occupancy of the kernel's two instantiations (GpuChapter::describe).
void print_resources();

// `05_tensor_core --error-study [--csv FILE] [--seed S]`: on the CPU, how much error rounding the
// inputs to fp16 adds, against what fp32 accumulation adds, as K grows (error_study.cpp). Returns
// the program's exit code.
int run_error_study(int argc, char** argv);

}  // namespace gemm::tensor_core
