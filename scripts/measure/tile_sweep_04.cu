// =================================================================================================
// tile_sweep_04: chapter 04's kernel 5 (tiling_2d_double_buffer, 04_2d_tiling/warp_tile.cuh) at a
// list of tile parameters, each one timed against cuBLAS SGEMM in the same process and verified
// against the fp64 oracle.
//
// The chapter's launcher takes one set of tile sizes (BM x BN = 128 x 128, BK = 16, warp tiles of
// 32 x 64, 8 x 8 per thread, one block per SM). This program is how that choice was made, and how
// you can remake it on your GPU: every candidate is the same kernel template with other template
// arguments, so only the sizes differ. One CSV row per candidate (with its registers, spills,
// shared memory and blocks per SM); docs/notes/04_2d_tiling.md, "Tile parameters, measured", is the
// table scripts/docs/results_table.py makes from the CSV that scripts/run/bench_all.sh writes.
//
//   cmake --build build --target tile_sweep_04
//   ./build/bin/tile_sweep_04 [--size N] [--csv FILE]     # default 4096^3, no CSV
// Exit codes as for the chapters: 0 ok, 1 a candidate failed verification, 2 bad option or size,
// 3 no GPU.
// =================================================================================================
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "04_2d_tiling/warp_tile.cuh"
#include "common/buffers.cuh"
#include "common/cli.hpp"
#include "common/cublas_baseline.cuh"
#include "common/cuda_check.cuh"
#include "common/device_info.cuh"
#include "common/exit_codes.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/timer.cuh"
#include "common/verify.hpp"

