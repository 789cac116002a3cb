// Chapter 07, host side: may this process run the chapter's kernels (and if not, what ran instead),
// and the TMA tensor maps of A and B (hopper_host.cuh).
//
// A tensor map is a 128-byte description of a matrix in global memory that the copy engine reads:
// address, sizes, row stride, the box it copies per request, the shared-memory swizzle, what to
// do outside the matrix. It is made on the host by the driver function cuTensorMapEncodeTiled and
// passed to the kernel by value (a __grid_constant__ parameter). That function belongs to the
// driver API (libcuda), which this repository does not link: the runtime hands us its address
// (cudaGetDriverEntryPointByVersion), so the build needs nothing beyond the CUDA runtime.
#include "07_hopper/hopper_host.cuh"

#include <cstdint>

#include "06_warp_tiling/tile_helpers.cuh"  // device_cc
#include "06_warp_tiling/warp_tiling.cuh"   // what mma_sync_pipelined runs and chooses
#include "common/cuda_check.cuh"

namespace gemm::hopper {
namespace {

// CMake defines GEMM_HOPPER_BUILT for the chapter's files when it compiles them for sm_90a.
#ifdef GEMM_HOPPER_BUILT
constexpr bool kBuiltForSm90a = true;
#else
constexpr bool kBuiltForSm90a = false;
#endif

// The signature of cuTensorMapEncodeTiled (cuda.h), as a function pointer type.
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's cuTensorMapEncodeTiled, or nullptr when the driver does not provide it. One for the
// process: the driver's function, not a GPU's.
EncodeTiled encode_tiled() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    // The version of the function's ABI we compiled against: 12.0, when it appeared.
    const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                             cudaEnableDefault, &found);
#else
    const cudaError_t err =
        cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found);
#endif
    return (err == cudaSuccess && found == cudaDriverEntryPointSuccess)
               ? reinterpret_cast<EncodeTiled>(p)
               : nullptr;
  }();
  return fn;
}

// One 2D tensor map: a rows x cols row-major matrix (row stride `ld` elements of `bytes` bytes)
// at `base`, read or written in boxes of box_cols x box_rows, 128-byte swizzled in shared memory,
// zeros read outside the matrix (and nothing written there).
CUtensorMap tensor_map_2d(const void* base, CUtensorMapDataType type, int bytes, int rows, int cols,
                          int ld, int box_cols, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * bytes};  // bytes, between rows
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode_tiled()(
      &map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B,          // KEY: the layout wgmma's descriptors expect
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,  // L2 fetches 256 bytes at a time (2 lines)
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // KEY: outside the matrix: zeros
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (CUresult %d) for a %d x %d matrix.\n",
                 static_cast<int>(r), rows, cols);
    std::exit(kExitCudaError);
  }
  return map;
}

}  // namespace

// Asked per GPU: in a machine with an H100 and an A100, the A100 takes mma_sync_pipelined's path
// and the H100 this chapter's (device_cc keeps one answer per GPU: common/per_device.cuh).
bool runs_here() {
  int count = 0;  // no GPU (a --list in CI): false, before anything asks the device
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return false;
  return kBuiltForSm90a && warp_tiling::device_cc() == 90 && encode_tiled() != nullptr;
}

std::string why_not() {
  const int cc = warp_tiling::device_cc();
  if (!kBuiltForSm90a)
    return cc == 90 ? "needs a build for sm_90a (CMAKE_CUDA_ARCHITECTURES with 90)"
                    : "needs sm_90a (Hopper)";
  if (cc != 90) return "needs sm_90a (Hopper)";
  return encode_tiled() ? "" : "needs a driver with cuTensorMapEncodeTiled (CUDA 12)";
}

TensorMaps make_tensor_maps(const AlignedOperands& ops, int M, int N) {
  // The operands' rows start at 16-byte boundaries (packed if they did not), as TMA requires.
  constexpr CUtensorMapDataType kHalf = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  return {tensor_map_2d(ops.a(), kHalf, 2, M, ops.k(), ops.k(), kBK, kBoxM),     // A: 64 x 64
          tensor_map_2d(ops.b(), kHalf, 2, ops.k(), N, ops.ldb(), kBoxN, kBK)};  // B: 64 x 64
}

bool tma_stores_ok(const float* C, int N) {
  // TMA needs the matrix's address and its row stride in multiples of 16 bytes.
  return reinterpret_cast<uintptr_t>(C) % 16 == 0 && N % 4 == 0;
}

CUtensorMap c_tensor_map(float* C, int M, int N) {
  return tensor_map_2d(C, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, M, N, N, kBoxCCols, kBoxCRows);
}

void allow_shared_memory(std::initializer_list<KernelSmem> kernels) {
  for (const KernelSmem& k : kernels)
    CUDA_CHECK(
        cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, k.bytes));
}

ClusterConfig::ClusterConfig(int blocks, int cluster, int threads, int smem, cudaStream_t stream)
    : attribute{}, config{} {
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
}

// The launchers run mma_sync_pipelined where they cannot run, which may itself run another kernel
// (wmma_vec_loads on sm_75).
std::string runs_instead(const void* A, const void* B, const float* C, int M, int N, int K) {
  if (runs_here()) return "";
  const std::string further = warp_tiling::mma_sync_ptx_runs_instead(A, B, C, M, N, K);  // sm_75
  if (!further.empty()) return further;
  return "ran mma_sync_pipelined " + warp_tiling::mma_sync_pipelined_choice(M, N, K) + ": " +
         why_not();
}

}  // namespace gemm::hopper
