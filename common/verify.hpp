// The verifier. An element passes only if |c - ref| <= bound, with
//
//     bound = gamma_K * sum_k |a_ik * b_kj|,    gamma_K = K u / (1 - K u)
//
// the classic worst-case bound for a dot product of K terms computed in floating point with unit
// roundoff u, in ANY summation order (Higham, "Accuracy and Stability of Numerical Algorithms",
// sec. 3.1). So it holds for every kernel here however it splits and orders K, scales with K and
// with the magnitudes involved, and needs no hand-tuned tolerance. docs/numerics.md (section 2)
// derives u:
//   fp32 inputs, fp32 FFMA (round to nearest)            u = 2^-24
//   fp16 inputs, fp32 accumulation on tensor cores        u = 2^-23 (products of fp16 values are
//     exact in fp32; the accumulator may truncate instead of rounding, costing up to one full ulp)
// NaN and Inf never pass (the output is poisoned with NaN, so an unwritten element fails too).
#pragma once

#include <string>

#include "common/reference.hpp"

namespace gemm {

enum class Precision { kF32, kF16 };

double unit_roundoff(Precision p);
double gamma(int K, double u);

struct VerifyResult {
  long long checked = 0;
  long long failed = 0;
  double max_error = 0.0;  // max |c - ref| over all checked elements
  double max_ratio = 0.0;  // max |c - ref| / bound (infinite for NaN or Inf): <= 1 passes
  // The first failing element, in row-major order of checking.
  long long first_bad = -1;
  int bad_row = -1, bad_col = -1;
  double bad_got = 0.0, bad_expected = 0.0, bad_bound = 0.0;

  bool passed() const { return failed == 0 && checked > 0; }
  void check(int row, int col, int N, double got, double expected, double bound);
  void merge(const VerifyResult& other);
  std::string describe() const;  // one line: PASS, or the first bad element and the count
};

// Against the double-precision oracle, for the rows it computed.
VerifyResult verify_against_oracle(const float* C, int N, int K, const OracleRows& ref,
                                   Precision p);

// Against a full reference matrix computed on the GPU (cuBLAS, fp32, round to nearest). Both the
// kernel and the reference are within their own bound of the exact product, so the allowed
// difference is the sum of the two bounds. `abs_sum_upper` must bound sum_k |a_ik b_kj| from above.
VerifyResult verify_against_matrix(const float* C, const float* ref, const float* abs_sum_upper,
                                   int M, int N, int K, Precision p);

}  // namespace gemm
