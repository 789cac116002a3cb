// The oracle against products small enough to check by hand.
#include <cmath>
#include <vector>

#include "catch_compat.hpp"
#include "common/reference.hpp"

using gemm::oracle_rows;

TEST_CASE("oracle: 1x1x1 is a single product", "[oracle]") {
  const float a = 3.0f, b = -4.0f;
  const auto r = oracle_rows(&a, &b, 1, 1, 1, {0});
  CHECK(r.value[0] == -12.0);
  CHECK(r.abs_sum[0] == 12.0);
}

TEST_CASE("oracle: 2x2x2 worked by hand", "[oracle]") {
  // [1 2] [5 6]   [1*5+2*7  1*6+2*8]   [19 22]
  // [3 4] [7 8] = [3*5+4*7  3*6+4*8] = [43 50]
  const std::vector<float> A = {1, 2, 3, 4}, B = {5, 6, 7, 8};
  const auto r = oracle_rows(A.data(), B.data(), 2, 2, 2, {0, 1});
  CHECK(r.value == std::vector<double>{19, 22, 43, 50});
  CHECK(r.abs_sum == std::vector<double>{19, 22, 43, 50});  // all terms positive
}

TEST_CASE("oracle: signs, a 2x3 by 3x1, and the sum of magnitudes", "[oracle]") {
  // row 0: 1*2 + (-2)*1 + 3*(-1) = -3, magnitudes 2 + 2 + 3 = 7
  // row 1: 0*2 + 4*1 + (-1)*(-1) = 5, magnitudes 0 + 4 + 1 = 5
  const std::vector<float> A = {1, -2, 3, 0, 4, -1}, B = {2, 1, -1};
  const auto r = oracle_rows(A.data(), B.data(), 2, 1, 3, {0, 1});
  CHECK(r.value == std::vector<double>{-3, 5});
  CHECK(r.abs_sum == std::vector<double>{7, 5});
}

TEST_CASE("oracle: identity times B is B, and only the requested rows are computed", "[oracle]") {
  const int n = 5;
  std::vector<float> I(n * n, 0.0f);
  for (int i = 0; i < n; ++i) I[i * n + i] = 1.0f;
  const auto B = gemm::random_matrix(n, 3, 42);
  const auto r = oracle_rows(I.data(), B.data(), n, 3, n, {1, 4});
  REQUIRE(r.value.size() == 6);
  for (int j = 0; j < 3; ++j) {
    CHECK(r.value[j] == B[1 * 3 + j]);
    CHECK(r.value[3 + j] == B[4 * 3 + j]);
  }
}

TEST_CASE("random inputs are uniform in [-1, 1], seeded and never constant", "[oracle]") {
  const auto x = gemm::random_matrix(64, 64, 7), y = gemm::random_matrix(64, 64, 7);
  const auto z = gemm::random_matrix(64, 64, 8);
  CHECK(x == y);
  CHECK(x != z);
  double lo = 1, hi = -1;
  for (float v : x) {
    lo = std::fmin(lo, v);
    hi = std::fmax(hi, v);
  }
  CHECK(lo >= -1.0);
  CHECK(hi <= 1.0);
  CHECK(hi - lo > 1.9);  // spread over the whole range
}

TEST_CASE("rows_to_check: all rows when small, first/last rows always in the sample", "[oracle]") {
  CHECK(gemm::rows_to_check(7, 5, 3).size() == 7);
  const auto rows = gemm::rows_to_check(4096, 4096, 4096);
  REQUIRE(rows.size() >= 8);
  CHECK(rows.front() == 0);
  CHECK(rows[1] == 1);
  CHECK(rows.back() == 4095);
  CHECK(rows[rows.size() - 2] == 4094);
}
