// =================================================================================================
// Chapter 04 - 2D thread tiling, part 3: a launcher that fits the tiles to the shape.
//
// The idea: kernel 5 (tiling_2d_double_buffer) cuts C into 128 x 128 tiles, one block each, and
// needs about 160 registers per thread, so one block of 256 threads fills an SM. A 1024 x 1024 C
// makes 64 blocks; a 132-SM GPU runs them in one wave with 68 SMs idle, about half the GPU. The
// kernel is as fast per SM as at 4096^3; the GPU is half empty. A C of 16 rows is worse: 32 blocks,
// each computing 128 rows of which 112 are padding. This launcher keeps kernel 5 and changes how
// the problem is cut into blocks:
//   128x256  8 warps of 32 x 128, 8 x 16 outputs per thread, 1 block per SM: the fastest tile
//            where C has enough of them (4096^3: about 10 points of cuBLAS above 128x128 in
//            tile_sweep_04.csv)
//   128x128  kernel 5's own tile: 8 warps, 1 block per SM
//   64x128   4 warps, 3 blocks per SM: twice the blocks of 128x128
//   32x128   2 warps, 4 blocks per SM: four times the blocks, and little padding for a C of a few
//            rows
//   split-K  any of these on slices of K: one block per (tile, slice) (blockIdx.z is the slice);
//            the partial sums go to a workspace of this call, and reduce_split_k adds the slices
//            in a fixed order, so the result has the same bits on every run
// and picks one by counting the waves each makes on this GPU (common/waves.hpp, plan_by_waves;
// docs/tile_size_tradeoffs.md, "Waves", is the lesson).
//
// What changed since tiling_2d_double_buffer: nothing inside the kernel but its tile sizes and the
// slice of K a block takes (warp_tile.cuh); this step is the launcher. The 128 x 128 and smaller
// tiles keep kernel 5's warp tile (32 x 64) and thread tile (8 x 8), so every warp reads as many
// shared-memory bytes per FMA as in kernel 5. What a smaller block tile costs is global (mostly
// L2) traffic: (BM + BN) / (BM * BN) floats per FMA, 3/256 at 128x256, 1/64 at 128x128, 3/128 at
// 64x128, 5/128 at 32x128. The 128 x 256 tile also doubles each thread's outputs (8 x 16): 21
// FMAs per shared-memory load instead of 16, for 249 registers per thread and 49,664 bytes of
// shared memory (over 48 KB: allowed with cudaFuncSetAttribute). Split-K costs M x N floats per
// slice, written to a workspace and read back by a second kernel that adds the slices.
//
// N or K not a multiple of 4, or unaligned pointers (no float4): where the plan names 128x256,
// padded copies of A, B and C (PaddedProblem, below), else kernel 5's scalar path with BK = 8.
// (Also the scalar path where a padded copy would have 2^31 elements or more: the kernel's offsets
// are 32-bit ints.)
// Preconditions: none.
// Build and run:  cmake --build build --target 04_2d_tiling
//                 ./build/bin/04_2d_tiling --variant tiling_2d_shape_aware --m 16 --n 4096 --k 4096
// Reference GPU figure: README.md, "Measured" (generated from the benchmark CSV).
// =================================================================================================
#include <string>
#include <vector>

#include "04_2d_tiling/tiling_2d.cuh"
#include "04_2d_tiling/warp_tile.cuh"
#include "common/cuda_check.cuh"
#include "common/padding.cuh"
#include "common/per_device.cuh"
#include "common/split_k.cuh"
#include "common/workspace.cuh"

