// =================================================================================================
// Chapter 05 - the error study: `05_tensor_core --error-study [--csv FILE] [--seed S]`.
//
// Tensor cores take fp16 inputs and accumulate in fp32. Which of the two costs accuracy? This
// study separates them, on the CPU (no GPU needed), for C = A x B with M = N = 64 and growing K,
// A and B uniform in [-1, 1] as in every chapter:
//
//   exact32   the product of the fp32 inputs, accumulated in double (products of two floats are
//             exact in double, and the double sum's own rounding is ~2^29 times smaller than
//             fp32's, so this stands for the exact product, as the verifier's oracle does);
//   exact16   the same, for the inputs rounded to fp16 (__float2half_rn: what the kernels get);
//   acc32     the fp16-rounded inputs multiplied and added in an fp32 accumulator, left to right.
//             This EMULATES the tensor core's fp32 accumulation; the hardware adds in another
//             order (and may truncate instead of rounding), but its error has the same scale.
//
// and reports, per K, the largest over all elements of
//   (1) input rounding   |exact16 - exact32| / sum_k |a_ik b_kj|
//   (2) accumulation     |acc32 - exact16| / sum_k |a_ik b_kj|
//   bound_ratio          |acc32 - exact16| / (gamma_K * sum_k |a_ik b_kj|), gamma_K with
//                        u = 2^-23: the verifier's "max err / bound" for the emulated kernel.
// Both errors are relative to the sum of magnitudes, the quantity the verifier's bound scales
// with (docs/benchmarking.md). README.md, "The error study: fp16 inputs against fp32
// accumulation", reads the numbers (docs/figures/error_study.csv, drawn as fp16_error.png).
// =================================================================================================
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "05_tensor_core/tensor_core.cuh"
#include "common/exit_codes.hpp"
#include "common/problem.cuh"  // round_to_half_in_place
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace gemm::tensor_core {
namespace {

constexpr int kStudyM = 64;
constexpr int kStudyN = 64;
const int kStudyK[] = {16, 64, 256, 1024, 4096, 16384};
// A fixed default seed, so that docs/figures/error_study.csv can be regenerated exactly; --seed
// changes it.
constexpr std::uint64_t kDefaultSeed = 5;

struct StudyRow {
  int K = 0;
  double err_inputs = 0.0;        // (1) max |exact16 - exact32| / sum|a b|  (fp32 inputs)
  double err_accumulation = 0.0;  // (2) max |acc32 - exact16| / sum|a b|    (fp16 inputs)
  double bound_ratio = 0.0;       // max |acc32 - exact16| / (gamma_K(2^-23) sum|a b|)
};

StudyRow study_one_k(int K, std::uint64_t seed) {
  const int M = kStudyM, N = kStudyN;
  const std::vector<float> A = random_matrix(M, K, seed);
  const std::vector<float> B = random_matrix(K, N, seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<float> A16 = A, B16 = B;  // KEY: the values an fp16 kernel actually multiplies
  round_to_half_in_place(A16);
  round_to_half_in_place(B16);
  const double gamma_k = gamma(K, unit_roundoff(Precision::kF16));

  StudyRow row;
  row.K = K;
  // One row of C at a time, in i-k-j order (unit stride through B and the accumulators).
  std::vector<double> exact32(N), mag32(N), exact16(N), mag16(N);  // [N]
  std::vector<float> acc32(N);                                     // [N]
  for (int i = 0; i < M; ++i) {
    std::fill(exact32.begin(), exact32.end(), 0.0);
    std::fill(mag32.begin(), mag32.end(), 0.0);
    std::fill(exact16.begin(), exact16.end(), 0.0);
    std::fill(mag16.begin(), mag16.end(), 0.0);
    std::fill(acc32.begin(), acc32.end(), 0.0f);
    for (int k = 0; k < K; ++k) {
      const float a = A[static_cast<size_t>(i) * K + k];
      const float a16 = A16[static_cast<size_t>(i) * K + k];
      const float* b = &B[static_cast<size_t>(k) * N];
      const float* b16 = &B16[static_cast<size_t>(k) * N];
      for (int j = 0; j < N; ++j) {
        const double p = double(a) * b[j];        // exact in double
        const double p16 = double(a16) * b16[j];  // exact in double
        exact32[j] += p;
        mag32[j] += std::fabs(p);
        exact16[j] += p16;
        mag16[j] += std::fabs(p16);
        // KEY: a product of two fp16 values has at most 22 significant bits, so a16 * b16 is
        // exact in fp32 (fused into an FMA or not): only the addition rounds, as in hardware.
        acc32[j] += a16 * b16[j];
      }
    }
    for (int j = 0; j < N; ++j) {
      row.err_inputs = std::max(row.err_inputs, std::fabs(exact16[j] - exact32[j]) / mag32[j]);
      const double acc_err = std::fabs(double(acc32[j]) - exact16[j]) / mag16[j];
      row.err_accumulation = std::max(row.err_accumulation, acc_err);
      row.bound_ratio = std::max(row.bound_ratio, acc_err / gamma_k);
    }
  }
  return row;
}

}  // namespace

int run_error_study(int argc, char** argv) {
  std::string csv;
  std::uint64_t seed = kDefaultSeed;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--error-study") continue;
    const bool has_value = i + 1 < argc;
    if (arg == "--csv" && has_value) {
      csv = argv[++i];
    } else if (arg == "--seed" && has_value) {
      const char* text = argv[++i];
      char* end = nullptr;
      errno = 0;
      const unsigned long long v = std::strtoull(text, &end, 10);
      if (errno != 0 || end == text || *end != '\0' || text[0] == '-') {
        std::fprintf(stderr, "--seed needs a non-negative whole number, not '%s'.\n", text);
        return kExitBadInput;
      }
      seed = v;
    } else if (arg == "--csv" || arg == "--seed") {
      std::fprintf(stderr, "%s needs a value.\n", arg.c_str());
      return kExitBadInput;
    } else {
      std::fprintf(stderr, "--error-study takes only --csv FILE and --seed S, not '%s'.\n",
                   arg.c_str());
      return kExitBadInput;
    }
  }
  std::FILE* out = nullptr;
  if (!csv.empty() && (out = std::fopen(csv.c_str(), "w")) == nullptr) {
    std::fprintf(stderr, "Cannot open the CSV file '%s' for writing.\n", csv.c_str());
    return kExitBadInput;
  }

  std::printf("05_tensor_core --error-study: fp16 inputs vs fp32 accumulation, on the CPU\n");
  std::printf(
      "C = A x B with M = %d, N = %d, A and B uniform in [-1, 1], seed %llu. Per K, the largest\n"
      "over all %d elements of |x - ref| / sum_k |a_ik b_kj|:\n",
      kStudyM, kStudyN, static_cast<unsigned long long>(seed), kStudyM * kStudyN);
  std::printf(
      "  (1) inputs:       exact product of the fp16-rounded inputs vs that of the fp32 "
      "inputs\n");
  std::printf(
      "  (2) accumulation: fp16-rounded inputs accumulated in fp32 (a sequential CPU "
      "emulation of\n"
      "                    the tensor core's accumulator) vs their exact product\n");
  std::printf("  (2)/bound:        (2) over the verifier's gamma_K with u = 2^-23\n\n");
  std::printf("%8s %16s %18s %12s %12s\n", "K", "(1) inputs", "(2) accumulation", "(1) / (2)",
              "(2)/bound");
  if (out)
    std::fprintf(out, "K,err_fp16_inputs_vs_fp32_exact,err_fp32acc_vs_fp16_exact,bound_ratio\n");
  for (const int K : kStudyK) {
    const StudyRow r = study_one_k(K, seed + static_cast<std::uint64_t>(K));
    std::printf("%8d %16.3e %18.3e %12.1f %12.3e\n", r.K, r.err_inputs, r.err_accumulation,
                r.err_accumulation > 0 ? r.err_inputs / r.err_accumulation : INFINITY,
                r.bound_ratio);
    if (out)
      std::fprintf(out, "%d,%.6e,%.6e,%.6e\n", r.K, r.err_inputs, r.err_accumulation,
                   r.bound_ratio);
  }
  std::printf("\nfor scale: fp16 rounds with u = 2^-11 = %.3e, fp32 with u = 2^-24 = %.3e\n",
              std::ldexp(1.0, -11), std::ldexp(1.0, -24));
  if (out) {
    const bool ok = std::fclose(out) == 0;
    if (!ok) {
      std::fprintf(stderr, "Cannot write the CSV file '%s'.\n", csv.c_str());
      return kExitBadInput;
    }
    std::printf("wrote %s\n", csv.c_str());
  }
  return kExitOk;
}

}  // namespace gemm::tensor_core
