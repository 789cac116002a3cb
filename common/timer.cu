#include "common/timer.cuh"

#include <algorithm>
#include <chrono>
#include <vector>

namespace gemm {

GpuTimer::GpuTimer(const DeviceInfo& device)
    : flush_(std::max<size_t>(2u * static_cast<size_t>(device.l2_bytes), 1u << 20)) {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

Timing GpuTimer::time(const std::function<void(cudaStream_t)>& run, cudaStream_t stream,
                      const TimerConfig& cfg) {
  for (int i = 0; i < cfg.warmup; ++i) run(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<double> samples;
  double total = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  auto wall_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  auto more = [&] {
    const int n = static_cast<int>(samples.size());
    if (n < cfg.min_reps) return true;
    return n < cfg.max_reps && total < cfg.min_total_ms && wall_ms() < cfg.max_wall_ms;
  };
  while (more()) {
    CUDA_CHECK(cudaMemsetAsync(flush_.get(), samples.size() & 0xFF, flush_.bytes(), stream));
    CUDA_CHECK(cudaEventRecord(start_, stream));
    run(stream);
    CUDA_CHECK(cudaEventRecord(stop_, stream));
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    samples.push_back(ms);
    total += ms;
  }
  return summarize(samples);
}

}  // namespace gemm
