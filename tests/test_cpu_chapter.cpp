// Chapter 00: every CPU variant on awkward shapes, against the fp64 oracle.
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "00_cpu_reference/cpu_gemm.hpp"
#include "catch_compat.hpp"
#include "common/reference.hpp"
#include "common/verify.hpp"

TEST_CASE("every chapter-00 variant is correct on awkward shapes", "[00_cpu_reference]") {
  struct Shape { int m, n, k; };
  const std::vector<Shape> shapes = {{1, 1, 1},    {1, 7, 1},    {7, 1, 3},    {3, 5, 7},
                                     {16, 16, 16}, {17, 33, 65}, {31, 32, 33}, {64, 64, 64},
                                     {127, 129, 131}, {70, 1, 300}, {1, 300, 70}};
  const auto variants = gemm::cpu::variants();
  REQUIRE(variants.size() >= 5);
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  for (const Shape& s : shapes) {
    const auto A = gemm::random_matrix(s.m, s.k, seed);
    const auto B = gemm::random_matrix(s.k, s.n, seed + 1);
    const auto ref = gemm::oracle_rows(A.data(), B.data(), s.m, s.n, s.k,
                                       gemm::rows_to_check(s.m, s.n, s.k));
    REQUIRE(static_cast<int>(ref.rows.size()) == s.m);  // every row is checked
    for (const auto& v : variants) {
      std::vector<float> C(size_t(s.m) * s.n, std::numeric_limits<float>::quiet_NaN());
      v.fn(A.data(), B.data(), C.data(), s.m, s.n, s.k);
      const auto r = gemm::verify_against_oracle(C.data(), s.n, s.k, ref, gemm::Precision::kF32);
      INFO(v.name << " at " << s.m << "x" << s.n << "x" << s.k << ": " << r.describe());
      CHECK(r.passed());
    }
  }
}
