// RAII buffers: device memory is freed when the buffer goes out of scope, on every path out.
// Host matrices are plain std::vector (already RAII).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "common/cuda_check.cuh"

namespace gemm {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `managed`: unified memory (cudaMallocManaged), which pages migrate between host and GPU on
  // demand. Only chapter 01's --memory managed uses it; everything else is plain cudaMalloc.
  explicit DeviceBuffer(size_t count, bool managed = false) : count_(count) {
    if (managed)
      CUDA_CHECK(cudaMallocManaged(&ptr_, bytes()));
    else
      CUDA_CHECK(cudaMalloc(&ptr_, bytes()));
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);  // no check: a destructor must not exit; errors resurface elsewhere
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // Every byte 0xFF: for float that is a NaN, so an element the kernel forgets to write fails.
  void poison(cudaStream_t stream) { CUDA_CHECK(cudaMemsetAsync(ptr_, 0xFF, bytes(), stream)); }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace gemm
