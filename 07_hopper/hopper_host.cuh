// Chapter 07: what the launchers of its kernels share on the host (the chapter's own interface is
// hopper.cuh). Host-includable. README.md explains the kernels; hopper_ptx.cuh
// their instructions.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include <cuda.h>  // CUtensorMap and its enums (types only: the driver library is not linked)

#include "06_warp_tiling/packing.cuh"  // AlignedOperands: chapter 06's packed copies, reused
#include "common/cuda_check.cuh"
#include "common/split_k.cuh"  // current_sm_count

namespace gemm::hopper {

using warp_tiling::aligned_row_lengths;
using warp_tiling::AlignedOperands;
using warp_tiling::RowLengths;

// The tiles of every kernel of the chapter, chosen once here (README.md, "The tiles"):
//   block tile 128 x 256, a K step of 64 halves (128 bytes: one row of the 128-byte swizzle);
//   A arrives as two TMA boxes of 64 (k) x 64 (rows), B as four boxes of 64 (columns) x 64 (k),
//   since a 128-byte-swizzled box is at most 128 bytes wide. (A's boxes could be 128 rows; 64
//   lets wgmma_persistent's 64 x 128 tile use the same tensor map.)
constexpr int kBM = 128, kBN = 256, kBK = 64;
constexpr int kBoxM = 64;  // rows of A per TMA box
constexpr int kBoxN = 64;  // columns of B per TMA box
// Step 4: blocks per cluster, stacked along M; each fetches 1 / kClusterBlocks of B's boxes for
// all.
constexpr int kClusterBlocks = 2;

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

// Each kernel allowed its dynamic shared memory (above 48 KiB a kernel must ask first): once per
// GPU, in each launcher's ready(), through PerDevice (common/per_device.cuh), where runs_here().
struct KernelSmem {
  template <class... Params>
  KernelSmem(void (*k)(Params...), int b) : kernel(reinterpret_cast<const void*>(k)), bytes(b) {}
  const void* kernel;
  int bytes;
};
void allow_shared_memory(std::initializer_list<KernelSmem> kernels);

// Cluster tiles of a launch: CLUSTER block tiles of BM x BN stacked along M make one.
inline int cluster_tiles(int M, int N, int bm, int bn, int cluster) {
  return ((M + bm - 1) / bm + cluster - 1) / cluster * ((N + bn - 1) / bn);
}

// Notes (Variant::runs_instead) that two launchers give.
inline const char* kNoteNoClusters = "ran 128x256 without clusters: no 2 SMs of one GPC free";
inline const char* kNoteCFromRegisters =
    "C stored from registers: its rows do not start at 16-byte boundaries";

// Steps 4 and 5 (and the tail split) launch in clusters of `cluster` blocks along x, through
// cudaLaunchKernelEx: <<<>>> has no place for a cluster size. The launch's configuration:
// `blocks` blocks of `threads` threads, `smem` bytes of dynamic shared memory each.
struct ClusterConfig {
  cudaLaunchAttribute attribute;
  cudaLaunchConfig_t config;
  ClusterConfig(int blocks, int cluster, int threads, int smem, cudaStream_t stream);
  ClusterConfig(const ClusterConfig&) = delete;  // config points at attribute
};

// `clusters` clusters of `kernel`.
template <class... Params, class... Args>
void launch_in_clusters(void (*kernel)(Params...), int clusters, int cluster, int threads, int smem,
                        cudaStream_t stream, Args&&... args) {
  const ClusterConfig launch(clusters * cluster, cluster, threads, smem, stream);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, std::forward<Args>(args)...));
}

// How many clusters of `cluster` blocks of `kernel` (`threads` threads, `smem` bytes each) the
// current GPU runs at once. One block per SM, and the blocks of a cluster on SMs of the same GPC,
// so an SM left alone in its GPC gets none (an H100 SXM: 66 clusters of 2 on 132 SMs, if each GPC
// has an even count). The query is not a stream operation; CUDA 13.0 answers it even while a
// stream is being captured in the global mode (checked on an H100).
template <class... Params>
int max_active_clusters(void (*kernel)(Params...), int cluster, int threads, int smem) {
  const ClusterConfig launch(cluster * current_sm_count(), cluster, threads, smem, nullptr);
  int clusters = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config));
  return clusters;
}

}  // namespace gemm::hopper
