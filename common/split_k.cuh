// Split-K's deterministic reduction, and the SM count that launch plans need (host-includable).
// common/waves.hpp chooses the plan; docs/tile_size_tradeoffs.md, "Waves", is the lesson behind it.
//
// Split-K cuts K into `splits` slices, one block per (tile, slice); each block writes its partial
// sums to a workspace of the call (StreamWorkspace, common/workspace.cuh), and reduce_split_k adds
// the slices up in a fixed order: the same bits on every run, unlike atomicAdd, whose order of
// additions depends on timing.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "common/waves.hpp"

namespace gemm {

// Number of SMs of the current GPU (cudaDevAttrMultiProcessorCount).
int current_sm_count();

// C = sum of the `splits` M x N slices of `partials` (slice s at partials + s x slice_floats),
// added in the order s = 0, 1, ...: deterministic.
void reduce_split_k(const float* partials, int splits, size_t slice_floats, float* C, int M, int N,
                    cudaStream_t stream);

}  // namespace gemm
