// Host loops over all CPU cores, for the work around a kernel that grows with the matrices: random
// inputs, fp16 rounding, the oracle, the verifier. At 4096^3 each takes milliseconds on one core;
// at 2^31 elements (the largest matrix the command line accepts, and tests/test_gpu.cpp's "[huge]"
// tests) about 10 seconds each, which is why they are spread over the cores. Host-only C++.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace gemm {

// How many parts parallel_parts cuts `count` items into: one per core, each of at least `grain`
// items (so that a small loop stays on one thread), and at least one.
inline size_t part_count(size_t count, size_t grain) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min(cores, count / std::max<size_t>(grain, 1)));
}

// Calls body(part, begin, end) for part = 0 .. part_count(count, grain) - 1, on consecutive ranges
// that cover [0, count), in parallel, and returns when all have finished. body must write only
// what its own range owns (or its own part's slot).
template <class Body>
void parallel_parts(size_t count, size_t grain, Body body) {
  const size_t parts = part_count(count, grain);
  const size_t per = (count + parts - 1) / parts;
  std::vector<std::thread> workers;
  for (size_t p = 1; p < parts; ++p)  // part 0 runs on this thread
    workers.emplace_back(body, p, std::min(count, p * per), std::min(count, (p + 1) * per));
  body(size_t(0), size_t(0), std::min(count, per));
  for (std::thread& w : workers) w.join();
}

// The common case: f(i) for every i in [0, count), element-wise work spread over the cores.
template <class F>
void parallel_for(size_t count, size_t grain, F f) {
  parallel_parts(count, grain, [&f](size_t, size_t first, size_t last) {
    for (size_t i = first; i < last; ++i) f(i);
  });
}

}  // namespace gemm
