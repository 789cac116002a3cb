// The kernel interface every GPU chapter implements (stable: tests, benchmarks and later chapters
// rely on it).
//
//   C = A x B, all row-major: A is M x K, B is K x N, C is M x N. Device pointers, no alignment
//   promised (a kernel that wants 16-byte loads must check and fall back). Any M, N, K from 1 to
//   2^18 (chapter 01's grids put M / 8 or N / 8 blocks in gridDim.y, at most 65,535) with each of
//   A, B and C under 2^31 elements (the command line's limits, common/cli.hpp), so that a kernel
//   may index them with 32-bit ints; a copy a launcher makes (padding, split-K partial sums) may be
//   larger, and is then indexed in 64 bits or not made (docs/library_use.md, "Sizes").
//   Stream-ordered: a launcher queues its work on `stream` and returns; it never synchronizes, and
//   it may be captured into a CUDA graph (docs/library_use.md, "CUDA graphs").
//
// Each GPU chapter declares, in its host-includable header NN_name/<name>.cuh,
//   namespace gemm::<name> { std::vector<gemm::Variant> variants(); }
// and the first entry is the chapter's headline kernel. Chapters 01-04 fill `f32`; chapters 05-07
// take fp16 A and B and write fp32 C, and fill `f16`.
#pragma once

#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace gemm {

using LaunchF32 = void (*)(const float* A, const float* B, float* C, int M, int N, int K,
                           cudaStream_t stream);
using LaunchF16 = void (*)(const __half* A, const __half* B, float* C, int M, int N, int K,
                           cudaStream_t stream);

// When a launcher runs another kernel than the one its name promises (a GPU too old for it, a build
// without its architecture, a shape its fast path cannot take), it says so: a note such as
// "ran wmma_vec_loads: needs sm_80", which the results table and the CSV print beside the name.
// Returns "" when the variant runs as named. A, B, C: the launcher's pointers (alignment matters).
using RunsInstead = std::string (*)(const void* A, const void* B, const float* C, int M, int N,
                                    int K);

struct Variant {
  std::string name;
  LaunchF32 f32 = nullptr;
  LaunchF16 f16 = nullptr;
  std::string summary;
  RunsInstead runs_instead = nullptr;  // optional; nullptr: always runs as named
};

// Ceiling division, for grid sizes: the number of tiles of size `tile` that cover `n`.
constexpr int ceil_div(int n, int tile) { return (n + tile - 1) / tile; }

}  // namespace gemm
