// The verifier must pass a correct result and reject every kind of wrong one.
#include <cmath>
#include <limits>
#include <vector>

#include "catch_compat.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace {

struct Case {
  int M, N, K;
  std::vector<float> A, B, C;  // C: the exact product rounded to float
  gemm::OracleRows ref;
};

Case make_case(int M, int N, int K, std::uint64_t seed) {
  Case c{M, N, K, gemm::random_matrix(M, K, seed), gemm::random_matrix(K, N, seed + 1), {}, {}};
  std::vector<int> rows;
  for (int i = 0; i < M; ++i) rows.push_back(i);
  c.ref = gemm::oracle_rows(c.A.data(), c.B.data(), M, N, K, rows);
  for (double v : c.ref.value) c.C.push_back(static_cast<float>(v));
  return c;
}

gemm::VerifyResult check(const Case& c, const std::vector<float>& C) {
  return gemm::verify_against_oracle(C.data(), c.N, c.K, c.ref, gemm::Precision::kF32);
}

}  // namespace

TEST_CASE("verifier: a correct result passes", "[verifier]") {
  const Case c = make_case(17, 33, 65, 1);
  const auto r = check(c, c.C);
  CHECK(r.passed());
  CHECK(r.checked == 17 * 33);
  CHECK(r.max_ratio <= 1.0);
}

TEST_CASE("verifier: NaN anywhere fails, and the first bad index is reported", "[verifier]") {
  const Case c = make_case(9, 10, 11, 2);
  auto C = c.C;
  C[3 * 10 + 7] = std::numeric_limits<float>::quiet_NaN();
  const auto r = check(c, C);
  CHECK_FALSE(r.passed());
  CHECK(r.failed == 1);
  CHECK(r.first_bad == 37);
  CHECK(r.bad_row == 3);
  CHECK(r.bad_col == 7);
  CHECK(std::isinf(r.max_ratio));
}

TEST_CASE("verifier: Inf fails", "[verifier]") {
  const Case c = make_case(4, 4, 4, 3);
  auto C = c.C;
  C[0] = std::numeric_limits<float>::infinity();
  CHECK_FALSE(check(c, C).passed());
  C[0] = -std::numeric_limits<float>::infinity();
  CHECK_FALSE(check(c, C).passed());
}

TEST_CASE("verifier: an element the kernel never wrote (NaN poison) fails", "[verifier]") {
  const Case c = make_case(8, 8, 8, 4);
  std::vector<float> C(c.C.size(), std::numeric_limits<float>::quiet_NaN());  // poisoned
  for (size_t i = 0; i + 1 < C.size(); ++i) C[i] = c.C[i];                   // last one unwritten
  const auto r = check(c, C);
  CHECK(r.failed == 1);
  CHECK(r.first_bad == 63);
}

TEST_CASE("verifier: a transposed result fails", "[verifier]") {
  const Case c = make_case(12, 12, 12, 5);
  std::vector<float> T(c.C.size());
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 12; ++j) T[j * 12 + i] = c.C[i * 12 + j];
  const auto r = check(c, T);
  CHECK_FALSE(r.passed());
  CHECK(r.failed >= 12 * 11 / 2);  // everything off the diagonal is wrong
}

TEST_CASE("verifier: an off-by-one element fails", "[verifier]") {
  const int M = 16, N = 16, K = 64;
  const Case c = make_case(M, N, K, 6);
  SECTION("one element misses its last term (a k loop that stops one short)") {
    auto C = c.C;
    double partial = 0;
    for (int k = 0; k < K - 1; ++k) partial += double(c.A[5 * K + k]) * c.B[k * N + 9];
    C[5 * N + 9] = static_cast<float>(partial);
    const auto r = check(c, C);
    CHECK(r.failed == 1);
    CHECK(r.first_bad == 5 * N + 9);
  }
  SECTION("the output shifted by one column") {
    std::vector<float> C(c.C.size());
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) C[i * N + j] = c.C[i * N + (j + 1) % N];
    CHECK(check(c, C).failed > M * N / 2);
  }
}

TEST_CASE("verifier: errors inside the bound pass, outside it fail", "[verifier]") {
  const Case c = make_case(10, 10, 100, 7);
  const double g = gemm::gamma(100, gemm::unit_roundoff(gemm::Precision::kF32));
  auto inside = c.C, outside = c.C;
  for (size_t i = 0; i < c.C.size(); ++i) {
    const double bound = g * c.ref.abs_sum[i];
    inside[i] = static_cast<float>(c.ref.value[i] + 0.5 * bound);
    outside[i] = static_cast<float>(c.ref.value[i] + 2.0 * bound);
  }
  CHECK(check(c, inside).passed());
  CHECK(check(c, outside).failed == static_cast<long long>(c.C.size()));
}

TEST_CASE("verifier: the bound grows with K and is looser for fp16 inputs", "[verifier]") {
  const double u32 = gemm::unit_roundoff(gemm::Precision::kF32);
  const double u16 = gemm::unit_roundoff(gemm::Precision::kF16);
  CHECK(u32 == std::ldexp(1.0, -24));
  CHECK(u16 == std::ldexp(1.0, -23));
  CHECK(gemm::gamma(2048, u32) > 1.99 * gemm::gamma(1024, u32));
  CHECK(gemm::gamma(1, u32) > u32);  // K = 1: one rounding of one product
}

TEST_CASE("verifier: against a full reference matrix the two bounds add up", "[verifier]") {
  const int M = 6, N = 5, K = 1000;
  const Case c = make_case(M, N, K, 8);
  std::vector<float> mag(c.ref.abs_sum.begin(), c.ref.abs_sum.end());
  const double g = gemm::gamma(K, gemm::unit_roundoff(gemm::Precision::kF32));
  auto C = c.C;
  C[7] = static_cast<float>(c.C[7] + 1.5 * g * mag[7]);  // over one bound, under two
  CHECK(gemm::verify_against_matrix(C.data(), c.C.data(), mag.data(), M, N, K,
                                    gemm::Precision::kF32).passed());
  C[7] = static_cast<float>(c.C[7] + 3.0 * g * mag[7]);
  CHECK_FALSE(gemm::verify_against_matrix(C.data(), c.C.data(), mag.data(), M, N, K,
                                          gemm::Precision::kF32).passed());
}

TEST_CASE("verifier: nothing checked is not a pass", "[verifier]") {
  gemm::VerifyResult empty;
  CHECK_FALSE(empty.passed());
}
