// What we know about the GPU, read with cudaDeviceGetAttribute (CUDA 13 removed several
// cudaDeviceProp fields, such as memoryClockRate; the attributes remain).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/report.hpp"

namespace gemm {

struct DeviceInfo {
  int id = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;        // peak SM clock
  int mem_clock_khz = 0;       // peak memory clock
  int bus_width_bits = 0;
  int l2_bytes = 0;
  int smem_per_sm = 0;         // bytes of shared memory per multiprocessor
  int regs_per_sm = 0;
  int max_threads_per_sm = 0;
  bool concurrent_managed = false;  // can prefetch / migrate managed memory on demand
  int runtime_version = 0, driver_version = 0;

  int fp32_lanes_per_sm() const;     // FP32 FMA units per SM for this architecture
  double peak_fp32_gflops() const;   // lanes x 2 FLOP x SMs x clock
  double peak_dram_gbs() const;      // 2 transfers per clock (DDR) x bus width x memory clock
  MachineInfo machine() const;
};

// Fills `info` for the current device. Returns false, with one sentence in `why`, when no usable
// CUDA GPU is present (no driver, no device, or all devices hidden).
bool query_device(DeviceInfo& info, std::string& why);

// --device N: makes GPU N current for this host thread. Returns kExitOk, or kExitNoGpu (no GPU)
// or kExitBadInput (no GPU N) with one sentence in `why`.
int select_device(int device, std::string& why);

void print_device_header(const DeviceInfo& info);

// One compiled kernel, as the occupancy API sees it.
struct KernelResources {
  std::string name;         // what the table calls it (usually the variant's name)
  const void* kernel;       // the __global__ function: reinterpret_cast<const void*>(my_kernel<..>)
  int threads;              // threads per block it is launched with
  size_t dynamic_smem = 0;  // dynamic shared memory per block given at launch, in bytes
};

// Prints one line per kernel: threads per block, registers per thread, local memory per thread
// (0 means nothing spilled from registers and no array was demoted to local memory), shared memory
// per block (static + dynamic), and what fits on one SM of the current GPU: resident blocks, warps
// and the occupancy (resident threads / the SM's maximum). From cudaFuncGetAttributes and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. Chapters use it as their GpuChapter::describe.
void print_kernel_resources(const std::vector<KernelResources>& kernels);

// After this call (the chapter programs' --resources-csv FILE), print_kernel_resources also
// appends one row per kernel to `path`, tagged with `chapter`: the table behind
// docs/tile_size_tradeoffs.md and the occupancy in scripts/docs/plot.py's tile-size figure.
void set_resources_csv(const std::string& path, const std::string& chapter);

std::string cuda_version_string(int version);  // 13000 -> "13.0"

}  // namespace gemm