namespace gemm::tiling_2d {
namespace {

// Warp tile rows, thread tile rows and the transposed As's padding: kernel 5's (tiling_2d.cuh).
using kernels_4_5::kWM;
using kernels_4_5::kTM;
using kernels_4_5::kPad;

// One tile configuration: kernel 5 with a BM x BN block tile, a BK-deep K step, and warp tiles of
// 32 x WN (kernel 5: 32 x 64, 8 x 8 outputs per thread; the 128 x 256 tile: 32 x 128, 8 x 16).
template <int BM, int BN, int BK, bool VEC, int MIN_BLOCKS, int WN = 64, int TN = 8>
struct Tiles {
  static constexpr int kBM = BM, kBN = BN, kBK = BK;
  static constexpr int kThreads = WarpTile<BM, BN, kWM, WN, kTM, TN>::kThreads;
  static constexpr int kSmem = double_buffer_smem_bytes<BM, BN, BK, kPad>();
  static constexpr auto kKernel =
      tiling_2d_double_buffer_kernel<BM, BN, BK, kWM, WN, kTM, TN, kPad, VEC, MIN_BLOCKS>;
  static constexpr auto kKernelSplit =  // the same, over one slice of K per blockIdx.z
      tiling_2d_double_buffer_kernel<BM, BN, BK, kWM, WN, kTM, TN, kPad, VEC, MIN_BLOCKS, true>;
  // More than 48 KB of shared memory (the 128 x 256 tile) must be allowed per kernel, once on
  // each GPU (the attribute belongs to the device that is current: common/per_device.cuh).
  static void allow_smem() {
    static PerDevice<bool> allowed_on;
    allowed_on.get([](int) {
      for (auto kernel : {kKernel, kKernelSplit})
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        kSmem));
      return true;
    });
  }
};
// The float4 path: BK = 16, as kernel 5. MIN_BLOCKS caps no register count here (65536 / (blocks
// x threads) >= 256 in each); the occupancy API says how many blocks really fit.
using Wide = Tiles<128, 256, 16, true, 1, 128, 16>;  // 8 warps of 32 x 128: 8 x 16 per thread
using Large = Tiles<128, 128, 16, true, 1>;          // kernel 5's own: 8 warps
using Medium = Tiles<64, 128, 16, true, 2>;          // 4 warps
using Small = Tiles<32, 128, 16, true, 4>;           // 2 warps
// The scalar path (N or K not a multiple of 4, unaligned pointers): BK = 8 and more warps per SM,
// as kernel 5's scalar fallback, which needs them to hide its 4-byte loads: at most 128 registers
// per thread (168 for 32x128, which spilled 44 bytes under 128: nvcc 13.0, sm_90). 64x128
// spills 28 bytes under 128 (without split-K; 0 with it), and is still faster so: at 4093^3 on an
// H100 it ran in 3.97 ms, against 4.19 ms with three blocks per SM (149 registers, no spill, 12
// warps).
using LargeScalar = Tiles<128, 128, 8, false, 2>;  // kernel 5's scalar fallback
using MediumScalar = Tiles<64, 128, 8, false, 4>;
using SmallScalar = Tiles<32, 128, 8, false, 6>;

// The order of configs(); the scalar path has no 128x256 (see configs()).
enum Config { kLarge = 0, kMedium = 1, kSmall = 2, kWide = 3 };

template <class S>
TileConfig config(const char* name, double speed) {
  S::allow_smem();
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, S::kKernel, S::kThreads,
                                                           S::kSmem));
  return {name, S::kBM, S::kBN, S::kBK, S::kThreads / 32, blocks > 0 ? blocks : 1, speed,
          kSplitDepthFp32};
}

// The candidates for plan_by_waves, with their resident blocks per SM on this GPU (queried).
// `speed`: the whole SM's throughput relative to the largest tile.
//   128x256 against 128x128: 0.9 for 128x128, their ratio in tile_sweep_04.csv (H200, 4096^3).
//     Each thread's 8 x 16 outputs take 6 LDS.128 per k for 128 FMAs (21 FMAs a load, against
//     16 with 8 x 8), and the block loads 3/256 floats of A and B per FMA instead of 1/64. The
//     price: 249 registers per thread, and half as many tiles per C as 128x128.
//   64x128 and 32x128 against 128x128 (the same warp tile; only L2 traffic per FMA grows): 0.9
//     and 0.75, fitted to the forced variants below over every shape of the benchmark on an
//     H200 (at 4096^3, where 3 and 4 blocks share each SM, they run at 1.0 and 0.86 of 128x128;
//     alone on an SM, at 1024^3 and smaller as the plans use them, they are slower).
// The scalar path has no 128x256: at its cap of 128 registers per thread (two blocks per SM to
// hide its 4-byte loads), 8 x 16 outputs per thread would spill.
// Made once per GPU: the blocks per SM are this GPU's (common/per_device.cuh).
const std::vector<TileConfig>& configs(bool vec) {
  static PerDevice<std::vector<TileConfig>> float4_path, scalar_path;
  if (vec)
    return float4_path.get([](int) {
      return std::vector<TileConfig>{
          config<Large>("128x128", 0.9), config<Medium>("64x128", 0.9 * 0.9),
          config<Small>("32x128", 0.9 * 0.75), config<Wide>("128x256", 1.0)};
    });
  return scalar_path.get([](int) {
    return std::vector<TileConfig>{config<LargeScalar>("128x128", 1.0),
                                   config<MediumScalar>("64x128", 0.9),
                                   config<SmallScalar>("32x128", 0.75)};
  });
}

