// Chapter 07: what the launchers of wgmma_tma.cu and wgmma_ws.cu share on the host (the chapter's
// own interface is hopper.cuh). Host-includable. README.md explains the kernels; hopper_ptx.cuh
// their instructions.
#pragma once

#include <string>

#include <cuda.h>  // CUtensorMap and its enums (types only: the driver library is not linked)

#include "06_warp_tiling/packing.cuh"  // AlignedOperands: chapter 06's packed copies, reused

namespace gemm::hopper {

using warp_tiling::AlignedOperands;
using warp_tiling::aligned_row_lengths;
using warp_tiling::RowLengths;

// The tiles of every kernel of the chapter, chosen once here (README.md, "The tiles"):
//   block tile 128 x 256, a K step of 64 halves (128 bytes: one row of the 128-byte swizzle);
//   A arrives as two TMA boxes of 64 (k) x 64 (rows), B as four boxes of 64 (columns) x 64 (k),
//   since a 128-byte-swizzled box is at most 128 bytes wide. (A's boxes could be 128 rows; 64
//   lets wgmma_persistent's 64 x 128 tile use the same tensor map.)
constexpr int kBM = 128, kBN = 256, kBK = 64;
constexpr int kBoxM = 64;  // rows of A per TMA box
constexpr int kBoxN = 64;  // columns of B per TMA box
// Step 4: blocks per cluster, stacked along M; each fetches 1 / kClusterBlocks of B's boxes for all.
constexpr int kClusterBlocks = 2;

// An experiment beside step 5, which the headline does not use (wgmma_persistent_tail_split;
// docs/notes/07_hopper.md, "What did not pay"): the last wave split by K. Where the cluster tiles
// are not a whole number of waves (8192^3: 1024 cluster tiles on 66 clusters, 15.5 waves), the
// last wave leaves SMs idle. Instead, its `tail_tiles` tiles are each cut into `tail_splits` slices of K,
// and the clusters share those pieces as they share whole tiles (round robin, slice-major: the
// clusters work on one or two slices of K at a time, so the rows of A and B they read are shared
// in L2 as a whole wave's are). 34 tiles in 3 slices: 102 pieces on 66 clusters, 2 rounds of a
// third of a tile instead of 1 round of a whole one. Each piece's warps write their partial sums
// to `partials`, and the warp that arrives last on its counter (`arrivals`) adds them all up, in
// the order of the slices (the same bits whoever arrives last), and stores C.
// Without it: tail_tiles = 0, every unit whole.
struct TailSplit {
  int whole_units;  // units computed whole, the full waves (all of them without a split)
  int tail_tiles, tail_splits, tail_steps;  // tail_steps: K steps per slice (the last: fewer)
  float* partials;  // per (tail tile, block of the cluster, consumer warp, slice)
  int* arrivals;    // per (tail tile, block, consumer warp): 0 before the launch
};
// Floats of one consumer warp's partial sums of a BN-wide tile: 16 rows x BN columns.
constexpr int tail_warp_floats(int BN) { return 16 * BN; }
// At most this many slices, each of at least kTailMinSteps K steps: more would spend more time
// writing and reading partial sums than the balance saves.
constexpr int kTailMaxSplits = 4, kTailMinSteps = 4;

// Can this process run the chapter's kernels? Three conditions: they were compiled for sm_90a
// (the build's architecture list had 90), the GPU has compute capability 9.0 (sm_90a code runs
// there and nowhere else), and the driver provides cuTensorMapEncodeTiled. Asked for the current
// GPU (each GPU of a machine may answer differently: device_cc keeps one answer per GPU); false
// without a GPU.
bool runs_here();

// When !runs_here(): why, in a few words, for the results table ("needs sm_90a (Hopper)").
std::string why_not();

// The note of every variant (Variant::runs_instead): "" where the kernel runs; elsewhere what the
// launcher ran instead, chapter 06's mma_sync_pipelined, with the tile it chose ("ran
// mma_sync_pipelined 128x256: needs sm_90a (Hopper)"), or what that ran instead in turn (sm_75).
std::string runs_instead(const void* A, const void* B, const float* C, int M, int N, int K);

// The tensor maps of A (M x k) and B (k x N, rows of ldb) as the kernels read them: 128-byte
// swizzle, zeros outside the matrices. They describe `ops`, the original or packed operands.
struct TensorMaps {
  CUtensorMap a, b;
};
TensorMaps make_tensor_maps(const AlignedOperands& ops, int M, int N);

// Step 5 stores C by TMA, from shared memory, in boxes of 64 rows x 32 floats (128 bytes: one row
// of the 128-byte swizzle). TMA needs C's address and row length in multiples of 16 bytes; where
// they are not, the launcher stores from registers as before.
constexpr int kBoxCRows = 64, kBoxCCols = 32;
bool tma_stores_ok(const float* C, int N);
// C (M x N fp32, row-major) as a tensor map for those stores; nothing is written outside it.
CUtensorMap c_tensor_map(float* C, int M, int N);

}  // namespace gemm::hopper
