// =================================================================================================
// machine_probe: the numbers a roofline and docs/memory_hierarchy.md need, measured on THIS GPU.
//
// The chapters compare each kernel with cuBLAS. To say WHY a kernel is where it is, we also need
// the machine's own limits, measured rather than read from a data sheet:
//   - bandwidth: DRAM (a buffer far larger than L2, read once per run), L2 (a buffer a quarter of
//     the L2's size, read many times), shared memory (every SM reading its own shared array);
//   - compute: the FP32 FMA peak (eight independent FMA chains per thread and many resident warps,
//     no memory at all);
//   - latency: one thread following a chain of pointers (each load's address is the previous
//     load's value, so nothing overlaps) in shared memory, and through global buffers from 16 KB
//     to 512 MB: where the latency steps up shows how far each level reaches (the L2 step comes
//     at about half the L2's size: docs/memory_hierarchy.md, section 3);
//   - sizes: registers, shared memory and L2 from cudaDeviceGetAttribute, DRAM from cudaMemGetInfo.
// Each number is the median of several timed runs (CUDA events, or clock64() for latencies).
//
//   cmake --build build --target machine_probe && ./build/bin/machine_probe [--csv FILE]
// scripts/run/bench_all.sh runs it and keeps its CSV next to the sweep's; scripts/docs/plot.py draws the
// roofline from both. Exit codes as for the chapters: 0 ok, 2 bad option, 3 no GPU.
// =================================================================================================
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/cuda_check.cuh"
#include "common/device_info.cuh"
#include "common/report.hpp"

namespace {

using gemm::DeviceBuffer;

// ---- bandwidth kernels ---------------------------------------------------------------------------
// The loads must not be optimized away, and the answer must not depend on timing: the sum of the
// (zero) inputs is never -1, but the compiler cannot know that.
__global__ void read_kernel(const float4* __restrict__ in, size_t n, int passes, float* sink) {
  float acc = 0.0f;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
      const float4 v = __ldcg(in + i);  // cached in L2 only: an L2 measurement must not hit L1
      acc += (v.x + v.y) + (v.z + v.w);
    }
  if (acc == -1.0f) *sink = acc;
}

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

constexpr int kSmemFloat4 = 2048;  // 32 KB of shared memory per block
__global__ void shared_read_kernel(int iters, float* sink) {
  __shared__ float4 s[kSmemFloat4];  // [2048] float4
  for (int i = threadIdx.x; i < kSmemFloat4; i += blockDim.x) s[i] = make_float4(0, 0, 0, 0);
  __syncthreads();  // every element written before anyone reads
  float acc = 0.0f;
  // A warp reads 32 consecutive float4 (512 bytes): four conflict-free 128-byte wavefronts.
  for (int it = 0; it < iters; ++it) {
    const float4 v = s[(threadIdx.x + it * 32) & (kSmemFloat4 - 1)];
    acc += (v.x + v.y) + (v.z + v.w);
  }
  if (acc == -1.0f) *sink = acc;
}

// ---- compute: FP32 FMA peak ----------------------------------------------------------------------
constexpr int kChains = 8;  // independent FMA chains per thread (the resident warps alone would
                            // hide FMA latency; the chains keep the loop overhead small)
__global__ void fma_kernel(int iters, float* sink) {
  float a[kChains];  // [8] registers
  for (int j = 0; j < kChains; ++j) a[j] = threadIdx.x * 1e-3f + j;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < kChains; ++j) a[j] = fmaf(a[j], 0.9999f, 1e-4f);
  }
  float acc = 0.0f;
  for (int j = 0; j < kChains; ++j) acc += a[j];
  if (acc == -1.0f) *sink = acc;
}

