// Energy per GEMM, from the GPU driver's energy counter (NVML), for --energy.
//
// A timing says how long a GEMM takes at the clock the GPU ran at; near its power limit the GPU
// lowers that clock, and a kernel that draws more power per flop runs slower when it runs alone
// (docs/benchmarking.md, section 5). The energy per GEMM says why: joules per multiplication,
// from NVML's total energy counter (millijoules since the driver loaded) read before and after
// running one kernel back to back for a few seconds, with the mean power and SM clock of that run.
// The counter is GPU-wide and moves in steps (NVML does not document how often), so a kernel is
// measured alone, over seconds of runs: never in turns. Two identical kernels measured this way
// differed by 5% on an H100 at 8192^3 (docs/benchmarking.md): compare over several processes.
//
// NVML (libnvidia-ml, part of the driver, not of the CUDA Toolkit) is opened at run time, so the
// programs build and run without it; where it is missing, or the GPU has no energy counter, the
// measurement says so in one sentence and the table goes on without it.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>

namespace gemm {

struct EnergyReading {
  bool measured = false;
  std::string why_not;         // when !measured: one sentence
  int runs = 0;                // GEMMs in the measured window
  double seconds = 0;          // its length (wall clock, the GPU busy throughout)
  double ms_per_gemm = 0;      // seconds / runs
  double joules_per_gemm = 0;  // energy counter's difference / runs
  double mean_watts = 0;       // energy / seconds
  double mean_sm_mhz = 0;      // the SM clock, sampled between batches of runs
  double gflop_per_joule = 0;  // 2 M N K / joules_per_gemm
};

class EnergyMeter {
 public:
  // For the current GPU (found in NVML by its PCI bus id, so CUDA_VISIBLE_DEVICES is respected).
  EnergyMeter();
  ~EnergyMeter();
  bool ok() const { return ok_; }
  // Not ok because the machine has no NVML or the GPU no energy counter (not a failure of ours).
  bool absent_here() const { return absent_; }
  const std::string& why_not() const { return why_not_; }

  // Runs `run` back to back on `stream`: `warmup_s` seconds untimed (the clock settles where this
  // kernel's power draw puts it), then at least `seconds` measured. `ms_guess`: one run's time,
  // to size the batches between checks (about 50 ms each).
  EnergyReading measure(const std::function<void(cudaStream_t)>& run, cudaStream_t stream,
                        double flop, double ms_guess, double warmup_s, double seconds) const;

 private:
  struct Nvml;
  std::unique_ptr<Nvml> nvml_;
  bool ok_ = false, absent_ = false;
  std::string why_not_;
};

}  // namespace gemm
