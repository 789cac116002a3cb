// Stream-ordered scratch memory (workspace.cuh explains why a call's buffer belongs to the call).
#include "common/workspace.cuh"

#include <cstdint>

#include "common/cuda_check.cuh"

namespace gemm {

// One pool per device, created at its first use there (PerDevice). Its release threshold is
// "never": memory freed with cudaFreeAsync stays in the pool for the next call, where the default
// (0) would hand it back to the driver at every synchronization and make the next allocation map
// it again.
//
// The first use may come while a stream is being captured into a CUDA graph: this thread's own
// stream, or any other thread's in the default (global) capture mode. Creating a pool is one of the
// calls CUDA then refuses ("operation not permitted when stream is capturing"), because it is not
// stream-ordered and cannot be recorded in a graph. It does not need to be recorded: the pool is
// process state, made once per GPU. So PerDevice makes it in the relaxed capture mode
// (RelaxedCaptureMode, common/per_device.cuh; docs/library_use.md, "CUDA graphs").
cudaMemPool_t workspace_pool() {
  static PerDevice<cudaMemPool_t> pools;
  return pools.get([](int device) {
    cudaMemPool_t pool = nullptr;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;  // KEY: this GPU's memory
    CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    std::uint64_t keep = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return pool;
  });
}

// Inside a stream capture, cudaMallocFromPoolAsync and cudaFreeAsync are recorded as the graph's
// allocation and free nodes: the graph owns that memory (the pool only lends its properties), and
// each replay allocates and frees it again in graph order. So the same code serves both.
void StreamWorkspace::allocate(size_t bytes, cudaStream_t stream) {
  stream_ = stream;
  // KEY: allocated on this call's stream: nothing is shared with a call on another stream.
  CUDA_CHECK(cudaMallocFromPoolAsync(&ptr_, bytes, workspace_pool(), stream));
}

bool StreamWorkspace::try_allocate(size_t bytes, cudaStream_t stream) {
  const cudaError_t err = cudaMallocFromPoolAsync(&ptr_, bytes, workspace_pool(), stream);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear it: running out of memory here is an answer, not a failure
    ptr_ = nullptr;
    return false;
  }
  CUDA_CHECK(err);  // any other error is one
  stream_ = stream;
  return true;
}

StreamWorkspace::~StreamWorkspace() {
  // Stream-ordered: the memory returns to the pool once the kernels queued before it are done.
  if (ptr_) cudaFreeAsync(ptr_, stream_);  // no check: a destructor must not exit
}

}  // namespace gemm
