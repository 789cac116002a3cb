// Chapter 03: each thread computes TM elements of a column of C. Host-includable: declares the
// launchers only.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::thread_tiling {

// Headline: TM = 8 outputs per thread; block tile BM x BN = 64 x 64, K-step BK = 16, 512 threads.
void launch_tm8(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream);
// The TM sweep, everything else the same except BM = 8 * TM (so the block keeps 512 threads):
// TM = 4 (BM = 32) ...
void launch_tm4(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream);
// ... and TM = 16 (BM = 128).
void launch_tm16(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream);

std::vector<Variant> variants();

// Prints, for each variant, what the compiler gave each thread (registers, spilled bytes) and each
// block (shared memory), and how many blocks fit on one SM of the current GPU (CUDA occupancy API).
// Used as GpuChapter::describe.
void print_resources();

}  // namespace gemm::thread_tiling
