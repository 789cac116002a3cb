// =================================================================================================
// Chapter 06 - the tensor-core ceiling: how fast can WMMA (and mma.sync) possibly go on this GPU?
//
//   ./build/bin/06_warp_tiling --wmma-ceiling            # add --no-baseline to skip cuBLAS
//   ./build/bin/06_warp_tiling --wmma-ceiling --csv machine.csv   # + appends the ceilings as rows
//                                                                 # of machine_probe's CSV
//
// A GEMM kernel loads tiles, waits at barriers, computes addresses and stores C; the tensor-core
// instructions are only part of what it issues. These kernels issue nothing else: every warp keeps
// its fragments of A and B in registers and runs a long loop of mma instructions on independent
// accumulators (so no instruction waits for the one before it), with enough blocks to fill every
// SM several times. Their throughput is the most that any kernel built from the same instruction
// can reach, and so the ceiling of this chapter's kernels:
//   wmma::mma_sync 16 x 16 x 16         the ceiling of variants 1-4 (2 x HMMA.16816 on sm_80+)
//   mma.sync.m16n8k16 (PTX, sm_80+)     the ceiling of mma_sync_ptx and mma_sync_pipelined
// and cuBLAS's fp16 GEMM at 4096^3 beside them. On Hopper, cuBLAS uses wgmma, an instruction of
// sm_90a that WMMA and mma.sync cannot reach: cuBLAS may then beat our ceiling, and the table says
// by how much. README.md, "The ceiling", explains how to read the numbers.
//
// Each accumulator is written to a dummy output at the end, so the compiler cannot drop the loop.
// Timing: as everywhere in this repository (common/timer.cuh): CUDA events, warm-up runs, many
// repetitions, the median.
// =================================================================================================
#include "06_warp_tiling/warp_tiling.cuh"

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "06_warp_tiling/mma_ptx.cuh"
#include "06_warp_tiling/tile_helpers.cuh"
#include "common/buffers.cuh"
#include "common/cublas_baseline.cuh"
#include "common/cuda_check.cuh"
#include "common/device_info.cuh"
#include "common/exit_codes.hpp"
#include "common/problem.cuh"
#include "common/timer.cuh"

namespace gemm::warp_tiling {
namespace {

constexpr int kCeilingThreads = 256;  // 8 warps per block
constexpr int kCeilingAccs = 4;       // independent 16 x 16 accumulators per warp
constexpr int kCeilingIters = 2048;   // loop iterations per warp, kCeilingAccs mma_syncs each
constexpr int kCeilingWaves = 4;      // blocks = 4 x (blocks resident per SM) x SMs
constexpr double kFlopPerWmma = 2.0 * 16 * 16 * 16;  // one wmma::mma_sync: 8192 FLOP
constexpr double kFlopPerMma = 2.0 * 16 * 8 * 16;    // one mma.sync.m16n8k16: 4096 FLOP

// wmma::mma_sync only: a and b are loaded once, then kCeilingIters x kCeilingAccs mma_syncs.
__global__ void __launch_bounds__(kCeilingThreads)
    wmma_ceiling_kernel(const __half* __restrict__ in, float* __restrict__ out, int iters) {
  FragA a;
  FragB b;
  wmma::load_matrix_sync(a, in, kFrag);
  wmma::load_matrix_sync(b, in + kFrag * kFrag, kFrag);
  FragC acc[kCeilingAccs];  // [kCeilingAccs] independent accumulators: no mma waits for another
  // Different starting values: chains of identical mma_syncs from identical accumulators could be
  // merged into one by the compiler (the wmma intrinsics have no side effects).
#pragma unroll
  for (int i = 0; i < kCeilingAccs; ++i) wmma::fill_fragment(acc[i], static_cast<float>(i));
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < kCeilingAccs; ++i) wmma::mma_sync(acc[i], a, b, acc[i]);  // KEY
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kCeilingAccs; ++i)
#pragma unroll
    for (int e = 0; e < acc[i].num_elements; ++e) sum += acc[i].x[e];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps every mma_sync alive
}

// mma.sync.m16n8k16 only: twice as many mmas of half the size, so the same FLOP per iteration.
__global__ void __launch_bounds__(kCeilingThreads)
    mma_ceiling_kernel(const __half* __restrict__ in, float* __restrict__ out, int iters) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const uint32_t* words = reinterpret_cast<const uint32_t*>(in);  // 256 words of 2 halves
  const int lane = threadIdx.x % 32;
  const uint32_t a[4] = {words[lane], words[32 + lane], words[64 + lane], words[96 + lane]};
  const uint32_t b[2] = {words[128 + lane], words[160 + lane]};
  float acc[2 * kCeilingAccs][4];  // [2 * kCeilingAccs][4] independent 16 x 8 accumulators