// Which configuration runs: chosen by counting waves (kAuto), or forced. kernel 5 itself is the
// 128x128 configuration forced (tiling_2d_double_buffer).
enum class Choice { kAuto, kMedium, kSmall, kWide, kSplitK };

LaunchPlan plan_for(int M, int N, int K, bool vec, Choice choice) {
  // kSplitK: the 128x128 tile, split as the rule would split it, and in at least 2 where K
  // allows. kWide on the scalar path, which has no 128x256: 128x128 (only where the padded
  // copies found no room; launch_as pads first).
  const int forced = choice == Choice::kAuto     ? kByWaves
                     : choice == Choice::kMedium ? kMedium
                     : choice == Choice::kSmall  ? kSmall
                     : choice == Choice::kWide   ? (vec ? kWide : kLarge)
                                                 : kLarge;
  return plan_launch(configs(vec), M, N, K, current_sm_count(), forced,
                     choice == Choice::kSplitK);  // KEY: counting waves (common/waves.cpp)
}

// Kernel 5 with tiles S, on `splits` slices of K.
template <class S>
void launch_tiles(const float* A, const float* B, float* C, int M, int N, int K, int splits,
                  cudaStream_t stream) {
  const int per_split = k_tiles_per_split(K, S::kBK, splits);  // K steps per slice (last: fewer)
  const SplitKOutput out(C, M, N, splits, stream);  // KEY: C, or this call's workspace
  const dim3 grid(ceil_div(N, S::kBN), ceil_div(M, S::kBM), splits);  // KEY: z = the K slice
  const auto kernel = splits > 1 ? S::kKernelSplit : S::kKernel;
  S::allow_smem();
  kernel<<<grid, S::kThreads, S::kSmem, stream>>>(A, B, out.data(), M, N, K, per_split,
                                                  out.slice_floats());
  GEMM_LAUNCH_CHECK();
  out.reduce(stream);  // KEY: the slices added into C in a fixed order
}

template <class W, class L, class Mid, class S>
void launch_plan(const LaunchPlan& plan, const float* A, const float* B, float* C, int M, int N,
                 int K, cudaStream_t stream) {
  if (plan.config == kWide)
    launch_tiles<W>(A, B, C, M, N, K, plan.splits, stream);
  else if (plan.config == kMedium)
    launch_tiles<Mid>(A, B, C, M, N, K, plan.splits, stream);
  else if (plan.config == kSmall)
    launch_tiles<S>(A, B, C, M, N, K, plan.splits, stream);
  else
    launch_tiles<L>(A, B, C, M, N, K, plan.splits, stream);
}

