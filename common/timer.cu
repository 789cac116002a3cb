#include "common/timer.cuh"

#include <algorithm>
#include <chrono>
#include <vector>

namespace gemm {

GpuTimer::GpuTimer(const DeviceInfo& device)
    : flush_bytes_(std::max<size_t>(2u * static_cast<size_t>(device.l2_bytes), 1u << 20)) {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

// One timed run: the L2 flushed first (untimed; unless `flush` is false), then the run between
// two events.
double GpuTimer::time_once(const Run& run, cudaStream_t stream, bool flush,
                           unsigned char flush_value) {
  if (flush) {
    // Allocated at the first flush: under --no-flush the buffer (twice the L2) never exists.
    if (flush_.size() == 0) flush_ = DeviceBuffer<unsigned char>(flush_bytes_);
    CUDA_CHECK(cudaMemsetAsync(flush_.get(), flush_value, flush_.bytes(), stream));
  }
  CUDA_CHECK(cudaEventRecord(start_, stream));
  run(stream);
  CUDA_CHECK(cudaEventRecord(stop_, stream));
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

Timing GpuTimer::time(const Run& run, cudaStream_t stream, const TimerConfig& cfg) {
  return time_in_turns({run}, stream, cfg).front();
}

std::vector<Timing> GpuTimer::time_in_turns(const std::vector<Run>& runs, cudaStream_t stream,
                                            const TimerConfig& cfg) {
  const size_t n = runs.size();
  for (int i = 0; i < cfg.warmup; ++i)
    for (const Run& run : runs) run(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<std::vector<double>> samples(n);
  last_.clear();
  double total = 0.0;  // ms of all kernels' timed runs
  int rounds = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto wall_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  auto more = [&] {
    if (rounds < cfg.min_reps) return true;
    return rounds < cfg.max_reps && total < n * cfg.min_total_ms && wall_ms() < n * cfg.max_wall_ms;
  };
  while (more()) {
    for (size_t turn = 0; turn < n; ++turn) {
      const size_t j = (rounds + turn) % n;  // KEY: who goes first moves along each round
      const double ms =
          time_once(runs[j], stream, cfg.flush, static_cast<unsigned char>(rounds & 0xFF));
      samples[j].push_back(ms);
      total += ms;
      const double at_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - born_).count();
      last_.push_back({static_cast<int>(j), at_s, ms});
    }
    ++rounds;
  }
  std::vector<Timing> timings;
  for (auto& s : samples) timings.push_back(summarize(std::move(s)));
  return timings;
}

}  // namespace gemm
