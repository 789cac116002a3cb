// Chapter 03: each thread computes TM elements of a column of C. Host-includable: declares the
// launchers only.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::thread_tiling {

// The tiles of the TM sweep, chosen in this one place (here, not in thread_tiling.cu, so that
// scripts/docs/diagram_constants.cu draws the chapter's pictures from them). BN and BK are the same
// for every variant; BM = 8 * TM keeps (BM / TM) * BN = 512 threads per block. BK = 16 is the
// smallest K-step for which every TM in the sweep divides the tile loads evenly: each thread loads
// BK * TM / BN elements of A and BK * TM / BM = 2 of B per phase (BK = 8 would give TM = 4 half an
// element).
template <int TM>
struct TileSizes {
  static constexpr int BM = 8 * TM;
  static constexpr int BN = 64;
  static constexpr int BK = 16;
  static constexpr int kThreads = (BM / TM) * BN;
};
constexpr int kHeadlineTM = 8;  // thread_tiling_tm8

// Headline: TM = 8 outputs per thread; block tile BM x BN = 64 x 64, K-step BK = 16, 512 threads.
void launch_tm8(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream);
// The TM sweep, everything else the same except BM = 8 * TM (so the block keeps 512 threads):
// TM = 4 (BM = 32) ...
void launch_tm4(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream);
// ... and TM = 16 (BM = 128).
void launch_tm16(const float* A, const float* B, float* C, int M, int N, int K,
                 cudaStream_t stream);

std::vector<Variant> variants();

// Prints, for each variant, what the compiler gave each thread (registers, local memory: spills or
// an array kept out of registers) and each block (shared memory), and how many blocks fit on one
// SM of the current GPU (CUDA occupancy API).
// Used as GpuChapter::describe.
void print_resources();

}  // namespace gemm::thread_tiling