// -------------------------------------------------------------------------------------------------
// N or K not a multiple of 4, or unaligned pointers: the scalar path, or padded copies.
//
// The scalar path has every tile but 128 x 256 (see configs()). Where the float4 path would pick
// that tile for the padded shape, the launcher instead copies A and B into zero-padded matrices
// whose rows are whole float4s (common/padding.cuh), runs the float4 kernel on them into a padded
// C, and copies the N real columns of C back. The copies read and write every element of A, B
// and C once more; the 128 x 256 tile, and float4 loads instead of 4-byte ones, gain more than
// that. Measured on an H100 (one run per shape, padded against the scalar path's plan):
// 4093^3 44.7 against 39.6 TFLOPS; 2047^3 39.9 against 37.0; 4093 x 4093 x 511 35.9 against 35.0;
// and far more where the scalar path's plan makes no more blocks than SMs (128 blocks of 128 x 128,
// with or without split-K), leaving one block of 8 warps per SM to hide its 4-byte loads: 511 x
// 4093 x 4093 37.7 against 24.4, 127 x 4093 x 4093 25.6 against 20.9, 511 x 511 x 16383 33.7
// against 22.4. Plans with smaller tiles (few rows, or a small C) keep the scalar path, as do the
// calls for which the GPU has no room for the copies.
// -------------------------------------------------------------------------------------------------
// Would the padded copies fit kernel 5's 32-bit offsets (row * cols + col in an int)? The
// matrices themselves always do; a copy with longer rows may not (common/padding.cuh,
// int_indexable). Where one would not, the launcher keeps the scalar path, which reads the
// originals: slower by the figures above, but right for every legal size.
bool padded_copies_indexable(int M, int N, int K) {
  const int n = padded_row_length<float>(N), k = padded_row_length<float>(K);
  return int_indexable(M, k) && int_indexable(k, n) && int_indexable(M, n);  // A, B, C
}

// A, B and C, padded: M x k() of A, k() x n() of B and M x n() of C, each row a multiple of 4
// floats, in one workspace of this call (StreamWorkspace: safe on concurrent streams). ok() is
// false where the GPU has no room for them, or where a copy would be too large for 32-bit offsets:
// then the launcher takes the scalar path instead.
class PaddedProblem {
 public:
  PaddedProblem(const float* A, const float* B, int M, int N, int K, cudaStream_t stream)
      : M_(M), N_(N), n_(padded_row_length<float>(N)), k_(padded_row_length<float>(K)) {
    if (!padded_copies_indexable(M, N, K)) return;  // KEY: 46339 x 46341 x 9 ends here
    const size_t a = static_cast<size_t>(M) * k_, b = static_cast<size_t>(k_) * n_;
    const size_t c = static_cast<size_t>(M) * n_;  // a and b are multiples of 4: all aligned
    if (!copies_.try_allocate((a + b + c) * sizeof(float), stream)) return;
    a_ = copies_.as<float>();
    b_ = a_ + a;
    c_ = b_ + b;
    pack_padded(A, M, K, a_, M, k_, stream);  // KEY: rows of k_ floats, zeros past K
    pack_padded(B, K, N, b_, k_, n_, stream);  //      rows of n_ floats, zeros past N and K
  }
  bool ok() const { return a_ != nullptr; }
  const float* a() const { return a_; }
  const float* b() const { return b_; }
  float* c() const { return c_; }
  int n() const { return n_; }
  int k() const { return k_; }
  // C's N real columns of each row, out of the padded copy (one strided copy on the stream).
  void copy_c_to(float* C, cudaStream_t stream) const {
    CUDA_CHECK(cudaMemcpy2DAsync(C, N_ * sizeof(float), c_, n_ * sizeof(float), N_ * sizeof(float),
                                 M_, cudaMemcpyDeviceToDevice, stream));
  }

 private:
  int M_, N_, n_, k_;
  float* a_ = nullptr;
  float* b_ = nullptr;
  float* c_ = nullptr;
  StreamWorkspace copies_;
};

// The plan for the padded shape, on the float4 path. Where the float4 path is not allowed, the
// launcher pads where this plan names 128x256 (chosen by waves, or forced).
LaunchPlan padded_plan(int M, int N, int K, Choice choice) {
  return plan_for(M, padded_row_length<float>(N), padded_row_length<float>(K), true, choice);
}

