#include "common/report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

#ifndef GEMM_GIT_COMMIT
#define GEMM_GIT_COMMIT "unknown"
#endif

namespace gemm {

const char* git_commit() { return GEMM_GIT_COMMIT; }

Timing summarize(std::vector<double> s) {
  Timing t;
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  t.median_ms = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  t.min_ms = s.front();
  t.reps = static_cast<int>(n);
  return t;
}

double gflops(int M, int N, int K, double ms) {
  return ms > 0.0 ? 2.0 * M * N * double(K) / (ms * 1e6) : 0.0;
}

void print_table_header(const std::string& baseline_label) {
  std::printf("\n%-38s %10s %10s %10s %10s %10s  %s\n", "variant", "median ms", "GFLOPS",
              ("% " + baseline_label).c_str(), "max err", "err/bound", "check");
}

void print_table_row(const ResultRow& r) {
  char pct[32] = "-", err[32] = "-", ratio[32] = "-";
  if (r.pct_of_baseline >= 0) std::snprintf(pct, sizeof pct, "%.1f%%", r.pct_of_baseline);
  if (r.max_error >= 0) std::snprintf(err, sizeof err, "%.2e", r.max_error);
  if (r.err_over_bound >= 0) std::snprintf(ratio, sizeof ratio, "%.2e", r.err_over_bound);
  std::printf("%-38s %10.3f %10.1f %10s %10s %10s  %s", r.variant.c_str(), r.time.median_ms,
              r.gflops, pct, err, ratio, r.status.c_str());
  if (!r.note.empty()) std::printf("  (%s)", r.note.c_str());
  std::printf("\n");
  std::fflush(stdout);
}

bool open_csv_for_append(std::ofstream& out, const std::string& path, const char* header) {
  bool fresh;
  {
    std::ifstream probe(path, std::ios::binary | std::ios::ate);
    fresh = !probe || probe.tellg() <= 0;
  }
  out.open(path, std::ios::app);
  if (!out) {
    std::fprintf(stderr, "Cannot write the CSV file '%s'.\n", path.c_str());
    return false;
  }
  if (fresh) out << header;
  return true;
}

bool append_csv(const std::string& path, const MachineInfo& mi, const ResultRow& r) {
  std::ofstream out;
  if (!open_csv_for_append(out, path,
                           "device,sm_clock_mhz,cuda_version,commit,chapter,variant,precision,m,n,"
                           "k,median_ms,min_ms,reps,gflops,pct_of_cublas,err_over_bound,status,"
                           "peak_fp32_gflops,peak_dram_gbs,max_error,note,timing\n"))
    return false;
  char line[1024];
  // Device names contain spaces but no commas or quotes; quote them anyway for spreadsheet tools.
  std::snprintf(line, sizeof line,
                "\"%s\",%d,%s,%s,%s,%s,%s,%d,%d,%d,%.6f,%.6f,%d,%.2f,%.2f,%.4g,%s,%.1f,%.1f,%.4g,\"%s\",%s\n",
                mi.device.c_str(), mi.sm_clock_mhz, mi.cuda_version.c_str(), git_commit(),
                r.chapter.c_str(), r.variant.c_str(), r.precision.c_str(), r.m, r.n, r.k,
                r.time.median_ms, r.time.min_ms, r.time.reps, r.gflops, r.pct_of_baseline,
                r.err_over_bound, r.status.c_str(), mi.peak_gflops, mi.peak_gbs, r.max_error,
                r.note.c_str(), r.timing.c_str());
  out << line;
  return static_cast<bool>(out);
}

}  // namespace gemm