// ---- latency: pointer chasing ----------------------------------------------------------------
// chain[i] holds the index of the next element to visit. One thread, one load in flight.
__global__ void chase_global_kernel(const unsigned* chain, int steps, unsigned* out,
                                    long long* cycles) {
  unsigned j = 0;
  for (int s = 0; s < steps; ++s) j = chain[j];  // untimed walk: brings the chain into cache
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) j = chain[j];
  const long long t1 = clock64();
  *out = j;
  *cycles = t1 - t0;
}

constexpr int kSmemChain = 4096;
__global__ void chase_shared_kernel(const unsigned* chain, int steps, unsigned* out,
                                    long long* cycles) {
  __shared__ unsigned s[kSmemChain];  // [4096]
  for (int i = 0; i < kSmemChain; ++i) s[i] = chain[i];
  unsigned j = 0;
  const long long t0 = clock64();
  for (int st = 0; st < steps; ++st) j = s[j];
  const long long t1 = clock64();
  *out = j;
  *cycles = t1 - t0;
}

// Spreads a compact "next line" array over a buffer: element line*stride points to next*stride.
__global__ void scatter_chain_kernel(const unsigned* next, size_t lines, unsigned stride,
                                     unsigned* chain) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < lines;
       i += size_t(gridDim.x) * blockDim.x)
    chain[i * stride] = next[i] * stride;
}

// ---- helpers -------------------------------------------------------------------------------------
// Median of `reps` timed runs (after two untimed ones), in milliseconds. Not common/'s GpuTimer:
// that one flushes L2 before every run, which is right for a GEMM and would empty the very cache
// the L2 measurement reads.
template <class F>
double median_ms(F&& run, int reps = 9) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  run();
  run();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    CUDA_CHECK(cudaEventRecord(a));
    run();
    CUDA_CHECK(cudaEventRecord(b));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// A random cycle through `lines` cache lines (Sattolo's algorithm: one cycle through all of them),
