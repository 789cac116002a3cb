// =================================================================================================
// Chapter 07 - an experiment beside step 5 that the headline does not use:
// wgmma_persistent_tail_split, the last wave split by K (docs/notes/07_hopper.md, "What did not
// pay"). On an H100 it tied step 5 at 8192^3, lost at 6144^3, and won only where a part-filled
// last wave was a large share of a short run (2816 x 2048 x 8192).
//
// Where the cluster tiles are not a whole number of waves (8192^3: 1024 cluster tiles on 66
// clusters, 15.5 waves), the last wave leaves SMs idle. Where some number of slices finishes it
// sooner (tail_slices; at 4096^3 none does), its `tail_tiles` tiles are each cut into
// `tail_splits` slices of K, and the clusters share those pieces as they share whole
// tiles (round robin, slice-major: the clusters work on one or two slices of K at a time, so the
// rows of A and B they read are shared in L2 as a whole wave's are). 34 tiles in 3 slices: 102
// pieces on 66 clusters, 2 rounds of a third of a tile instead of 1 round of a whole one. Each
// piece's warps write their partial sums to `partials`, and the warp that arrives last on its
// counter (`arrivals`) adds them all up, in the order of the slices (the same bits whoever
// arrives last), and stores C.
//
// It runs step 5's kernel (wgmma_persistent.cuh; step 4's where C's rows do not start at 16-byte
// boundaries) with TailSplitUnits instead of SplitKUnits: the same pipeline, other units, and the
// pieces stored by the kernel's branch for them (kHasPieces).
// The launcher and the plan (how many slices) are in wgmma_persistent_tail_split.cu.
// =================================================================================================
#pragma once

#include <cstddef>

#include "07_hopper/wgmma_persistent.cuh"

namespace gemm::hopper {

// At most this many slices, of kTailMinSteps K steps or more on average (split-K's cut: the last
// slice may have fewer, 13 steps in 3 slices are 5, 5 and 3): more would spend more time writing
// and reading partial sums than the balance saves.
constexpr int kTailMaxSplits = 4, kTailMinSteps = 4;
// Floats of one consumer warp's partial sums of a BN-wide tile: 16 rows x BN columns.
constexpr int tail_warp_floats(int BN) {
  return 16 * BN;
}

// One piece of a tile of the last wave, slice `slice` of `splits`: this consumer warp's 16 x BN
// partial sums -> their place in the workspace, then one arrival on the warp's counter. The warp
// that arrives last reads every slice back from the workspace, its own included, adds them up in
// the order 0, 1, ..., splits - 1 into acc, and returns true: it stores the tile's rows. The
// partial sums keep the accumulators' own layout (lane l's float4 j at 32 j + l): every piece's
// warp holds the same elements of C in the same registers, so no index arithmetic, and each
// access is 512 contiguous bytes per warp (four 128-byte lines). `slot`: (tail tile, block of the
// cluster, consumer warp).
template <int BN>
__device__ __forceinline__ bool tail_fixup(float (&acc)[BN / 2], float* partials, int* arrivals,
                                           int slot, int slice, int splits) {
  constexpr int kVecs = BN / 8;  // float4s per thread
  const int lane = threadIdx.x % 32;
  float4* const slices =
      reinterpret_cast<float4*>(partials) + static_cast<size_t>(slot) * splits * kVecs * 32;
  auto part = [&](int s, int j) {  // slice s's float4 j of this lane
    return slices + (static_cast<size_t>(s) * kVecs + j) * 32 + lane;
  };
#pragma unroll
  for (int j = 0; j < kVecs; ++j)
    st_global_cg_v4(part(slice, j),
                    make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
  __threadfence();  // KEY: our sums are visible GPU-wide before the arrival that announces them
  __syncwarp();
  int before = 0;
  if (lane == 0) before = atomicAdd(arrivals + slot, 1);  // how many pieces arrived before us
  before = __shfl_sync(0xffffffffu, before, 0);
  if (before < splits - 1) return false;  // a later piece will finish the tile
  __threadfence();  // KEY: the other pieces' sums, announced before their arrivals, are visible
  // KEY: slice 0, then 1, 2, ... added in this order (ours read back too): the same bits whichever
  // piece arrives last.
#pragma unroll
  for (int j = 0; j < kVecs; ++j) {
    float4 sum = ld_global_cg_v4(part(0, j));
    for (int s = 1; s < splits; ++s) {
      const float4 v = ld_global_cg_v4(part(s, j));
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    acc[4 * j] = sum.x;
    acc[4 * j + 1] = sum.y;
    acc[4 * j + 2] = sum.z;
    acc[4 * j + 3] = sum.w;
  }
  return true;
}

// The units of the tail split, for the 128 x 256 tile in clusters of CLUSTER blocks: first the
// `whole_units` tiles of the full waves, each over all of K (as SplitKUnits without split-K); then
// `tail_tiles` x `tail_splits` pieces: piece q is slice q / tail_tiles of tail tile
// q % tail_tiles, round robin over the clusters as whole tiles are. (whole_units is a multiple of
// the clusters in the grid, so each cluster's first piece follows its last whole tile.)
// Without a split (tail_tiles = 0): every unit whole.
template <int CLUSTER>
struct TailSplitUnits {
  int whole_units, k_steps;
  int tail_tiles, tail_splits, tail_steps;  // tail_steps: K steps per slice (the last: fewer)
  float* C;
  float* partials;  // per (tail tile, block of the cluster, consumer warp, slice)
  int* arrivals;    // per (tail tile, block, consumer warp): 0 before the launch
  static constexpr bool kHasPieces = true;
  static constexpr int kConsumerWarps = 8;  // the 128 x 256 tile's
  __host__ __device__ int count() const { return whole_units + tail_tiles * tail_splits; }
  __device__ Unit at(int u) const {
    if (u < whole_units) return {u, 0, k_steps, 0};
    const int q = u - whole_units, slice = q / tail_tiles, first = slice * tail_steps;
    return {whole_units + q % tail_tiles, first, min(k_steps, first + tail_steps), slice};
  }
  __device__ float* output(const Unit&) const { return C; }
  __device__ bool is_piece(const Unit& unit) const { return unit.index >= whole_units; }
  // A piece's sums into the workspace; true for the warp that completes its tile (acc then holds
  // the tile's sums, and the kernel stores them from registers: the other warps of its warpgroup
  // may not be last, so no named barrier and no TMA store).
  // Written for the 128 x 256 tile: 128 accumulators per thread, one producer warpgroup before
  // 8 consumer warps.
  template <int ACCS>
  __device__ bool add_piece(float (&acc)[ACCS], const Unit& unit, int rank) const {
    static_assert(ACCS == kBN / 2, "the tail split is written for the 128 x 256 tile");
    const int warp = (threadIdx.x - 128) / 32;  // consumer warp 0 .. 7
    const int slot = ((unit.index - whole_units) * CLUSTER + rank) * kConsumerWarps + warp;
    return tail_fixup<kBN>(acc, partials, arrivals, slot, unit.slice, tail_splits);
  }
};

}  // namespace gemm::hopper
