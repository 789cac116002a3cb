// 00_cpu_reference: C = A x B on the CPU, from the textbook loop to all cores. See README.md.
//   cmake --build build --target 00_cpu_reference && ./build/bin/00_cpu_reference
//   ./build/bin/00_cpu_reference --variant threaded --size 4096   # the CPU figure to beat
// Parse, then for each variant: poison C with NaN, run once, verify against the fp64 oracle, time.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "00_cpu_reference/cpu_gemm.hpp"
#include "common/cli.hpp"
#include "common/exit_codes.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/verify.hpp"

namespace {

constexpr const char* kChapter = "00_cpu_reference";

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    const size_t colon = line.find(':');
    if (line.rfind("model name", 0) != 0 || colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) return line.substr(start);
  }
  return "unknown CPU";
}

double run_ms(const gemm::cpu::CpuVariant& v, const float* A, const float* B, float* C, int rows,
              int N, int K) {
  const auto start = std::chrono::steady_clock::now();
  v.fn(A, B, C, rows, N, K);
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<gemm::cpu::CpuVariant> all = gemm::cpu::variants();
  gemm::CliSpec spec;
  spec.program = kChapter;
  spec.description = "C = A x B on the CPU, from the textbook loop to all cores (teaching order)";
  for (const auto& v : all) spec.variant_names.push_back(v.name);
  spec.default_size = 1024;
  spec.allows_managed = false;
  spec.uses_gpu = false;
  spec.list_note = "in teaching order; the last, threaded, is the CPU figure to beat";
  const gemm::ParseResult parsed = gemm::parse_command_line(argc, argv, spec);
  if (parsed.exit_code >= 0) {
    std::fprintf(parsed.exit_code == gemm::kExitOk ? stdout : stderr, "%s\n",
                 parsed.message.c_str());
    return parsed.exit_code;
  }
  const gemm::Options& opt = parsed.options;
  const int M = opt.m, N = opt.n, K = opt.k;
  if (!opt.csv.empty() && !std::ofstream(opt.csv, std::ios::app)) {
    std::fprintf(stderr, "Cannot open the CSV file '%s' for writing.\n", opt.csv.c_str());
    return gemm::kExitBadInput;
  }

  gemm::MachineInfo machine;
  machine.device = cpu_model();
  machine.cuda_version = "-";
  std::printf("%s: %s\n", kChapter, spec.description.c_str());
  std::printf("CPU: %s, %u hardware threads\n", machine.device.c_str(),
              std::thread::hardware_concurrency());
  std::printf("problem: M=%d N=%d K=%d, fp32, seed %llu\n", M, N, K,
              static_cast<unsigned long long>(opt.seed));

  // The same inputs as the GPU chapters for the same seed, so their results can be compared.
  const std::vector<float> A = gemm::random_matrix(M, K, opt.seed);
  const std::vector<float> B = gemm::random_matrix(K, N, opt.seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<float> C(static_cast<size_t>(M) * N);
  std::map<int, gemm::OracleRows> oracles;  // one per distinct number of rows computed

  const double gflop = 2.0 * M * N * double(K) / 1e9;
  std::vector<gemm::ResultRow> rows;
  bool all_passed = true;
  for (const auto& v : all) {
    if (opt.variant != "all" && opt.variant != v.name) continue;
    std::printf("%-14s %s\n", v.name.c_str(), v.summary.c_str());
    std::fflush(stdout);

    // Row-major: the first r rows of A and C times all of B is itself an r x N x K product.
    int used = M;
    if (gflop > v.max_gflop_full) {
      used = std::max(1, static_cast<int>(std::floor(M * v.max_gflop_full / gflop)));
      std::printf("  %s: %dx%dx%d would take too long; timing the first %d rows instead "
                  "(GFLOPS count only those rows, so they stay comparable)\n",
                  v.name.c_str(), M, N, K, used);
    }

    gemm::ResultRow row;
    row.chapter = kChapter;
    row.variant = v.name;
    row.precision = "f32";
    row.m = used;  // what was actually computed and timed
    row.n = N;
    row.k = K;
    row.status = "UNVERIFIED";
    row.timing = "alone";  // each loop timed on its own, one after the other
    if (opt.verify) {
      std::fill(C.begin(), C.end(), std::numeric_limits<float>::quiet_NaN());  // unwritten -> FAIL
      v.fn(A.data(), B.data(), C.data(), used, N, K);
      auto found = oracles.find(used);
      if (found == oracles.end())
        found = oracles.emplace(used, gemm::oracle_rows(A.data(), B.data(), used, N, K,
                                                        gemm::rows_to_check(used, N, K)))
                    .first;
      const gemm::VerifyResult vr =
          gemm::verify_against_oracle(C.data(), N, K, found->second, gemm::Precision::kF32);
      row.err_over_bound = vr.max_ratio;
      row.max_error = vr.max_error;
      row.status = vr.passed() ? "PASS" : "FAIL";
      if (!vr.passed()) {
        all_passed = false;
        std::printf("  %s: %s\n", v.name.c_str(), vr.describe().c_str());
      }
    }

    // Time: warm-up, then at least opt.iters runs and 0.3 s, but no more than 3 runs of over 1 s.
    for (int w = 0; w < opt.warmup; ++w) run_ms(v, A.data(), B.data(), C.data(), used, N, K);
    std::vector<double> samples;
    double total_ms = 0.0;
    bool slow = false;
    while (static_cast<int>(samples.size()) < opt.iters || total_ms < 300.0) {
      const double ms = run_ms(v, A.data(), B.data(), C.data(), used, N, K);
      samples.push_back(ms);
      total_ms += ms;
      slow = slow || ms > 1000.0;
      if (slow && samples.size() >= 3) break;
    }
    row.time = gemm::summarize(samples);
    row.gflops = gemm::gflops(used, N, K, row.time.median_ms);
    rows.push_back(row);
  }

  // The table: every row as a percentage of `threaded`, the CPU figure to beat, when it ran.
  const auto best = std::find_if(rows.begin(), rows.end(),
                                 [](const gemm::ResultRow& r) { return r.variant == "threaded"; });
  const double best_gflops = best != rows.end() ? best->gflops : 0.0;
  gemm::print_table_header("threaded");
  for (gemm::ResultRow& row : rows) {
    if (best_gflops > 0.0) row.pct_of_baseline = 100.0 * row.gflops / best_gflops;
    gemm::print_table_row(row);
    // The CSV column is pct_of_cublas: a percentage of `threaded` does not belong there.
    gemm::ResultRow csv_row = row;
    csv_row.pct_of_baseline = -1.0;
    if (!opt.csv.empty()) gemm::append_csv(opt.csv, machine, csv_row);
  }

  if (!all_passed) {
    std::printf("\nverification FAILED for at least one variant\n");
    return gemm::kExitVerifyFailed;
  }
  return gemm::kExitOk;
}
