#include "common/runner.cuh"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/cublas_baseline.cuh"
#include "common/device_info.cuh"
#include "common/energy.cuh"
#include "common/problem.cuh"
#include "common/report.hpp"
#include "common/timer.cuh"

namespace gemm {
namespace {

const char* precision_name(Precision p) { return p == Precision::kF32 ? "f32" : "f16"; }

// Managed memory: the first launch on pages that still live in host memory pays for migrating
// them on demand (page faults, 4 KB to 2 MB at a time). We time that one launch on its own, then
// prefetch the pages so that the table measures the kernels, not the migration. Returns the ms.
double first_launch_on_host_pages(Problem& p, const Variant& v, const DeviceInfo& dev,
                                  cudaStream_t s) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  CUDA_CHECK(cudaEventRecord(a, s));
  p.run(v, s);
  CUDA_CHECK(cudaEventRecord(b, s));
  CUDA_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  if (dev.concurrent_managed) {
    p.prefetch_to_gpu(dev.id, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("managed memory: the first launch ran on pages still in host memory (row "
                "'@managed_first_launch');\n                then cudaMemPrefetchAsync moved them "
                "to the GPU before the other rows\n");
  } else {
    std::printf("managed memory: this GPU/OS cannot prefetch managed memory; pages migrate at "
                "each launch\n");
  }
  return ms;
}

// --cublas-last takes effect: cuBLAS is in the table (no --no-baseline) and runs after the variants
// (with --timing alone and --energy).
bool cublas_runs_last(const Options& opt) { return opt.cublas_last && opt.baseline; }

// How the kernels were timed, for the CSVs' `timing` column: "turns" or "alone", then
// "-no-flush" (--no-flush) and, alone, "-cublas-last" (--cublas-last).
std::string timing_label(const Options& opt) {
  std::string how = opt.alone ? "alone" : "turns";
  if (!opt.flush) how += "-no-flush";
  if (opt.alone && cublas_runs_last(opt)) how += "-cublas-last";
  return how;
}

// --samples-csv: one row per timed run (scripts/docs/plot.py draws timing.png from them).
void append_samples_csv(const std::string& path, const std::string& device,
                        const std::string& chapter, const std::vector<std::string>& names,
                        const Options& opt, const std::vector<GpuTimer::Sample>& samples) {
  std::ofstream csv;
  if (!open_csv_for_append(csv, path, "device,commit,chapter,variant,m,n,k,timing,seconds,ms\n"))
    return;
  for (const GpuTimer::Sample& x : samples)
    csv << '"' << device << "\"," << git_commit() << ',' << chapter << ',' << names[x.kernel]
        << ',' << opt.m << ',' << opt.n << ',' << opt.k << ',' << timing_label(opt) << ','
        << x.at_s << ',' << x.ms << '\n';
}

// The order in which --timing alone and --energy run the table's kernels: as listed (cuBLAS
// first), or with --cublas-last the variants first, cuBLAS (entry 0) last.
std::vector<size_t> run_order(size_t n, const Options& opt) {
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) order.push_back(i);
  if (cublas_runs_last(opt) && n > 1)
    std::rotate(order.begin(), order.begin() + 1, order.end());
  return order;
}

// A kernel of the table: its row, how to launch it, and whether it is cuBLAS.
struct Entry {
  ResultRow row;
  GpuTimer::Run launch;
  bool is_baseline;
};

// --energy: after the table, each kernel alone, back to back, with the energy counter read around
// it (energy.cuh), its timed median sizing the batches. One table, and with --energy-csv one row
// per kernel. The last column compares each kernel's joules per GEMM with cuBLAS's (the first
// entry, when there is one).
void report_energy(const std::vector<Entry>& entries, const Options& opt,
                   const std::string& device, cudaStream_t stream) {
  const EnergyMeter meter;
  std::printf("\nenergy: each kernel alone, back to back%s, 1 s to settle, then %.1f s measured "
              "(the driver's energy counter, NVML)\n",
              cublas_runs_last(opt) ? " (cuBLAS last)" : "", opt.energy_seconds);
  if (!meter.ok()) {
    std::printf("  %s.\n", meter.why_not().c_str());
    return;
  }
  std::printf("%-38s %10s %10s %10s %8s %8s %12s\n", "variant", "ms/GEMM", "mJ/GEMM", "GFLOP/J",
              "watts", "SM MHz", "mJ % cuBLAS");
  const double flop = 2.0 * opt.m * opt.n * opt.k;
  double baseline_j = -1;
  std::ofstream csv;
  if (!opt.energy_csv.empty())
    open_csv_for_append(csv, opt.energy_csv,
                        "device,commit,chapter,variant,m,n,k,seconds,runs,ms_per_gemm,"
                        "joules_per_gemm,gflop_per_joule,mean_watts,mean_sm_mhz,order\n");
  // The order column: which ran first, cuBLAS or the variants (--cublas-last).
  const char* order =
      !opt.baseline ? "no-cublas" : cublas_runs_last(opt) ? "cublas-last" : "cublas-first";
  // Measured in run order (--cublas-last: cuBLAS last), printed in the table's order.
  std::vector<EnergyReading> readings(entries.size());
  for (size_t i : run_order(entries.size(), opt))
    readings[i] = meter.measure(entries[i].launch, stream, flop, entries[i].row.time.median_ms,
                                1.0, opt.energy_seconds);
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].is_baseline && readings[i].measured) baseline_j = readings[i].joules_per_gemm;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& x = entries[i];
    const EnergyReading& e = readings[i];
    if (!e.measured) {
      std::printf("%-38s %s\n", x.row.variant.c_str(), e.why_not.c_str());
      continue;
    }
    char vs[32] = "-";
    if (baseline_j > 0)
      std::snprintf(vs, sizeof vs, "%.1f%%", 100.0 * e.joules_per_gemm / baseline_j);
    std::printf("%-38s %10.4f %10.2f %10.1f %8.0f %8.0f %12s\n", x.row.variant.c_str(),
                e.ms_per_gemm, 1000.0 * e.joules_per_gemm, e.gflop_per_joule, e.mean_watts,
                e.mean_sm_mhz, vs);
    if (csv)
      csv << '"' << device << "\"," << git_commit() << ',' << x.row.chapter << ',' << x.row.variant
          << ',' << opt.m << ',' << opt.n << ',' << opt.k << ',' << e.seconds << ',' << e.runs
          << ',' << e.ms_per_gemm << ',' << e.joules_per_gemm << ',' << e.gflop_per_joule << ','
          << e.mean_watts << ',' << e.mean_sm_mhz << ',' << order << '\n';
  }
}

}  // namespace

