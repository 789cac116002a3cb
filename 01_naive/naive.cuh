// Chapter 01: one thread per element of C. Host-includable: declares the launchers only.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::naive {

// Threads per block: 32 along x, so that one warp is exactly one run of 32 consecutive threadIdx.x.
// (Here, not in naive.cu, so that scripts/docs/diagram_constants.cu draws the chapter's pictures
// from them.)
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// Headline: threadIdx.x walks along a row of C (coalesced loads of B and stores of C).
void launch_coalesced(const float* A, const float* B, float* C, int M, int N, int K,
                      cudaStream_t stream);
// threadIdx.x walks down a column of C: the same arithmetic, uncoalesced memory accesses.
void launch_uncoalesced(const float* A, const float* B, float* C, int M, int N, int K,
                        cudaStream_t stream);
// Coalesced, but the running sum lives in C (global memory) instead of a register.
void launch_global_accumulate(const float* A, const float* B, float* C, int M, int N, int K,
                              cudaStream_t stream);

std::vector<Variant> variants();

// Registers, shared memory and occupancy of each kernel on this GPU (GpuChapter::describe).
void print_resources();

}  // namespace gemm::naive
