// State that a launcher makes once per GPU, not once per process (host-includable).
//
// Some launchers make something at their first call and keep it: a kernel's permission to use
// more than 48 KB of dynamic shared memory (cudaFuncSetAttribute), the tile plans built from an
// occupancy query, whether this GPU runs the sm_90a code, a memory pool. Each of these belongs to
// a GPU, not to the process. cudaFuncSetAttribute sets the attribute for the device that is
// current when it is called; an occupancy query answers for that device; an H100 and an A100 in
// one machine take different paths. A function-local `static` makes the value once, for whichever
// device was current at the first call, and then hands it to calls on every other device: there
// the kernel would be launched without its shared memory (an error), or planned for the wrong GPU.
//
// PerDevice<T> keeps one T per device ordinal (cudaGetDevice), made by the caller's function at
// the first call on that device, with that device current:
//
//   bool ready() {
//     static PerDevice<bool> ready_on;               // one entry per GPU
//     return ready_on.get([](int device) { ... });   // made at the first call on each GPU
//   }
//
// It is thread-safe: threads on different GPUs (or the same one) may call at once, and the
// function runs once per device. The values live until the process ends.
#pragma once

#include <map>
#include <mutex>

#include <cuda_runtime.h>

#include "common/cuda_check.cuh"

namespace gemm {

// For a call that makes process state and so need not be recorded in a graph, but which CUDA may
// refuse while a stream is being captured in the default (global) mode: a memory pool
// (cudaMemPoolCreate is refused; kernel attributes and occupancy queries were allowed on CUDA
// 13.0, and go through the same guard at no cost). Switches this thread to the relaxed capture mode
// for the guard's lifetime, then back to the caller's (docs/library_use.md, "CUDA graphs").
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() { CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&callers_)); }
  ~RelaxedCaptureMode() { CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&callers_)); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode callers_ = cudaStreamCaptureModeRelaxed;  // this thread's, swapped
};

// The ordinal of the device that is current for this host thread.
inline int current_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

template <class T>
class PerDevice {
 public:
  // The value for the current device; `make(device)` makes it at the first call on that device.
  template <class Make>
  const T& get(Make&& make) {
    const int device = current_device();
    const std::lock_guard<std::mutex> lock(mutex_);
    auto found = values_.find(device);
    if (found == values_.end()) {
      const RelaxedCaptureMode relaxed;  // the first call may come inside a stream capture
      found = values_.emplace(device, make(device)).first;  // KEY: one value per GPU
    }
    return found->second;  // std::map never moves its elements: the reference stays valid
  }

  // How many devices have a value: for tests.
  size_t size() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return values_.size();
  }

 private:
  std::mutex mutex_;
  std::map<int, T> values_;
};

}  // namespace gemm
