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
#include "common/workspace.cuh"

namespace gemm {

// Number of SMs of the current GPU (cudaDevAttrMultiProcessorCount).
int current_sm_count();

// C = sum of the `splits` M x N slices of `partials` (slice s at partials + s x slice_floats),
// added in the order s = 0, 1, ...: deterministic.
void reduce_split_k(const float* partials, int splits, size_t slice_floats, float* C, int M, int N,
                    cudaStream_t stream);

// Where a launch with `splits` slices of K writes its sums. Without split-K (splits = 1): C itself.
// With it: a workspace of this call, on its stream (StreamWorkspace), holding one M x N slice per
// slice of K; reduce() then adds the slices into C in a fixed order. A kernel's slice s writes to
// data() + s x slice_floats(). Every split-K launcher of the chapters (04's tiling_2d_shape_aware,
// 06's mma_sync_pipelined, 07's wgmma_persistent) goes through it:
//   SplitKOutput out(C, M, N, splits, stream);
//   kernel<<<grid, threads, smem, stream>>>(..., out.data(), ..., out.slice_floats());
//   out.reduce(stream);
class SplitKOutput {
 public:
  SplitKOutput(float* C, int M, int N, int splits, cudaStream_t stream);
  float* data() const { return out_; }
  size_t slice_floats() const { return slice_floats_; }  // 0 without split-K
  void reduce(cudaStream_t stream) const;                // after the kernel; nothing if splits = 1

 private:
  float* C_;
  int M_, N_, splits_;
  size_t slice_floats_ = 0;
  StreamWorkspace partials_;  // KEY: split-K's workspace belongs to this call and this stream
  float* out_;
};

}  // namespace gemm