namespace {

using gemm::DeviceBuffer;

// One problem, its oracle, and the cuBLAS time every candidate is compared with.
struct Problem {
  int n = 0;
  DeviceBuffer<float> A, B, C;
  gemm::OracleRows oracle;
  double cublas_ms = 0.0;
};

struct Row {
  std::string params;  // "128x128x16 w32x64 t8x8 b1"
  int threads = 0, regs = 0, local_bytes = 0, smem_bytes = 0, blocks_per_sm = 0;
  double ms = 0.0, gflops = 0.0, pct = 0.0;
  bool passed = false;
};

// Kernel 5 with these sizes: time it, verify it, read its resources.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MIN_BLOCKS>
Row run(Problem& p, gemm::GpuTimer& timer, const gemm::TimerConfig& cfg) {
  constexpr int kPad = 4;
  constexpr int kSmem = gemm::tiling_2d::double_buffer_smem_bytes<BM, BN, BK, kPad>();
  const auto kernel = gemm::tiling_2d::tiling_2d_double_buffer_kernel<BM, BN, BK, WM, WN, TM, TN,
                                                                       kPad, true, MIN_BLOCKS>;
  // Kernel 5's two stages are dynamic shared memory: over 48 KB only once allowed.
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  Row r;
  char name[96];
  std::snprintf(name, sizeof name, "%dx%dx%d w%dx%d t%dx%d b%d", BM, BN, BK, WM, WN, TM, TN,
                MIN_BLOCKS);
  r.params = name;
  r.threads = gemm::tiling_2d::WarpTile<BM, BN, WM, WN, TM, TN>::kThreads;
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  r.regs = attr.numRegs;
  r.local_bytes = static_cast<int>(attr.localSizeBytes);
  r.smem_bytes = static_cast<int>(attr.sharedSizeBytes) + kSmem;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, kernel, r.threads, kSmem));

  const int n = p.n;
  const dim3 grid(gemm::ceil_div(n, BN), gemm::ceil_div(n, BM));
  auto launch = [&](cudaStream_t s) {
    kernel<<<grid, r.threads, kSmem, s>>>(p.A.get(), p.B.get(), p.C.get(), n, n, n,
                                          gemm::ceil_div(n, BK), 0);
    GEMM_LAUNCH_CHECK();
  };
  p.C.poison(nullptr);  // NaN: an element the kernel does not write fails
  launch(nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> c = p.C.download();
  r.passed = gemm::verify_against_oracle(c.data(), n, n, p.oracle, gemm::Precision::kF32).passed();
  r.ms = timer.time(launch, nullptr, cfg).median_ms;
  r.gflops = gemm::gflops(n, n, n, r.ms);
  r.pct = 100.0 * p.cublas_ms / r.ms;
  std::printf("  %-28s %7d %5d %8d %9d %9d %9.3f %9.1f %7.1f%%  %s\n", r.params.c_str(), r.threads,
              r.regs, r.local_bytes, r.smem_bytes, r.blocks_per_sm, r.ms, r.gflops, r.pct,
              r.passed ? "PASS" : "FAIL");
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 4096;
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else if (!std::strcmp(argv[i], "--size") && i + 1 < argc) {
      // float4 loads need N and K multiples of 4 (kernel 5's fast path is what is swept).
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      n = (*end == '\0' && v >= 4 && v <= 16384 && v % 4 == 0) ? static_cast<int>(v) : 0;
      if (n == 0) {
        std::fprintf(stderr, "tile_sweep_04: --size must be a multiple of 4 from 4 to 16384.\n");
        return gemm::kExitBadInput;
      }
    } else if (!std::strcmp(argv[i], "--help")) {
      std::printf("usage: tile_sweep_04 [--size N] [--csv FILE]\nTimes chapter 04's kernel 5 at "
                  "several tile sizes against cuBLAS SGEMM at N^3 (default 4096).\n");
      return gemm::kExitOk;
    } else {
      std::fprintf(stderr, "tile_sweep_04: unknown option '%s' (try --help).\n", argv[i]);
      return gemm::kExitBadInput;
    }
  }
  std::ofstream out;  // opened first: a path that cannot be written is found before the sweep runs
  if (!csv.empty()) {
    out.open(csv);
    if (!out) {
      std::fprintf(stderr, "tile_sweep_04: cannot write the CSV file '%s'.\n", csv.c_str());
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
  // A, B and C, and the timer's L2-flush buffer (twice the L2): one sentence if they do not fit.
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t need = 3 * sizeof(float) * static_cast<size_t>(n) * n + 2 * size_t(dev.l2_bytes);
  const std::string shortfall = gemm::memory_shortfall(n, n, n, need, free_bytes, dev.name);
  if (!shortfall.empty()) {
    std::fprintf(stderr, "%s\n", shortfall.c_str());
    return gemm::kExitBadInput;
  }

  Problem p;
  p.n = n;
  const std::vector<float> a = gemm::random_matrix(n, n, 1), b = gemm::random_matrix(n, n, 2);
  p.A = DeviceBuffer<float>(a.size());
  p.B = DeviceBuffer<float>(b.size());
  p.C = DeviceBuffer<float>(a.size());
  p.A.upload(a);
  p.B.upload(b);
  p.oracle = gemm::oracle_rows(a.data(), b.data(), n, n, n, gemm::rows_to_check(n, n, n));

  gemm::GpuTimer timer(dev);
  const gemm::TimerConfig cfg;
  gemm::Cublas cublas;
  p.cublas_ms = timer.time([&](cudaStream_t s) { cublas.sgemm(p.A.get(), p.B.get(), p.C.get(),
                                                              n, n, n, s); },
                           nullptr, cfg).median_ms;
  std::printf("\ncuBLAS SGEMM %d^3: %.3f ms, %.1f GFLOPS\n\n", n, p.cublas_ms,
              gemm::gflops(n, n, n, p.cublas_ms));
  std::printf("  %-28s %7s %5s %8s %9s %9s %9s %9s %8s\n", "BMxBNxBK warp thread minblocks",
              "threads", "regs", "local B", "smem B", "blocks/SM", "ms", "GFLOPS", "cuBLAS");

  // The candidates: kernel 5's own first, then one change at a time (WarpTile needs the lanes of
  // a warp tile to make exactly one warp; its static_asserts say so). The last ones double the
  // outputs per thread (8 x 16 or 16 x 8) in a 128 x 256 or 256 x 128 block tile:
  // tiling_2d_shape_aware's 128x256 configuration is the first of them.
  std::vector<Row> rows;
  rows.push_back(run<128, 128, 16, 32, 64, 8, 8, 1>(p, timer, cfg));  // the chapter's choice
  rows.push_back(run<128, 128, 8, 32, 64, 8, 8, 2>(p, timer, cfg));   // BK 8: two blocks per SM
  rows.push_back(run<128, 128, 16, 32, 64, 8, 8, 2>(p, timer, cfg));  // two blocks forced: spills
  rows.push_back(run<128, 128, 16, 64, 32, 8, 8, 1>(p, timer, cfg));  // warp tile 64 x 32
  rows.push_back(run<128, 128, 16, 16, 128, 8, 8, 1>(p, timer, cfg)); // warp tile 16 x 128
  rows.push_back(run<128, 128, 16, 32, 32, 8, 4, 1>(p, timer, cfg));  // 16 warps of 8 x 4
  rows.push_back(run<64, 128, 16, 32, 64, 8, 8, 2>(p, timer, cfg));   // 4 warps
  rows.push_back(run<128, 64, 16, 32, 64, 8, 8, 2>(p, timer, cfg));   // 4 warps, the other way
  rows.push_back(run<64, 64, 16, 32, 32, 8, 4, 2>(p, timer, cfg));    // 4 warps of 8 x 4
  rows.push_back(run<128, 128, 32, 32, 64, 8, 8, 1>(p, timer, cfg));  // BK 32: half the barriers
  rows.push_back(run<128, 256, 16, 32, 128, 8, 16, 1>(p, timer, cfg));  // 8 x 16 per thread
  rows.push_back(run<128, 256, 16, 64, 64, 16, 8, 1>(p, timer, cfg));   // 16 x 8 per thread
  rows.push_back(run<256, 128, 16, 64, 64, 8, 16, 1>(p, timer, cfg));   // 256 x 128, 8 x 16
  rows.push_back(run<128, 256, 8, 32, 128, 8, 16, 1>(p, timer, cfg));   // BK 8

  bool all_passed = true;
  for (const Row& r : rows) all_passed = all_passed && r.passed;
  if (!csv.empty()) {
    out << "device,commit,size,params,threads,regs,local_bytes,smem_bytes,blocks_per_sm,median_ms,"
           "gflops,cublas_ms,pct_of_cublas,status,timing\n";
    for (const Row& r : rows)
      out << dev.name << ',' << gemm::git_commit() << ',' << n << ',' << r.params << ','
          << r.threads << ',' << r.regs << ',' << r.local_bytes << ',' << r.smem_bytes << ','
          << r.blocks_per_sm << ',' << r.ms << ',' << r.gflops << ',' << p.cublas_ms << ','
          << r.pct << ',' << (r.passed ? "PASS" : "FAIL")
          << ",alone\n";  // cuBLAS first, then each candidate on its own
    std::printf("\ntile_sweep_04: %zu candidates -> %s\n", rows.size(), csv.c_str());
  }
  return all_passed ? gemm::kExitOk : gemm::kExitVerifyFailed;
}
