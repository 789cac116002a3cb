// How every GPU number in this repository is measured:
//   - CUDA events around each run, on the GPU's own clock (no host overhead or launch gaps);
//   - `warmup` untimed runs first (module load, clocks ramping up, caches of the driver);
//   - at least `min_reps` timed runs, and more until `min_total_ms` of kernel time is collected
//     (at most `max_reps`, and no more once `max_wall_ms` of wall time has passed: tiny problems
//     spend most of their time flushing the cache);
//   - before every timed run the L2 cache is flushed by writing a buffer twice its size, so a
//     run never profits from data the previous run left in L2 (the flush itself is not timed;
//     --no-flush turns it off, to see what it changes);
//   - the median is reported (the min alongside);
//   - kernels that are compared (a chapter's variants and cuBLAS) are timed IN TURNS, one run of
//     each per round, so that all of them run at the same clock and temperature: a GPU that
//     reaches its power limit slows down within a second, and whichever kernel went first would
//     otherwise be timed on a cooler, faster GPU than the ones after it.
// docs/benchmarking.md explains each choice.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "common/buffers.cuh"
#include "common/device_info.cuh"
#include "common/report.hpp"

namespace gemm {

struct TimerConfig {
  int warmup = 2;
  int min_reps = 10;
  double min_total_ms = 300.0;
  int max_reps = 2000;
  double max_wall_ms = 3000.0;
  bool flush = true;  // the L2 flush before each timed run (false: --no-flush)
};

class GpuTimer {
 public:
  explicit GpuTimer(const DeviceInfo& device);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  using Run = std::function<void(cudaStream_t)>;

  // One kernel on its own.
  Timing time(const Run& run, cudaStream_t stream, const TimerConfig& cfg);

  // Several kernels in turns: `cfg.warmup` rounds untimed, then rounds of one timed run of each,
  // the first of each round moving along (0 1 2, 1 2 0, 2 0 1, ...) so that no kernel always runs
  // right after the same other one. At least `cfg.min_reps` rounds, then more until the runs add
  // up to `min_total_ms` per kernel (at most `max_reps` rounds, `max_wall_ms` per kernel of wall
  // time). One Timing per kernel, in the order of `runs`.
  std::vector<Timing> time_in_turns(const std::vector<Run>& runs, cudaStream_t stream,
                                    const TimerConfig& cfg);

  // Every timed run of the last call, in the order they ran (--samples-csv writes them; the
  // figure timing.png draws them): which kernel of the call, when it finished (seconds since this
  // timer was made, so calls one after the other line up), and its time.
  struct Sample {
    int kernel;
    double at_s;
    double ms;
  };
  const std::vector<Sample>& last_samples() const { return last_; }

 private:
  double time_once(const Run& run, cudaStream_t stream, bool flush, unsigned char flush_value);

  size_t flush_bytes_;                 // twice the L2, at least 1 MiB
  DeviceBuffer<unsigned char> flush_;  // that many bytes, from the first flush on
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::chrono::steady_clock::time_point born_ = std::chrono::steady_clock::now();
  std::vector<Sample> last_;
};

}  // namespace gemm
