// Energy per GEMM from NVML's energy counter (energy.cuh says what and why).
#include "common/energy.cuh"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "common/cuda_check.cuh"

namespace gemm {

// The few NVML functions we need, declared here (their types as nvml.h has them), so that no NVML
// header or library is needed to build: the driver's library is opened at run time.
struct EnergyMeter::Nvml {
  using Device = void*;               // nvmlDevice_t: an opaque handle
  using Return = int;                 // nvmlReturn_t: 0 is NVML_SUCCESS
  static constexpr int kClockSm = 1;       // NVML_CLOCK_SM
  static constexpr int kNotSupported = 3;  // NVML_ERROR_NOT_SUPPORTED
  void* lib = nullptr;
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  Return (*by_pci)(const char*, Device*) = nullptr;
  Return (*energy)(Device, unsigned long long*) = nullptr;  // millijoules since the driver loaded
  Return (*clock)(Device, int, unsigned int*) = nullptr;    // MHz
  const char* (*error)(Return) = nullptr;
  Device device = nullptr;
  bool initialised = false;

  template <class F>
  bool find(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
  }
  std::string what(Return r) const { return error ? error(r) : "error " + std::to_string(r); }
};

EnergyMeter::EnergyMeter() : nvml_(std::make_unique<Nvml>()) {
  Nvml& n = *nvml_;
  n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!n.lib) {
    absent_ = true;
    why_not_ = "energy not measured: the driver's NVML library (libnvidia-ml.so.1) was not found";
    return;
  }
  if (!n.find(n.init, "nvmlInit_v2") || !n.find(n.shutdown, "nvmlShutdown") ||
      !n.find(n.by_pci, "nvmlDeviceGetHandleByPciBusId_v2") ||
      !n.find(n.energy, "nvmlDeviceGetTotalEnergyConsumption") ||
      !n.find(n.clock, "nvmlDeviceGetClockInfo") || !n.find(n.error, "nvmlErrorString")) {
    why_not_ = "energy not measured: this NVML lacks the energy counter's functions";
    return;
  }
  if (const Nvml::Return r = n.init(); r != 0) {
    why_not_ = "energy not measured: NVML did not start (" + n.what(r) + ")";
    return;
  }
  n.initialised = true;
  // KEY: the same GPU in both numberings: CUDA's (after CUDA_VISIBLE_DEVICES) and NVML's (all of
  // the machine's GPUs) agree on the PCI bus id.
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  char bus_id[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device));
  if (const Nvml::Return r = n.by_pci(bus_id, &n.device); r != 0) {
    why_not_ = "energy not measured: NVML does not know the GPU at " + std::string(bus_id) + " (" +
               n.what(r) + ")";
    return;
  }
  unsigned long long mj = 0;
  if (const Nvml::Return r = n.energy(n.device, &mj); r != 0) {
    absent_ = r == Nvml::kNotSupported;
    why_not_ = absent_ ? "energy not measured: this GPU has no energy counter (Volta and later "
                         "data-center GPUs have one)"
                       : "energy not measured: the energy counter could not be read (" +
                             n.what(r) + ")";
    return;
  }
  ok_ = true;
}

EnergyMeter::~EnergyMeter() {
  if (nvml_->initialised) nvml_->shutdown();
  if (nvml_->lib) dlclose(nvml_->lib);
}

EnergyReading EnergyMeter::measure(const std::function<void(cudaStream_t)>& run,
                                   cudaStream_t stream, double flop, double ms_guess,
                                   double warmup_s, double seconds) const {
  EnergyReading e;
  if (!ok_) {
    e.why_not = why_not_;
    return e;
  }
  using Clock = std::chrono::steady_clock;
  const Nvml& n = *nvml_;
  // Batches of about 50 ms between the checks of the wall clock: few enough host round trips
  // that the GPU never waits for the host (a sync, then the next batch's launches, every 50 ms).
  const int batch = std::max(1, static_cast<int>(50.0 / std::max(ms_guess, 1e-3)));
  auto run_for = [&](double s, int* runs, double* mhz_sum, int* samples) {
    const Clock::time_point start = Clock::now();
    do {
      for (int i = 0; i < batch; ++i) run(stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
      if (runs) *runs += batch;
      unsigned int mhz = 0;
      if (mhz_sum && n.clock(n.device, Nvml::kClockSm, &mhz) == 0) {
        *mhz_sum += mhz;
        ++*samples;
      }
    } while (std::chrono::duration<double>(Clock::now() - start).count() < s);
  };
  run_for(warmup_s, nullptr, nullptr, nullptr);  // the clock settles at this kernel's power draw
  unsigned long long mj0 = 0, mj1 = 0;
  double mhz_sum = 0;
  int samples = 0;
  if (n.energy(n.device, &mj0) != 0) {
    e.why_not = "energy not measured: the energy counter stopped answering";
    return e;
  }
  const Clock::time_point t0 = Clock::now();
  run_for(seconds, &e.runs, &mhz_sum, &samples);
  const Clock::time_point t1 = Clock::now();
  if (n.energy(n.device, &mj1) != 0) {
    e.why_not = "energy not measured: the energy counter stopped answering";
    return e;
  }
  e.measured = true;
  e.seconds = std::chrono::duration<double>(t1 - t0).count();
  e.ms_per_gemm = 1000.0 * e.seconds / e.runs;
  const double joules = static_cast<double>(mj1 - mj0) / 1000.0;
  e.joules_per_gemm = joules / e.runs;
  e.mean_watts = joules / e.seconds;
  e.mean_sm_mhz = samples ? mhz_sum / samples : 0.0;
  e.gflop_per_joule = flop / 1e9 / e.joules_per_gemm;
  return e;
}

}  // namespace gemm
