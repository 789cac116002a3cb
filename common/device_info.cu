#include "common/device_info.cuh"

#include <cstdio>
#include <fstream>

#include "common/cuda_check.cuh"

namespace gemm {

std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int DeviceInfo::fp32_lanes_per_sm() const {
  // Volta, Turing and A100 have 64 FP32 units per SM; the other Amperes (8.6: GeForce and
  // workstation cards; 8.7: Jetson Orin), Ada (8.9), Hopper (9.0) and Blackwell have 128.
  if (cc_major < 8 || (cc_major == 8 && cc_minor == 0)) return 64;
  return 128;
}

double DeviceInfo::peak_fp32_gflops() const {
  return double(fp32_lanes_per_sm()) * 2.0 * sm_count * sm_clock_khz * 1e-6;
}

double DeviceInfo::peak_dram_gbs() const {
  return 2.0 * mem_clock_khz * 1e3 * (bus_width_bits / 8.0) * 1e-9;
}

MachineInfo DeviceInfo::machine() const {
  MachineInfo mi;
  mi.device = name;
  mi.sm_clock_mhz = sm_clock_khz / 1000;
  mi.cuda_version = cuda_version_string(runtime_version);
  mi.peak_gflops = peak_fp32_gflops();
  mi.peak_gbs = peak_dram_gbs();
  return mi;
}

namespace {
// The number of visible GPUs, or 0 with the sentence that says why there is none.
int visible_gpus(std::string& why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    why = std::string("No CUDA GPU is available (") +
          (err != cudaSuccess ? cudaGetErrorString(err) : "no device found") +
          "); the GPU chapters need an NVIDIA GPU and its driver.";
    return 0;
  }
  return count;
}
}  // namespace

int select_device(int device, std::string& why) {
  const int count = visible_gpus(why);
  if (count == 0) return kExitNoGpu;
  if (device >= count) {
    why = "--device " + std::to_string(device) + ": this machine shows " + std::to_string(count) +
          (count == 1 ? " GPU (number 0)."
                      : " GPUs (numbers 0 to " + std::to_string(count - 1) + ").");
    return kExitBadInput;
  }
  CUDA_CHECK(cudaSetDevice(device));
  return kExitOk;
}

bool query_device(DeviceInfo& info, std::string& why) {
  if (visible_gpus(why) == 0) return false;
  CUDA_CHECK(cudaGetDevice(&info.id));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, info.id));
  info.name = prop.name;
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, a, info.id));
    return v;
  };
  info.cc_major = attr(cudaDevAttrComputeCapabilityMajor);
  info.cc_minor = attr(cudaDevAttrComputeCapabilityMinor);
  info.sm_count = attr(cudaDevAttrMultiProcessorCount);
  info.sm_clock_khz = attr(cudaDevAttrClockRate);
  info.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  info.bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  info.l2_bytes = attr(cudaDevAttrL2CacheSize);
  info.smem_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  info.regs_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor);
  info.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
  info.concurrent_managed = attr(cudaDevAttrConcurrentManagedAccess) != 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  return true;
}

void print_device_header(const DeviceInfo& d) {
  std::printf("GPU %d: %s (compute capability %d.%d), %d SMs, SM clock %d MHz, memory clock %d MHz\n",
              d.id, d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.sm_clock_khz / 1000,
              d.mem_clock_khz / 1000);
  std::printf("     L2 %.0f MiB, peak FP32 %.1f TFLOPS, peak DRAM %.0f GB/s; CUDA runtime %s, driver %s\n",
              d.l2_bytes / 1048576.0, d.peak_fp32_gflops() / 1000.0, d.peak_dram_gbs(),
              cuda_version_string(d.runtime_version).c_str(),
              cuda_version_string(d.driver_version).c_str());
  std::printf("     per SM: %d registers (32-bit), %d KB shared memory, %d threads at most\n",
              d.regs_per_sm, d.smem_per_sm / 1024, d.max_threads_per_sm);
}

namespace {
std::string g_resources_csv, g_resources_chapter;
}  // namespace

void set_resources_csv(const std::string& path, const std::string& chapter) {
  g_resources_csv = path;
  g_resources_chapter = chapter;
}

void print_kernel_resources(const std::vector<KernelResources>& kernels) {
  std::ofstream csv;
  if (!g_resources_csv.empty())  // the runner has already checked that it can open it
    open_csv_for_append(csv, g_resources_csv,
                        "device,commit,chapter,kernel,threads,regs_per_thread,"
                        "local_bytes_per_thread,smem_bytes_per_block,blocks_per_sm,warps_per_sm,"
                        "occupancy_pct\n");
  int device = 0, max_threads = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  cudaDeviceProp prop{};
  if (csv.is_open()) CUDA_CHECK(cudaGetDeviceProperties(&prop, device));  // the name, for the CSV
  std::printf("kernel resources on this GPU (cudaFuncGetAttributes and the occupancy API; at most "
              "%d threads per SM):\n",
              max_threads);
  std::printf("  %-42s %7s %11s %14s %12s %9s %8s %9s\n", "kernel", "threads", "regs/thread",
              "local B/thread", "smem B/block", "blocks/SM", "warps/SM", "occupancy");
  for (const KernelResources& k : kernels) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, k.kernel));
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.kernel, k.threads,
                                                             k.dynamic_smem));
    const size_t smem = attr.sharedSizeBytes + k.dynamic_smem;
    const int warps = blocks * k.threads / 32;
    const double occupancy = 100.0 * blocks * k.threads / max_threads;
    std::printf("  %-42s %7d %11d %14zu %12zu %9d %8d %8.0f%%\n", k.name.c_str(), k.threads,
                attr.numRegs, attr.localSizeBytes, smem, blocks, warps, occupancy);
    if (csv.is_open())
      csv << '"' << prop.name << "\"," << git_commit() << ',' << g_resources_chapter << ",\""
          << k.name << "\"," << k.threads << ',' << attr.numRegs << ',' << attr.localSizeBytes
          << ',' << smem << ',' << blocks << ',' << warps << ',' << occupancy << '\n';
  }
}

}  // namespace gemm
