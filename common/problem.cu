#include "common/problem.cuh"

#include <algorithm>
#include <cmath>

#include "common/parallel.hpp"

namespace gemm {

namespace {
constexpr size_t kGrain = size_t(1) << 20;  // elements: smaller loops stay on one thread
}  // namespace

std::vector<__half> to_half(const std::vector<float>& x) {
  std::vector<__half> h(x.size());
  parallel_for(x.size(), kGrain, [&](size_t i) { h[i] = __float2half_rn(x[i]); });
  return h;
}

void round_to_half_in_place(std::vector<float>& x) {
  parallel_for(x.size(), kGrain, [&](size_t i) { x[i] = __half2float(__float2half_rn(x[i])); });
}

// |x| for every element, on all cores.
std::vector<float> absolute(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  parallel_for(x.size(), kGrain, [&](size_t i) { out[i] = std::fabs(x[i]); });
  return out;
}

Problem::Problem(int M_, int N_, int K_, Precision p, std::uint64_t seed, bool managed_)
    : M(M_), N(N_), K(K_), precision(p),
      A(random_matrix(M_, K_, seed)), B(random_matrix(K_, N_, seed ^ 0x9e3779b97f4a7c15ull)),
      dA(A.size(), managed_), dB(B.size(), managed_),
      dC(static_cast<size_t>(M_) * N_, managed_), managed(managed_) {
  if (precision == Precision::kF16) {
    // The oracle must see exactly the values the kernels see: the fp16-rounded inputs.
    round_to_half_in_place(A);
    round_to_half_in_place(B);
    dA16 = DeviceBuffer<__half>(A.size());
    dB16 = DeviceBuffer<__half>(B.size());
    dA16.upload(to_half(A));
    dB16.upload(to_half(B));
  }
  if (managed) {
    // Written by the CPU, so the pages start out in host memory.
    std::copy(A.begin(), A.end(), dA.get());
    std::copy(B.begin(), B.end(), dB.get());
  } else {
    dA.upload(A);
    dB.upload(B);
  }
}

void Problem::launch(const Variant& v, cudaStream_t stream) {
  if (v.f32)
    v.f32(dA.get(), dB.get(), dC.get(), M, N, K, stream);
  else
    v.f16(dA16.get(), dB16.get(), dC.get(), M, N, K, stream);
}

std::string Problem::runs_instead(const Variant& v) const {
  if (!v.runs_instead) return "";
  if (v.f32) return v.runs_instead(dA.get(), dB.get(), dC.get(), M, N, K);
  return v.runs_instead(dA16.get(), dB16.get(), dC.get(), M, N, K);
}

void Problem::run(const Variant& v, cudaStream_t stream) {
  dC.poison(stream);
  launch(v, stream);
}

void Problem::prefetch_to_gpu(int device, cudaStream_t stream) {
  for (const DeviceBuffer<float>* b : {&dA, &dB, &dC}) {
#if CUDART_VERSION >= 13000
    cudaMemLocation where{};
    where.type = cudaMemLocationTypeDevice;
    where.id = device;
    CUDA_CHECK(cudaMemPrefetchAsync(b->get(), b->bytes(), where, 0, stream));
#else
    CUDA_CHECK(cudaMemPrefetchAsync(b->get(), b->bytes(), device, stream));
#endif
  }
}

size_t Problem::gpu_bytes_needed(int M, int N, int K, Precision p, size_t l2_bytes) {
  const size_t mk = size_t(M) * K, kn = size_t(K) * N, mn = size_t(M) * N;
  size_t bytes = 4 * (mk + kn + mn);                  // A, B, C
  if (p == Precision::kF16) bytes += 2 * 2 * (mk + kn);  // fp16 A and B, and the zero-padded
                                                         // copies chapter 06 may pack them into
  bytes += 4 * (mk + kn + 2 * mn);                    // reference: |A|, |B|, C_ref, sum|ab|
  bytes += 2 * l2_bytes;                              // the timer's L2 flush buffer
  return bytes + (64u << 20);                         // cuBLAS workspace and context slack
}

Reference::Reference(const Problem& p, Cublas* cublas, cudaStream_t stream)
    : M_(p.M), N_(p.N), K_(p.K), precision_(p.precision),
      oracle_(oracle_rows(p.A.data(), p.B.data(), p.M, p.N, p.K, rows_to_check(p.M, p.N, p.K))) {
  if (static_cast<int>(oracle_.rows.size()) == M_ || cublas == nullptr) return;

  // Full reference: C_ref = A x B, and S = |A| x |B| >= 0. S computed in fp32 is within
  // gamma_K * S of the exact sum of magnitudes (all terms are >= 0), so S * (1 + 2 gamma_K) is an
  // upper bound of it: the verifier's bound then never understates.
  DeviceBuffer<float> ref(size_t(M_) * N_), mag(size_t(M_) * N_);
  cublas->sgemm(p.dA.get(), p.dB.get(), ref.get(), M_, N_, K_, stream);
  {
    DeviceBuffer<float> dAbsA(p.A.size()), dAbsB(p.B.size());
    dAbsA.upload(absolute(p.A));
    dAbsB.upload(absolute(p.B));
    cublas->sgemm(dAbsA.get(), dAbsB.get(), mag.get(), M_, N_, K_, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  full_ = ref.download();
  abs_upper_ = mag.download();
  const float grow = static_cast<float>(1.0 + 2.0 * gamma(K_, unit_roundoff(Precision::kF32)));
  parallel_for(abs_upper_.size(), kGrain, [&](size_t i) { abs_upper_[i] *= grow; });

  // Trust, but verify: the cuBLAS reference must itself agree with the oracle.
  const VerifyResult self = verify_against_oracle(full_.data(), N_, K_, oracle_, Precision::kF32);
  if (!self.passed()) {
    std::fprintf(stderr, "The cuBLAS reference disagrees with the fp64 oracle (%s).\n",
                 self.describe().c_str());
    std::exit(kExitCudaError);
  }
}

VerifyResult Reference::verify_oracle_rows(const std::vector<float>& C) const {
  return verify_against_oracle(C.data(), N_, K_, oracle_, precision_);
}

VerifyResult Reference::verify(const std::vector<float>& C) const {
  VerifyResult r = verify_oracle_rows(C);
  if (!full_.empty())
    r.merge(verify_against_matrix(C.data(), full_.data(), abs_upper_.data(), M_, N_, K_,
                                  precision_));
  return r;
}

std::string Reference::describe() const {
  std::string s = "fp64 oracle on " + std::to_string(oracle_.rows.size()) + " of " +
                  std::to_string(M_) + " rows";
  if (!full_.empty()) s += ", and every element against cuBLAS SGEMM (fp32)";
  return s;
}

}  // namespace gemm
