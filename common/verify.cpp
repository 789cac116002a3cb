#include "common/verify.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "common/parallel.hpp"

namespace gemm {

double unit_roundoff(Precision p) {
  return p == Precision::kF32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -23);
}

double gamma(int K, double u) { return K * u / (1.0 - K * u); }

void VerifyResult::check(int row, int col, int N, double got, double expected, double bound) {
  ++checked;
  const double err = std::fabs(got - expected);
  double ratio;
  if (!std::isfinite(got)) {
    ratio = std::numeric_limits<double>::infinity();
  } else {
    max_error = std::fmax(max_error, err);
    ratio = bound > 0.0 ? err / bound : (err == 0.0 ? 0.0 : std::numeric_limits<double>::infinity());
  }
  max_ratio = std::fmax(max_ratio, ratio);
  // Written so that NaN fails: every comparison with NaN is false.
  const bool ok = std::isfinite(got) && err <= bound;
  if (ok) return;
  if (failed++ == 0) {
    first_bad = static_cast<long long>(row) * N + col;
    bad_row = row;
    bad_col = col;
    bad_got = got;
    bad_expected = expected;
    bad_bound = bound;
  }
}

void VerifyResult::merge(const VerifyResult& o) {
  if (failed == 0 && o.failed > 0) {
    first_bad = o.first_bad;
    bad_row = o.bad_row;
    bad_col = o.bad_col;
    bad_got = o.bad_got;
    bad_expected = o.bad_expected;
    bad_bound = o.bad_bound;
  }
  checked += o.checked;
  failed += o.failed;
  max_error = std::fmax(max_error, o.max_error);
  max_ratio = std::fmax(max_ratio, o.max_ratio);
}

std::string VerifyResult::describe() const {
  char buf[256];
  if (checked == 0) return "nothing was checked";
  if (failed == 0) {
    std::snprintf(buf, sizeof buf, "PASS: %lld elements, max error %.3g (%.3g of the bound)",
                  checked, max_error, max_ratio);
  } else {
    std::snprintf(buf, sizeof buf,
                  "FAIL: %lld of %lld elements wrong; first C[%d][%d] = %.9g, expected %.9g "
                  "(bound %.3g)",
                  failed, checked, bad_row, bad_col, bad_got, bad_expected, bad_bound);
  }
  return buf;
}

VerifyResult verify_against_oracle(const float* C, int N, int K, const OracleRows& ref,
                                   Precision p) {
  const double g = gamma(K, unit_roundoff(p));
  VerifyResult r;
  for (size_t i = 0; i < ref.rows.size(); ++i) {
    const int row = ref.rows[i];
    for (int j = 0; j < N; ++j) {
      const size_t at = i * N + j;
      r.check(row, j, N, C[static_cast<size_t>(row) * N + j], ref.value[at], g * ref.abs_sum[at]);
    }
  }
  return r;
}

VerifyResult verify_against_matrix(const float* C, const float* ref, const float* abs_sum_upper,
                                   int M, int N, int K, Precision p) {
  const double g = gamma(K, unit_roundoff(p)) + gamma(K, unit_roundoff(Precision::kF32));
  // Rows in ranges, one per core, merged in row order: the first bad element is the same as in a
  // single pass.
  const size_t grain = std::max(1, (1 << 20) / N);  // rows: at least about 1M elements a range
  std::vector<VerifyResult> parts(part_count(M, grain));
  parallel_parts(M, grain, [&](size_t part, size_t first, size_t last) {
    for (size_t i = first; i < last; ++i)
      for (int j = 0; j < N; ++j) {
        const size_t at = i * N + j;
        parts[part].check(static_cast<int>(i), j, N, C[at], ref[at], g * abs_sum_upper[at]);
      }
  });
  VerifyResult r;
  for (const VerifyResult& part : parts) r.merge(part);
  return r;
}

}  // namespace gemm
