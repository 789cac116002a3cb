// One GEMM problem (inputs on host and GPU, the output buffer) and the reference its results are
// verified against. Shared by every chapter program and by the GPU tests, so a kernel is checked
// the same way everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_fp16.h>

#include "common/buffers.cuh"
#include "common/cublas_baseline.cuh"
#include "common/gemm.cuh"
#include "common/verify.hpp"

namespace gemm {

// fp32 -> fp16 (round to nearest even), and fp32 -> the fp32 value of its fp16 rounding.
std::vector<__half> to_half(const std::vector<float>& x);
void round_to_half_in_place(std::vector<float>& x);
// |x|, element by element (the verifier's bound needs |A| x |B|).
std::vector<float> absolute(const std::vector<float>& x);

struct Problem {
  int M, N, K;
  Precision precision;
  std::vector<float> A, B;          // host inputs; for fp16 problems, already rounded to fp16
  DeviceBuffer<float> dA, dB, dC;   // fp32 inputs (the reference reads them) and the output
  DeviceBuffer<__half> dA16, dB16;  // fp16 inputs, for fp16 problems only
  bool managed;

  Problem(int M, int N, int K, Precision precision, std::uint64_t seed, bool managed = false);

  // Poisons C with NaN, then runs the variant on these inputs (asynchronously, on `stream`).
  void run(const Variant& v, cudaStream_t stream);
  // Only the launch, for timing loops (no poisoning).
  void launch(const Variant& v, cudaStream_t stream);
  std::vector<float> result() const { return dC.download(); }
  // The variant's note for these buffers and this shape ("" when it runs as named).
  std::string runs_instead(const Variant& v) const;

  // Managed memory: move the pages of A, B and C to the GPU before the kernels touch them.
  void prefetch_to_gpu(int device, cudaStream_t stream);

  // GPU memory needed for a problem of this size, everything included (references, scratch).
  static size_t gpu_bytes_needed(int M, int N, int K, Precision precision, size_t l2_bytes);
};

class Reference {
 public:
  // Builds the double-precision oracle for the rows_to_check() of C; when those are not all the
  // rows, and `cublas` is given, also the full fp32 reference (cuBLAS SGEMM on the same fp32 or
  // fp16-rounded inputs) and an upper bound of sum_k |a_ik b_kj| for every element.
  Reference(const Problem& p, Cublas* cublas, cudaStream_t stream);

  VerifyResult verify(const std::vector<float>& C) const;
  // The oracle rows only: used for the cuBLAS baseline itself, which must not be checked
  // against its own output.
  VerifyResult verify_oracle_rows(const std::vector<float>& C) const;
  std::string describe() const;

 private:
  int M_, N_, K_;
  Precision precision_;
  OracleRows oracle_;
  std::vector<float> full_;       // empty when the oracle covers every row
  std::vector<float> abs_upper_;
};

}  // namespace gemm
