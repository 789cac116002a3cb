// Timing statistics, the results table printed by every chapter, and the CSV rows that the plot
// scripts read. Host-only C++.
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace gemm {

struct Timing {
  double median_ms = 0.0;  // the number we report: robust to the odd slow repetition
  double min_ms = 0.0;     // the best case, for reference
  int reps = 0;
};
Timing summarize(std::vector<double> samples_ms);

// 2MNK floating-point operations (one multiply and one add per term of every dot product).
double gflops(int M, int N, int K, double ms);

struct ResultRow {
  std::string chapter;      // "01_naive", or "cublas" for the baseline rows
  std::string variant;      // "naive_coalesced", "cublas_sgemm", ...
  std::string precision;    // "f32" or "f16" (inputs; the output and accumulation are fp32)
  int m = 0, n = 0, k = 0;
  Timing time;
  double gflops = 0.0;
  double pct_of_baseline = -1.0;  // % of the matching cuBLAS baseline; < 0: none
  double err_over_bound = -1.0;   // max |c - ref| / bound; < 0: not verified
  double max_error = -1.0;        // max |c - ref|; < 0: not verified
  std::string status;             // PASS, FAIL or UNVERIFIED
  std::string note;               // what ran instead of the named kernel (Variant::runs_instead)
  std::string timing;             // "turns" (in rounds with cuBLAS) or "alone" (--timing, and
                                  // chapter 00, which times each loop on its own)
};

struct MachineInfo {
  std::string device;        // GPU name (or the CPU's, for chapter 00)
  int sm_clock_mhz = 0;      // 0 when unknown
  std::string cuda_version;  // runtime version, e.g. "13.0"
  double peak_gflops = 0.0;  // FP32 peak from SM count and clock (0 when unknown)
  double peak_gbs = 0.0;     // DRAM peak from memory clock and bus width (0 when unknown)
};

void print_table_header(const std::string& baseline_label);
void print_table_row(const ResultRow& row);

// Opens `path` for appending into `out`, writing `header` (a line, with its newline) first if the
// file is new or empty: every CSV the programs append to. Returns false, after one sentence on
// stderr, when the file cannot be written.
bool open_csv_for_append(std::ofstream& out, const std::string& path, const char* header);

// Appends one row to `path`, writing the header line first if the file is new or empty. Returns
// false (after printing why) when the file cannot be written.
bool append_csv(const std::string& path, const MachineInfo& machine, const ResultRow& row);

// The commit this binary was built from (set by CMake at configure time).
const char* git_commit();

}  // namespace gemm