#pragma unroll
  for (int i = 0; i < 2 * kCeilingAccs; ++i)
    acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = static_cast<float>(i);  // as above
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < 2 * kCeilingAccs; ++i) mma_m16n8k16(acc[i], a, b);  // KEY
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 2 * kCeilingAccs; ++i) sum += acc[i][0] + acc[i][1] + acc[i][2] + acc[i][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
#else
  __trap();  // compiled for sm_75: never launched there
#endif
}

struct CeilingResult {
  int blocks = 0;
  int warps_per_sm = 0;
  Timing time;
  double tflops = 0.0;
};

// Times `kernel` on enough blocks to fill every SM kCeilingWaves times over.
CeilingResult time_ceiling(const void* kernel, void (*launch)(int, const __half*, float*,
                                                               cudaStream_t),
                           double flop_per_warp, const DeviceInfo& dev, const __half* in,
                           GpuTimer& timer, cudaStream_t stream) {
  CeilingResult r;
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kCeilingThreads, 0));
  r.blocks = per_sm * dev.sm_count * kCeilingWaves;
  r.warps_per_sm = per_sm * kCeilingThreads / 32;
  DeviceBuffer<float> out(static_cast<size_t>(r.blocks) * kCeilingThreads);
  TimerConfig cfg;
  cfg.warmup = 3;
  cfg.min_reps = 20;
  r.time = timer.time([&](cudaStream_t s) { launch(r.blocks, in, out.get(), s); }, stream, cfg);
  const double flop = flop_per_warp * r.blocks * (kCeilingThreads / 32);
  r.tflops = flop / (r.time.median_ms * 1e-3) / 1e12;
  return r;
}

void launch_wmma_ceiling(int blocks, const __half* in, float* out, cudaStream_t s) {
  wmma_ceiling_kernel<<<blocks, kCeilingThreads, 0, s>>>(in, out, kCeilingIters);
  GEMM_LAUNCH_CHECK();
}

void launch_mma_ceiling(int blocks, const __half* in, float* out, cudaStream_t s) {
  mma_ceiling_kernel<<<blocks, kCeilingThreads, 0, s>>>(in, out, kCeilingIters);
  GEMM_LAUNCH_CHECK();
}

// Multiply-adds per SM per clock, at the GPU's peak clock: an architecture's tensor-core width
// (the clock under load may be lower, which makes this figure an underestimate).
double macs_per_sm_clock(double tflops, const DeviceInfo& dev) {
  return tflops * 1e12 / 2.0 / dev.sm_count / (dev.sm_clock_khz * 1e3);
}

}  // namespace