int run_gpu_chapter(int argc, char** argv, const GpuChapter& ch) {
  CliSpec spec;
  spec.program = ch.name;
  spec.description = ch.description;
  for (const auto& v : ch.variants) spec.variant_names.push_back(v.name);
  spec.allows_managed = ch.allows_managed;
  const ParseResult parsed = parse_command_line(argc, argv, spec);
  if (parsed.exit_code >= 0) {
    std::fprintf(parsed.exit_code == kExitOk ? stdout : stderr, "%s\n", parsed.message.c_str());
    return parsed.exit_code;
  }
  const Options& opt = parsed.options;

  DeviceInfo dev;
  std::string why;
  if (opt.device >= 0) {  // --device N: that GPU is current for the rest of the run
    const int code = select_device(opt.device, why);
    if (code != kExitOk) {
      std::fprintf(stderr, "%s\n", why.c_str());
      return code;
    }
  }
  if (!query_device(dev, why)) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return kExitNoGpu;
  }
  if (dev.cc_major * 10 + dev.cc_minor < ch.min_cc) {
    std::fprintf(stderr, "%s has compute capability %d.%d, but %s needs %d.%d or newer (%s).\n",
                 dev.name.c_str(), dev.cc_major, dev.cc_minor, ch.name.c_str(), ch.min_cc / 10,
                 ch.min_cc % 10, ch.min_cc_reason.c_str());
    return kExitNoGpu;
  }
  if (ch.cannot_run) {
    const std::string why_not = ch.cannot_run();
    if (!why_not.empty()) {
      std::fprintf(stderr, "%s cannot run on this GPU (%s): %s.\n", ch.name.c_str(),
                   dev.name.c_str(), why_not.c_str());
      return kExitNoGpu;
    }
  }
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::string shortfall = memory_shortfall(
      opt.m, opt.n, opt.k, Problem::gpu_bytes_needed(opt.m, opt.n, opt.k, ch.precision, dev.l2_bytes),
      free_bytes, dev.name);
  if (!shortfall.empty()) {
    std::fprintf(stderr, "%s\n", shortfall.c_str());
    return kExitBadInput;
  }
  for (const std::string& path : {opt.csv, opt.samples_csv}) {
    if (!path.empty() && !std::ofstream(path, std::ios::app)) {
      std::fprintf(stderr, "Cannot open the CSV file '%s' for writing.\n", path.c_str());
      return kExitBadInput;
    }
  }

  std::printf("%s: %s\n", ch.name.c_str(), ch.description.c_str());
  print_device_header(dev);
  std::printf("problem: M=%d N=%d K=%d, %s inputs, fp32 accumulate and output, seed %llu%s\n",
              opt.m, opt.n, opt.k, precision_name(ch.precision),
              static_cast<unsigned long long>(opt.seed), opt.managed ? ", managed memory" : "");
  if (!opt.resources_csv.empty()) {
    if (!std::ofstream(opt.resources_csv, std::ios::app)) {
      std::fprintf(stderr, "Cannot open the CSV file '%s' for writing.\n", opt.resources_csv.c_str());
      return kExitBadInput;
    }
    set_resources_csv(opt.resources_csv, ch.name);
  }
  if (ch.describe) ch.describe();

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  Problem problem(opt.m, opt.n, opt.k, ch.precision, opt.seed, opt.managed);

  std::vector<const Variant*> selected;
  for (const auto& v : ch.variants)
    if (opt.variant == "all" || opt.variant == v.name) selected.push_back(&v);
  const double first_launch_ms =
      opt.managed ? first_launch_on_host_pages(problem, *selected.front(), dev, stream) : 0.0;

  std::unique_ptr<Cublas> cublas;
  if (opt.baseline) cublas = std::make_unique<Cublas>();
  std::unique_ptr<Reference> reference;
  if (opt.verify) {
    reference = std::make_unique<Reference>(problem, cublas.get(), stream);
    std::printf("verification: %s; bound gamma_K * sum|a*b| with u = 2^%d\n",
                reference->describe().c_str(), ch.precision == Precision::kF32 ? -24 : -23);
  }

  GpuTimer timer(dev);
  TimerConfig tcfg;
  tcfg.warmup = opt.warmup;
  tcfg.min_reps = opt.iters;
  tcfg.flush = opt.flush;
  const MachineInfo machine = dev.machine();
  const std::string suffix = opt.managed ? "@managed" : "";
  double baseline_ms = -1.0;
  bool all_passed = true;

  auto report = [&](ResultRow& row) {
    row.precision = precision_name(ch.precision);
    row.m = opt.m;
    row.n = opt.n;
    row.k = opt.k;
    row.timing = timing_label(opt);
    row.gflops = gflops(opt.m, opt.n, opt.k, row.time.median_ms);
    if (baseline_ms > 0) row.pct_of_baseline = 100.0 * baseline_ms / row.time.median_ms;
    print_table_row(row);
    if (!opt.csv.empty()) append_csv(opt.csv, machine, row);
  };
  // The kernels of the table: cuBLAS first (when asked for), then the selected variants.
  std::vector<Entry> entries;
  auto add = [&](const std::string& chapter, const std::string& name, GpuTimer::Run launch,
                 bool is_baseline, const std::string& note) {
    ResultRow row;
    row.chapter = chapter;
    row.variant = name + suffix;
    row.note = note;
    row.status = "UNVERIFIED";
    entries.push_back({row, std::move(launch), is_baseline});
  };
  if (cublas) {
    const bool f32 = ch.precision == Precision::kF32;
    add("cublas", f32 ? "cublas_sgemm" : "cublas_gemm_f16_f32acc", [&, f32](cudaStream_t s) {
      if (f32)
        cublas->sgemm(problem.dA.get(), problem.dB.get(), problem.dC.get(), opt.m, opt.n, opt.k, s);
      else
        cublas->gemm_f16(problem.dA16.get(), problem.dB16.get(), problem.dC.get(), opt.m, opt.n,
                         opt.k, s);
    }, true, "");
  }
  for (const Variant* v : selected)
    add(ch.name, v->name, [&problem, v](cudaStream_t s) { problem.launch(*v, s); }, false,
        problem.runs_instead(*v));

  // First each kernel's output is verified: the first run's, with C poisoned with NaN before it.
  if (reference) {
    for (Entry& e : entries) {
      problem.dC.poison(stream);
      e.launch(stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
      const std::vector<float> c = problem.result();
      // cuBLAS is checked against the fp64 oracle only: never against its own output.
      const VerifyResult vr =
          e.is_baseline ? reference->verify_oracle_rows(c) : reference->verify(c);
      e.row.err_over_bound = vr.max_ratio;
      e.row.max_error = vr.max_error;
      e.row.status = vr.passed() ? "PASS" : "FAIL";
      if (!vr.passed()) {
        all_passed = false;
        std::printf("  %s: %s\n", e.row.variant.c_str(), vr.describe().c_str());
      }
    }
  }
  // KEY: then all of them are timed in turns, one run of each per round (common/timer.cuh): the
  // GPU's clock, which falls as it reaches its power limit, is then the same for all of them.
  // (--timing alone: one after the other, each after its own warm-up.)
  std::vector<GpuTimer::Run> runs;
  for (const Entry& e : entries) runs.push_back(e.launch);
  std::vector<Timing> timings;
  std::vector<GpuTimer::Sample> samples;  // every timed run, for --samples-csv
  if (opt.alone) {
    timings.resize(runs.size());
    for (size_t i : run_order(runs.size(), opt)) {
      timings[i] = timer.time(runs[i], stream, tcfg);
      for (GpuTimer::Sample x : timer.last_samples()) {
        x.kernel = static_cast<int>(i);
        samples.push_back(x);
      }
    }
  } else {
    timings = timer.time_in_turns(runs, stream, tcfg);
    samples = timer.last_samples();
  }
  if (!opt.samples_csv.empty()) {
    std::vector<std::string> names;
    for (const Entry& e : entries) names.push_back(e.row.variant);
    append_samples_csv(opt.samples_csv, machine.device, ch.name, names, opt, samples);
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i].row.time = timings[i];
    if (entries[i].is_baseline) baseline_ms = timings[i].median_ms;
  }

  print_table_header("cuBLAS");
  size_t next = 0;
  if (cublas) report(entries[next++].row);
  if (opt.managed) {
    ResultRow row;
    row.chapter = ch.name;
    row.variant = selected.front()->name + "@managed_first_launch";
    row.time.median_ms = row.time.min_ms = first_launch_ms;
    row.time.reps = 1;
    row.status = "UNVERIFIED";
    report(row);
  }
  for (; next < entries.size(); ++next) report(entries[next].row);

  if (opt.energy) {
    report_energy(entries, opt, machine.device, stream);
  }

  CUDA_CHECK(cudaStreamDestroy(stream));
  if (!all_passed) {
    std::printf("\nverification FAILED for at least one variant\n");
    return kExitVerifyFailed;
  }
  return kExitOk;
}

}  // namespace gemm
