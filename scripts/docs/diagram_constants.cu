// diagram_constants: prints, as JSON, every kernel constant that the teaching diagrams draw (tile
// sizes, threads, stages, padding, fragment shapes, the tile maps, the swizzle and ldmatrix
// tables), taken from the chapters' own headers, so that a picture cannot drift from its kernel.
//
//   cmake --build build --target diagram_constants
//   ./build/bin/diagram_constants build/diagram_constants.json
//   python3 scripts/docs/diagrams --constants build/diagram_constants.json   (draws every diagram)
//
// It only prints constexpr values and calls __host__ functions: it runs on any machine, no GPU
// needed. The ctest diagrams_match_kernels (label cpu) runs it and `scripts/docs/diagrams --check`,
// which fails when these values differ from the ones the committed diagrams were drawn from
// (docs/figures/diagrams/inputs.json): change a kernel constant, and the test says which diagrams
// to redraw.
#include <cstdio>
#include <string>
#include <utility>

#include "00_cpu_reference/cpu_gemm.hpp"
#include "01_naive/naive.cuh"
#include "02_shared_tiling/shared_tiling.cuh"
#include "03_thread_tiling/thread_tiling.cuh"
#include "04_2d_tiling/tiling_2d.cuh"
#include "04_2d_tiling/warp_tile.cuh"
#include "05_tensor_core/tensor_core.cuh"
#include "06_warp_tiling/mma_tiles.cuh"
#include "06_warp_tiling/tile_helpers.cuh"
#include "06_warp_tiling/warp_tiling.cuh"
// The Hopper kernels' constants (hopper_host.cuh, hopper_tiles.cuh, the tail split's header): these
// includes and the alias under them are the only lines that name the Hopper chapter's folder and
// namespace.
#include "07_hopper/hopper_tiles.cuh"
#include "07_hopper/wgmma_persistent_tail_split.cuh"
namespace hopper_chapter = gemm::hopper;

namespace {

// Facts of the hardware, not of a kernel: every NVIDIA GPU since Maxwell has 32 banks of 4 bytes
// (CUDA C++ Programming Guide, "Shared Memory"), warps of 32 threads, serves global memory in
// 32-byte sectors (01_naive/README.md, "Coalescing"), and (sm_90) has warpgroups of 4 warps.
constexpr int kBanks = 32;
constexpr int kBankBytes = 4;
constexpr int kWarp = 32;
constexpr int kSectorBytes = 32;
constexpr int kWarpgroupThreads = 128;
// What an SM of the reference GPU (compute capability 9.0) holds besides its registers and shared
// memory (machine.csv has those): threads and blocks at once, the shared memory the runtime keeps
// per block, and the register allocation unit per thread (256 per warp). CUDA C++ Programming
// Guide, "Compute Capabilities"; docs/tile_size_tradeoffs.md, section 1. scripts/docs/diagrams
// checks its sums against the occupancy API's blocks per SM in resources.csv.
constexpr int kMaxThreadsPerSm = 2048;
constexpr int kMaxBlocksPerSm = 32;
constexpr int kSharedReservedPerBlock = 1024;
constexpr int kRegisterUnitPerThread = 8;

// A tiny JSON writer: objects of ints and of lists of ints, enough for this file.
class Json {
 public:
  void open(const char* key) {
    item(key);
    out_ += "{";
    first_ = true;
  }
  void close() {
    out_ += "}";
    first_ = false;
  }
  void value(const char* key, long v) {
    item(key);
    out_ += std::to_string(v);
  }
  template <class F>
  void list(const char* key, int n, F f) {  // [f(0), f(1), ...]
    item(key);
    out_ += "[";
    for (int i = 0; i < n; ++i) out_ += (i ? ", " : "") + std::to_string(f(i));
    out_ += "]";
  }
  template <class F>
  void table(const char* key, int rows, int cols, F f) {  // [[f(0, 0), ...], ...]
    item(key);
    out_ += "[";
    for (int r = 0; r < rows; ++r) {
      out_ += r ? ",\n    [" : "\n    [";
      for (int c = 0; c < cols; ++c) out_ += (c ? ", " : "") + std::to_string(f(r, c));
      out_ += "]";
    }
    out_ += "]";
  }
  const std::string& text() const { return out_; }

