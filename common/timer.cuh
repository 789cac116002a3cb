// How every GPU number in this repository is measured:
//   - CUDA events around each run, on the GPU's own clock (no host overhead or launch gaps);
//   - `warmup` untimed runs first (module load, clocks ramping up, caches of the driver);
//   - at least `min_reps` timed runs, and more until `min_total_ms` of kernel time is collected
//     (at most `max_reps`, and no more once `max_wall_ms` of wall time has passed: tiny problems
//     spend most of their time flushing the cache);
//   - before every timed run the L2 cache is flushed by writing a buffer twice its size, so a
//     run never profits from data the previous run left in L2 (the flush itself is not timed);
//   - the median is reported (the min alongside).
// docs/benchmarking.md explains each choice.
#pragma once

#include <functional>

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
};

class GpuTimer {
 public:
  explicit GpuTimer(const DeviceInfo& device);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  Timing time(const std::function<void(cudaStream_t)>& run, cudaStream_t stream,
              const TimerConfig& cfg);

 private:
  DeviceBuffer<unsigned char> flush_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace gemm
