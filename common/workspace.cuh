// Scratch memory for one call of a kernel, allocated in stream order (host-includable).
//
// Some launchers need a buffer for the duration of one call: chapter 06 packs A and B into aligned
// copies (06_warp_tiling/packing.cuh), and the split-K launchers of chapters 04 and 06 keep partial
// sums before reducing them (common/split_k.cuh). Such a buffer must belong to the call, not to
// the process: two problems launched at once on two streams would otherwise write into the same
// memory while the other's kernel reads it. (Chapter 06 once kept its packed copies in one static
// buffer; two calls on two streams corrupted each other's results.)
//
// StreamWorkspace allocates on the call's stream with cudaMallocFromPoolAsync and frees with
// cudaFreeAsync on the same stream, so the memory is reused only after every kernel queued on that
// stream before the free has finished. The pool (one per device) keeps freed memory for the next
// call instead of returning it to the driver at every synchronization: after the first call an
// allocation costs about as much as a kernel launch.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "common/per_device.cuh"  // PerDevice, RelaxedCaptureMode

namespace gemm {

// The memory pool that StreamWorkspace allocates from, for the current device (one per GPU).
cudaMemPool_t workspace_pool();

class StreamWorkspace {
 public:
  StreamWorkspace() = default;  // empty: allocate() later, or never
  StreamWorkspace(size_t bytes, cudaStream_t stream) { allocate(bytes, stream); }
  ~StreamWorkspace();  // cudaFreeAsync on the stream it was allocated on
  StreamWorkspace(const StreamWorkspace&) = delete;
  StreamWorkspace& operator=(const StreamWorkspace&) = delete;

  // `bytes` on `stream` (at least 256-byte aligned, as cudaMalloc). Once per object.
  void allocate(size_t bytes, cudaStream_t stream);
  // The same, but where the GPU has too little free memory it allocates nothing and returns false
  // (where allocate would stop the program), for a launcher that has a path needing no workspace.
  bool try_allocate(size_t bytes, cudaStream_t stream);
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace gemm