 private:
  void item(const char* key) {
    out_ += first_ ? "\n  \"" : ",\n  \"";
    out_ += key;
    out_ += "\": ";
    first_ = false;
  }
  std::string out_ = "{";
  bool first_ = true;
};

// SharedLayout<S>::kBytes of the Hopper 128 x 256 tile for S = 1 .. N: the shared memory of each
// pipeline depth, from which scripts/docs/diagrams finds the depth the kernel was run with
// (resources.csv lists each kernel's shared memory; the depth itself is chosen inside
// wgmma_persistent.cu).
template <int... S>
void hopper_layout_bytes(Json& j, std::integer_sequence<int, S...>) {
  const long bytes[] = {hopper_chapter::SharedLayout<S + 1>::kBytes...};
  j.list("smem_bytes_by_stages", sizeof...(S), [&](int i) { return bytes[i]; });
  // The same with step 5's C staging buffers (one per consumer warpgroup).
  const long staged[] = {hopper_chapter::SharedLayout<S + 1>::kBytesWithStaging...};
  j.list("smem_bytes_with_staging_by_stages", sizeof...(S), [&](int i) { return staged[i]; });
}

}  // namespace

int main(int argc, char** argv) {
  Json j;
  j.open("hardware");
  j.value("banks", kBanks);
  j.value("bank_bytes", kBankBytes);
  j.value("warp", kWarp);
  j.value("sector_bytes", kSectorBytes);
  j.value("warpgroup_threads", kWarpgroupThreads);
  j.value("max_threads_per_sm", kMaxThreadsPerSm);
  j.value("max_blocks_per_sm", kMaxBlocksPerSm);
  j.value("shared_reserved_per_block", kSharedReservedPerBlock);
  j.value("register_unit_per_thread", kRegisterUnitPerThread);
  j.close();

  j.open("00_cpu_reference");
  j.value("BM", gemm::cpu::kBlockM);
  j.value("BN", gemm::cpu::kBlockN);
  j.value("BK", gemm::cpu::kBlockK);
  j.value("cache_line_bytes", gemm::cpu::kCacheLineBytes);
  j.close();

  j.open("01_naive");
  j.value("block_x", gemm::naive::kBlockX);
  j.value("block_y", gemm::naive::kBlockY);
  j.close();

  j.open("02_shared_tiling");
  j.value("tile", gemm::shared_tiling::kHeadlineTile);
  j.close();

  {
    using T = gemm::thread_tiling::TileSizes<gemm::thread_tiling::kHeadlineTM>;
    j.open("03_thread_tiling");
    j.value("BM", T::BM);
    j.value("BN", T::BN);
    j.value("BK", T::BK);
    j.value("TM", gemm::thread_tiling::kHeadlineTM);
    j.value("threads", T::kThreads);
    j.close();
  }

  {
    namespace k13 = gemm::tiling_2d::kernels_1_3;
    namespace k45 = gemm::tiling_2d::kernels_4_5;
    using W = gemm::tiling_2d::WarpTile<k45::kBM, k45::kBN, k45::kWM, k45::kWN, k45::kTM, k45::kTN>;
    j.open("04_2d_tiling");
    j.value("TM", k13::kTM);
    j.value("TN", k13::kTN);
    // Kernels 1-3's block tile and the padding of kernel 3's transposed As (sections 2-3), and
    // the bytes of load4_or_zero's float4, which must start at a multiple of as many bytes.
    j.value("BM_1_3", k13::kBM);
    j.value("BN_1_3", k13::kBN);
    j.value("BK_1_3", k13::kBK);
    j.value("PAD_1_3", k13::kPad);
    j.value("float4_bytes", sizeof(float4));
    j.value("BM", k45::kBM);
    j.value("BN", k45::kBN);
    j.value("BK", k45::kBKDouble);
    j.value("WM", k45::kWM);
    j.value("WN", k45::kWN);
    j.value("warp_TM", k45::kTM);
    j.value("warp_TN", k45::kTN);
    j.value("warps_m", W::kWarpsM);
    j.value("warps_n", W::kWarpsN);
    j.value("threads", W::kThreads);
    j.value("stride_m", W::kStrideM);
    j.value("stride_n", W::kStrideN);
    j.value("lanes_m", W::kLanesM);
    j.value("lanes_n", W::kLanesN);
    j.close();
  }

  {
    namespace tc = gemm::tensor_core;
    j.open("05_tensor_core");
    j.value("wmma_m", tc::WMMA_M);
    j.value("wmma_n", tc::WMMA_N);
    j.value("wmma_k", tc::WMMA_K);
    j.value("warps_m", tc::kWarpsM);
    j.value("warps_n", tc::kWarpsN);
    j.close();
  }

  {
    namespace wt = gemm::warp_tiling;
    using Warps = wt::WarpGrid<wt::kBM, wt::kBN, wt::kWM, wt::kWN>;
    using Mma = wt::MmaWarpTile<wt::kBM, wt::kBN, wt::kBK, wt::kWM, wt::kWN>;
    using SwA = Mma::ALayout;
    using SwB = Mma::BLayout;
    j.open("06_warp_tiling");
    j.value("BM", wt::kBM);
    j.value("BN", wt::kBN);
    j.value("BK", wt::kBK);
    j.value("WM", wt::kWM);
    j.value("WN", wt::kWN);
    j.value("frag", wt::kFrag);
    j.value("PAD", wt::kPad);
    j.value("warps_m", Warps::kWarpsM);
    j.value("warps_n", Warps::kWarpsN);
    j.value("threads", wt::kThreads);
    j.value("cp_async_stages", wt::kCpAsyncStages);
    j.value("mma_m", wt::kMmaM);
    j.value("mma_n", wt::kMmaN);
    j.value("mma_k", wt::kMmaK);
    // Byte offsets of the first element of rows 0-7 of each shared layout of the WMMA kernels
    // (kernel 1: unpadded, kernel 2: + PAD), the 8 rows one ldmatrix 8x8 matrix reads.
    constexpr int kHalf = 2;
    j.list("a_row_bytes", 8, [](int r) { return kHalf * wt::Padded<wt::kBK>::offset(r, 0); });
    j.list("a_row_bytes_padded", 8,
           [](int r) { return kHalf * wt::Padded<wt::kBK + wt::kPad>::offset(r, 0); });
    j.list("b_row_bytes", 8, [](int r) { return kHalf * wt::Padded<wt::kBN>::offset(r, 0); });
    j.list("b_row_bytes_padded", 8,
           [](int r) { return kHalf * wt::Padded<wt::kBN + wt::kPad>::offset(r, 0); });
    // Step 3's tile maps (tile_helpers.cuh): what lane l of warp 0 loads with its first load
    // instruction (p = 0), as a row and a column (in halves) of the tile: one half (ElementMap,
    // kernels 1-2) or the first half of a 16-byte chunk of 8 (ChunkMap, kernels 3-4); and how
    // many loads each thread issues per tile.
    {
      using AElems = wt::ElementMap<wt::kBM, wt::kBK, wt::kThreads>;
      using BElems = wt::ElementMap<wt::kBK, wt::kBN, wt::kThreads>;
      using AChunks = wt::ChunkMap<wt::kBM, wt::kBK, wt::kThreads>;
      using BChunks = wt::ChunkMap<wt::kBK, wt::kBN, wt::kThreads>;
      j.list("a_element_row", kWarp, [](int l) { return AElems::row(l, 0); });
      j.list("a_element_col", kWarp, [](int l) { return AElems::col(l, 0); });
      j.list("b_element_row", kWarp, [](int l) { return BElems::row(l, 0); });
      j.list("b_element_col", kWarp, [](int l) { return BElems::col(l, 0); });
      j.list("a_chunk_row", kWarp, [](int l) { return AChunks::row(l, 0); });
      j.list("a_chunk_col", kWarp, [](int l) { return AChunks::col(l, 0); });
      j.list("b_chunk_row", kWarp, [](int l) { return BChunks::row(l, 0); });
      j.list("b_chunk_col", kWarp, [](int l) { return BChunks::col(l, 0); });
      j.value("a_elements_per_thread", AElems::kPerThread);
      j.value("b_elements_per_thread", BElems::kPerThread);
      j.value("a_chunks_per_thread", AChunks::kPerThread);
      j.value("b_chunks_per_thread", BChunks::kPerThread);
    }
    // The XOR swizzle of kernel 5: byte offset of 16-byte chunk c of row r (8 halves each).
    j.table("swizzle_a_bytes", 8, SwA::kChunks,
            [](int r, int c) { return kHalf * SwA::offset(r, 8 * c); });
    j.table("swizzle_b_bytes", 8, SwB::kChunks,
            [](int r, int c) { return kHalf * SwB::offset(r, 8 * c); });
    // ldmatrix.x4: the tile row and column (in halves) whose 16 bytes lane l points at.
    j.list("ldmatrix_a_row", kWarp, [](int l) { return Mma::lane_a_row(l); });
    j.list("ldmatrix_a_col", kWarp, [](int l) { return Mma::lane_a_col(l); });
    j.list("ldmatrix_b_row", kWarp, [](int l) { return Mma::lane_b_row(l); });
    j.list("ldmatrix_b_col", kWarp, [](int l) { return Mma::lane_b_col(l); });
    j.close();
  }

  {
    namespace hp = hopper_chapter;
    using Sw128 = gemm::warp_tiling::Swizzle<hp::kBK>;  // rows of 64 halves: 128 bytes, 8 chunks
    j.open("hopper");
    j.value("BM", hp::kBM);
    j.value("BN", hp::kBN);
    j.value("BK", hp::kBK);
    j.value("box_m", hp::kBoxM);
    j.value("box_n", hp::kBoxN);
    j.value("box_a_bytes", hp::kBoxABytes);
    j.value("stage_bytes", hp::TileShape<hp::kBM, hp::kBN>::kStageBytes);
    j.value("group_m", hp::kGroupM);
    j.value("cluster_blocks", hp::kClusterBlocks);  // step 4
    j.value("box_c_rows", hp::kBoxCRows);           // step 5: the TMA stores' boxes of C
    j.value("box_c_cols", hp::kBoxCCols);
    j.value("staging_bytes", hp::SharedLayout<1>::kStagingBytes);  // per consumer warpgroup
    j.value("tail_max_splits", hp::kTailMaxSplits);  // wgmma_persistent_tail_split
    j.value("tail_min_steps", hp::kTailMinSteps);
    hopper_layout_bytes(j, std::make_integer_sequence<int, 12>{});
    // TMA's 128-byte swizzle: 16-byte chunk c of row r (r = 0..7 of a 1024-byte period) lands at
    // chunk c XOR r, the same permutation as kernel 5's Swizzle<64>.
    j.table("swizzle_128b_bytes", 8, Sw128::kChunks,
            [](int r, int c) { return 2 * Sw128::offset(r, 8 * c); });
    j.close();
  }
  const std::string text = j.text() + "\n}\n";

  if (argc > 2 || (argc == 2 && std::string(argv[1]) == "--help")) {
    std::fprintf(stderr, "usage: %s [OUT.json]   (no argument: print to stdout)\n", argv[0]);
    return 2;
  }
  FILE* out = argc == 2 ? std::fopen(argv[1], "w") : stdout;
  if (!out) {
    std::fprintf(stderr, "diagram_constants: cannot write %s\n", argv[1]);
    return 1;
  }
  std::fputs(text.c_str(), out);
  return (argc == 2 ? std::fclose(out) : std::fflush(out)) == 0 ? 0 : 1;
}