template <Choice CHOICE>
void launch_as(const float* A, const float* B, float* C, int M, int N, int K,
               cudaStream_t stream) {
  const bool vec = float4_ok(A, B, C, N, K);
  if (!vec) {
    const LaunchPlan padded = padded_plan(M, N, K, CHOICE);
    if (padded.config == kWide) {
      const PaddedProblem p(A, B, M, N, K, stream);
      if (p.ok()) {
        launch_tiles<Wide>(p.a(), p.b(), p.c(), M, p.n(), p.k(), padded.splits, stream);
        p.copy_c_to(C, stream);  // then the copies are freed, in stream order, after the copy
        return;
      }
    }
  }
  const LaunchPlan plan = plan_for(M, N, K, vec, CHOICE);
  if (vec)
    launch_plan<Wide, Large, Medium, Small>(plan, A, B, C, M, N, K, stream);
  else  // the plans of the scalar path never name kWide
    launch_plan<LargeScalar, LargeScalar, MediumScalar, SmallScalar>(plan, A, B, C, M, N, K,
                                                                     stream);
}

// The note for the table and the CSV: what the shape-aware launcher chose (and whether it took the
// scalar path); for a forced configuration nothing, unless split-K could not split.
template <Choice CHOICE>
std::string ran(const void* A, const void* B, const float* C, int M, int N, int K) {
  const bool vec = float4_ok(static_cast<const float*>(A), static_cast<const float*>(B), C, N, K);
  if (!vec) {
    const LaunchPlan padded = padded_plan(M, N, K, CHOICE);
    if (padded.config == kWide && padded_copies_indexable(M, N, K))
      return "ran " + padded.describe(configs(true)) + " on padded copies";
  }
  const LaunchPlan plan = plan_for(M, N, K, vec, CHOICE);
  const std::string path = vec ? "" : " (scalar loads)";
  if (CHOICE == Choice::kAuto) return "ran " + plan.describe(configs(vec)) + path;
  if (CHOICE == Choice::kWide && !vec)  // reached only where the padded copies were ruled out
    return "ran " + plan.describe(configs(false)) + path + ": padded copies would pass 2^31 elements";
  if (CHOICE == Choice::kSplitK && plan.splits == 1) return "ran 128x128: K has 1 step, no split";
  return "";
}

}  // namespace

std::vector<Variant> shape_aware_variants() {
  return {
      {"tiling_2d_shape_aware", launch_as<Choice::kAuto>, nullptr,
       "kernel 5 with a 128x256, 128x128, 64x128 or 32x128 tile, or split-K, chosen by counting "
       "waves",
       ran<Choice::kAuto>},
      {"tiling_2d_shape_aware_128x256", launch_as<Choice::kWide>, nullptr,
       "tiling_2d_shape_aware forced to 128 x 256 tiles (8 warps, 8 x 16 outputs per thread), "
       "no split-K",
       ran<Choice::kWide>},
      {"tiling_2d_shape_aware_64x128", launch_as<Choice::kMedium>, nullptr,
       "tiling_2d_shape_aware forced to 64 x 128 tiles (4 warps), no split-K",
       ran<Choice::kMedium>},
      {"tiling_2d_shape_aware_32x128", launch_as<Choice::kSmall>, nullptr,
       "tiling_2d_shape_aware forced to 32 x 128 tiles (2 warps), no split-K",
       ran<Choice::kSmall>},
      {"tiling_2d_shape_aware_splitk", launch_as<Choice::kSplitK>, nullptr,
       "tiling_2d_shape_aware forced to split-K (128 x 128 tiles, at least 2 slices of K)",
       ran<Choice::kSplitK>},
  };
}

std::vector<KernelResources> shape_aware_kernels() {
  // 128x128 is kernel 5 itself, listed by warp_tiling_kernels().
  auto entry = [](const char* name, auto tiles) {
    using S = decltype(tiles);
    S::allow_smem();  // the occupancy API counts 49,664 bytes only once they are allowed
    return KernelResources{name, reinterpret_cast<const void*>(S::kKernel), S::kThreads,
                           static_cast<size_t>(S::kSmem)};
  };
  return {entry("tiling_2d_shape_aware 128x256", Wide{}),
          entry("tiling_2d_shape_aware 64x128", Medium{}),
          entry("tiling_2d_shape_aware 64x128 (scalar)", MediumScalar{}),
          entry("tiling_2d_shape_aware 32x128", Small{}),
          entry("tiling_2d_shape_aware 32x128 (scalar)", SmallScalar{})};
}

}  // namespace gemm::tiling_2d