// so no prefetcher can guess the next address.
std::vector<unsigned> random_cycle(size_t lines, std::mt19937& rng) {
  std::vector<unsigned> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  for (size_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<unsigned> next(lines);
  for (size_t i = 0; i < lines; ++i) next[order[i]] = order[(i + 1) % lines];
  return next;
}

// Cycles per dependent load over a chain through `bytes`, one visit per 128-byte line. The chain is
// walked once untimed and then timed (up to 2^20 loads each), so a chain that fits in a cache is
// found there, and one that does not keeps missing it.
double chase_cycles(size_t bytes, bool shared, std::mt19937& rng) {
  constexpr unsigned kStride = 32;  // 32 x 4 bytes: one element per 128-byte line
  const size_t lines = bytes / (kStride * sizeof(unsigned));
  const std::vector<unsigned> next = random_cycle(lines, rng);
  const int steps = static_cast<int>(std::min<size_t>(lines, size_t(1) << 20));
  DeviceBuffer<unsigned> d_next(lines), chain(lines * kStride), out(1);
  DeviceBuffer<long long> cycles(1);
  CUDA_CHECK(cudaMemcpy(d_next.get(), next.data(), lines * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(chain.get(), 0, chain.bytes()));
  scatter_chain_kernel<<<256, 256>>>(d_next.get(), lines, kStride, chain.get());
  GEMM_LAUNCH_CHECK();
  std::vector<double> per_load;
  for (int r = 0; r < 3; ++r) {
    if (shared)
      chase_shared_kernel<<<1, 1>>>(chain.get(), steps, out.get(), cycles.get());
    else
      chase_global_kernel<<<1, 1>>>(chain.get(), steps, out.get(), cycles.get());
    GEMM_LAUNCH_CHECK();
    long long c = 0;
    CUDA_CHECK(cudaMemcpy(&c, cycles.get(), sizeof c, cudaMemcpyDeviceToHost));
    per_load.push_back(double(c) / steps);
  }
  std::sort(per_load.begin(), per_load.end());
  return per_load[per_load.size() / 2];
}

struct Row {
  std::string level, quantity;
  double value;
  std::string unit, source;
};

}  // namespace

int main(int argc, char** argv) {
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else if (!std::strcmp(argv[i], "--help")) {
      std::printf("usage: machine_probe [--csv FILE]\nMeasures this GPU's bandwidths (DRAM, L2, "
                  "shared memory), FP32 FMA peak and load latencies.\n");
      return gemm::kExitOk;
    } else {
      std::fprintf(stderr, "machine_probe: unknown option '%s' (try --help).\n", argv[i]);
      return gemm::kExitBadInput;
    }
  }
  gemm::DeviceInfo dev;
  std::string why;
  if (!gemm::query_device(dev, why)) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return gemm::kExitNoGpu;
  }
  gemm::print_device_header(dev);
  std::vector<Row> rows;
  DeviceBuffer<float> sink(1);
  const int blocks = dev.sm_count * 8, threads = 256;

  // DRAM: a quarter of free memory, at most 1 GiB per buffer (far larger than any L2).
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t dram_bytes = std::min<size_t>(size_t(1) << 30, free_b / 4) & ~size_t(15);
  const size_t n4 = dram_bytes / sizeof(float4);
  {
    DeviceBuffer<float4> in(n4), out(n4);
    CUDA_CHECK(cudaMemset(in.get(), 0, in.bytes()));
    const double read_ms = median_ms([&] {
      read_kernel<<<blocks, threads>>>(in.get(), n4, 1, sink.get());
      GEMM_LAUNCH_CHECK();
    });
    const double copy_ms = median_ms([&] {
      copy_kernel<<<blocks, threads>>>(in.get(), out.get(), n4);
      GEMM_LAUNCH_CHECK();
    });
    rows.push_back({"DRAM", "read bandwidth", dram_bytes / read_ms * 1e-6, "GB/s", "measured"});
    rows.push_back({"DRAM", "copy bandwidth (read + write)", 2.0 * dram_bytes / copy_ms * 1e-6,
                    "GB/s", "measured"});
  }
  // L2: a buffer a quarter of the L2, read 20 times per launch (the first pass brings it in).
  {
    const size_t l2_bytes = (size_t(dev.l2_bytes) / 4) & ~size_t(15);
    const size_t m4 = l2_bytes / sizeof(float4);
    DeviceBuffer<float4> in(m4);
    CUDA_CHECK(cudaMemset(in.get(), 0, in.bytes()));
    constexpr int kPasses = 20;
    const double ms = median_ms([&] {
      read_kernel<<<blocks, threads>>>(in.get(), m4, kPasses, sink.get());
      GEMM_LAUNCH_CHECK();
    });
    rows.push_back({"L2", "read bandwidth", double(l2_bytes) * kPasses / ms * 1e-6, "GB/s",
                    "measured"});
  }
  // Shared memory: every block reads its own 32 KB array.
  {
    constexpr int kIters = 4096;
    const double ms = median_ms([&] {
      shared_read_kernel<<<blocks, threads>>>(kIters, sink.get());
      GEMM_LAUNCH_CHECK();
    });
    const double bytes = double(blocks) * threads * kIters * sizeof(float4);
    rows.push_back({"shared", "read bandwidth (all SMs)", bytes / ms * 1e-6, "GB/s", "measured"});
  }
  // FP32 FMA peak.
  {
    constexpr int kIters = 8192;
    const double ms = median_ms([&] {
      fma_kernel<<<blocks, threads>>>(kIters, sink.get());
      GEMM_LAUNCH_CHECK();
    });
    const double flop = 2.0 * kChains * kIters * double(blocks) * threads;
    rows.push_back({"FP32", "FMA peak", flop / ms * 1e-6, "GFLOPS", "measured"});
    rows.push_back({"FP32", "FMA peak (lanes x 2 x SMs x max clock)", dev.peak_fp32_gflops(),
                    "GFLOPS", "computed"});
    rows.push_back({"DRAM", "peak bandwidth (2 x bus width x memory clock)", dev.peak_dram_gbs(),
                    "GB/s", "computed"});
  }
  // Latencies, in SM clock cycles (clock64 counts the SM's own cycles).
  {
    std::mt19937 rng(12345);
    rows.push_back({"shared", "load latency", chase_cycles(kSmemChain * sizeof(unsigned), true, rng),
                    "cycles", "measured"});
    // The latency of a global load against the footprint of the data: a plateau per level (L1,
    // L2, DRAM), and a step where the footprint outgrows one. scripts/docs/plot.py draws this curve.
    for (size_t kb : {16, 64, 128, 512, 2048, 8192, 16384, 32768, 65536, 131072, 524288}) {
      const size_t bytes = kb << 10;
      if (bytes > dram_bytes) break;
      char what[64];
      std::snprintf(what, sizeof what, "load latency, %zu KB footprint", kb);
      rows.push_back({"latency", what, chase_cycles(bytes, false, rng), "cycles", "measured"});
    }
  }
  // Sizes.
  int smem_block_optin = 0, regs_block = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&smem_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev.id));
  CUDA_CHECK(cudaDeviceGetAttribute(&regs_block, cudaDevAttrMaxRegistersPerBlock, dev.id));
  rows.push_back({"registers", "32-bit registers per SM", double(dev.regs_per_sm), "registers", "attribute"});
  rows.push_back({"registers", "per SM, as bytes", dev.regs_per_sm * 4.0 / 1024, "KB", "attribute"});
  rows.push_back({"shared", "shared memory per SM", dev.smem_per_sm / 1024.0, "KB", "attribute"});
  rows.push_back({"shared", "shared memory per block (opt-in)", smem_block_optin / 1024.0, "KB", "attribute"});
  rows.push_back({"L2", "L2 size", dev.l2_bytes / 1048576.0, "MiB", "attribute"});
  rows.push_back({"DRAM", "DRAM size", total_b / 1073741824.0, "GiB", "cudaMemGetInfo"});
  rows.push_back({"SM", "SMs", double(dev.sm_count), "SMs", "attribute"});
  rows.push_back({"SM", "max SM clock", dev.sm_clock_khz / 1000.0, "MHz", "attribute"});
  // scripts/docs/plot.py computes the chip's peaks from the SM count, the clock and what one SM of this
  // architecture does per clock (docs/roofline.md, section 2).
  rows.push_back({"SM", "compute capability", dev.cc_major + dev.cc_minor / 10.0, "", "attribute"});

  std::printf("\n%-10s %-58s %12s  %-8s %s\n", "level", "quantity", "value", "unit", "source");
  for (const Row& r : rows)
    std::printf("%-10s %-58s %12.1f  %-8s %s\n", r.level.c_str(), r.quantity.c_str(), r.value,
                r.unit.c_str(), r.source.c_str());
  std::printf("(latency in ns = cycles / SM clock in GHz; at %.2f GHz, 100 cycles = %.0f ns)\n",
              dev.sm_clock_khz * 1e-6, 100.0 / (dev.sm_clock_khz * 1e-6));

  if (!csv.empty()) {
    std::ofstream out(csv);
    if (!out) {
      std::fprintf(stderr, "Cannot write the CSV file '%s'.\n", csv.c_str());
      return gemm::kExitBadInput;
    }
    const gemm::MachineInfo mi = dev.machine();
    out << "device,sm_clock_mhz,cuda_version,commit,level,quantity,value,unit,source\n";
    for (const Row& r : rows)
      out << '"' << mi.device << "\"," << mi.sm_clock_mhz << ',' << mi.cuda_version << ','
          << gemm::git_commit() << ',' << r.level << ",\"" << r.quantity << "\"," << r.value
          << ',' << r.unit << ',' << r.source << '\n';
  }
  return gemm::kExitOk;
}
