// Chapter 05: tensor cores through WMMA, fp16 inputs and fp32 accumulation. Host-includable:
// declares the launchers and the error study only.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::tensor_core {

// The launch configuration, chosen here once (in the header, not in tensor_core.cu, so that
// scripts/docs/diagram_constants.cu draws the chapter's pictures from it).
// The fragment shape. For fp16 inputs with an fp32 accumulator WMMA offers 16 x 16 x 16 (and the
// 32 x 8 x 16, 8 x 32 x 16 variants); we use the square one. In this chapter the warp tile is one
// fragment: WM = WMMA_M, WN = WMMA_N (chapter 06 makes it larger).
constexpr int WMMA_M = 16;
constexpr int WMMA_N = 16;
constexpr int WMMA_K = 16;
// 2 x 2 warps per block. Neighbouring warps read the same tiles of A (a block row) or of B (a
// block column) at about the same time, so the second read is likely to hit L1: per k step the
// block reads 2 tiles of A and 2 of B for 4 mma_sync, where 1 x 4 warps would read 1 + 4.
constexpr int kWarpsM = 2;
constexpr int kWarpsN = 2;

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