int run_wmma_ceiling(int argc, char** argv) {
  bool baseline = true;
  std::string csv;  // machine_probe's CSV: the ceilings become two more of its rows
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--wmma-ceiling") continue;
    if (arg == "--no-baseline") {
      baseline = false;
      continue;
    }
    if (arg == "--csv" && i + 1 < argc) {
      csv = argv[++i];
      continue;
    }
    std::fprintf(stderr, "--wmma-ceiling takes no option but --no-baseline and --csv FILE (got "
                 "'%s').\n", argv[i]);
    return kExitBadInput;
  }

  // Opened first, so that a path that cannot be written is reported before anything runs. A
  // missing or empty file gets the header (machine_probe writes it otherwise).
  const bool fresh =
      !csv.empty() && std::ifstream(csv).peek() == std::ifstream::traits_type::eof();
  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv, std::ios::app);
    if (!out) {
      std::fprintf(stderr, "Cannot write the CSV file '%s'.\n", csv.c_str());
      return kExitBadInput;
    }
  }
  DeviceInfo dev;
  std::string why;
  if (!query_device(dev, why)) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return kExitNoGpu;
  }
  if (dev.cc_major * 10 + dev.cc_minor < 70) {
    std::fprintf(stderr, "%s has compute capability %d.%d, but the tensor-core ceiling needs 7.0 "
                 "or newer (tensor cores (WMMA) first appeared in Volta).\n",
                 dev.name.c_str(), dev.cc_major, dev.cc_minor);
    return kExitNoGpu;
  }
  std::printf("06_warp_tiling --wmma-ceiling: tensor-core throughput of kernels that issue nothing "
              "but mma instructions\n");
  print_device_header(dev);

  // Random fp16 fragments of A and B (512 halves). Random, not zeros: a tensor core multiplying
  // zeros draws less power, and may then run at a higher clock than a real GEMM gets.
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(2 * kFrag * kFrag);
  for (float& v : host) v = dist(rng);
  DeviceBuffer<__half> in(host.size());
  in.upload(to_half(host));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  GpuTimer timer(dev);

  std::printf("\n  %-46s %7s %9s %9s %11s %12s\n", "instruction stream", "blocks", "warps/SM",
              "median ms", "TFLOPS", "MAC/clk/SM");
  auto row = [&](const char* name, const CeilingResult& r) {
    std::printf("  %-46s %7d %9d %9.3f %11.1f %12.0f\n", name, r.blocks, r.warps_per_sm,
                r.time.median_ms, r.tflops, macs_per_sm_clock(r.tflops, dev));
  };

  const CeilingResult wmma_r =
      time_ceiling(reinterpret_cast<const void*>(wmma_ceiling_kernel), launch_wmma_ceiling,
                   kFlopPerWmma * kCeilingAccs * kCeilingIters, dev, in.get(), timer, stream);
  row("wmma::mma_sync 16x16x16, f16 in, f32 accumulate", wmma_r);

  double mma_tflops = 0.0;
  if (runs_sm80_code(reinterpret_cast<const void*>(mma_ceiling_kernel))) {
    const CeilingResult mma_r =
        time_ceiling(reinterpret_cast<const void*>(mma_ceiling_kernel), launch_mma_ceiling,
                     kFlopPerMma * 2 * kCeilingAccs * kCeilingIters, dev, in.get(), timer, stream);
    row("mma.sync.m16n8k16 (PTX), f16 in, f32 accumulate", mma_r);
    mma_tflops = mma_r.tflops;
  } else {
    std::printf("  %-46s (needs sm_80: not run on this GPU)\n", "mma.sync.m16n8k16 (PTX)");
  }

  if (baseline) {
    constexpr int kSize = 4096;
    Problem problem(kSize, kSize, kSize, Precision::kF16, 6);
    Cublas cublas;
    const Timing t = timer.time(
        [&](cudaStream_t s) {
          cublas.gemm_f16(problem.dA16.get(), problem.dB16.get(), problem.dC.get(), kSize, kSize,
                          kSize, s);
        },
        stream, TimerConfig{});
    const double tflops = gflops(kSize, kSize, kSize, t.median_ms) / 1e3;
    std::printf("  %-46s %7s %9s %9.3f %11.1f %12.0f\n",
                "cuBLAS GEMM 4096^3, f16 in, f32 accumulate", "-", "-", t.median_ms, tflops,
                macs_per_sm_clock(tflops, dev));
    std::printf("\n  cuBLAS reaches %.0f%% of the wmma ceiling", 100.0 * tflops / wmma_r.tflops);
    if (mma_tflops > 0)
      std::printf(" and %.0f%% of the mma.sync ceiling", 100.0 * tflops / mma_tflops);
    std::printf(".\n  Half of cuBLAS (%.1f TFLOPS) is %.0f%% of the wmma ceiling.\n", tflops / 2,
                50.0 * tflops / wmma_r.tflops);
  }
  std::printf("  (MAC/clk/SM: multiply-adds per SM per clock at the peak clock of %d MHz; under "
              "load the clock may be lower.)\n",
              dev.sm_clock_khz / 1000);
  CUDA_CHECK(cudaStreamDestroy(stream));

  // The roofline (scripts/docs/plot.py) draws these as measured ceilings, apart from the chip's
  // peak.
  if (!csv.empty()) {
    const MachineInfo mi = dev.machine();
    if (fresh) out << "device,sm_clock_mhz,cuda_version,commit,level,quantity,value,unit,source\n";
    auto put = [&](const char* quantity, double tflops) {
      out << '"' << mi.device << "\"," << mi.sm_clock_mhz << ',' << mi.cuda_version << ','
          << git_commit() << ",tensor,\"" << quantity << "\"," << tflops * 1e3
          << ",GFLOPS,measured\n";
    };
    put("wmma::mma_sync ceiling (fp16 in, fp32 acc)", wmma_r.tflops);
    if (mma_tflops > 0) put("mma.sync m16n8k16 ceiling (fp16 in, fp32 acc)", mma_tflops);
  }
  return kExitOk;
}

}  // namespace gemm::warp_tiling
