#include "common/reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace gemm {

std::vector<float> random_matrix(int rows, int cols, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> m(static_cast<size_t>(rows) * cols);
  for (float& x : m) x = dist(gen);
  return m;
}

OracleRows oracle_rows(const float* A, const float* B, int M, int N, int K,
                       const std::vector<int>& rows) {
  (void)M;
  OracleRows out;
  out.rows = rows;
  out.value.assign(rows.size() * static_cast<size_t>(N), 0.0);
  out.abs_sum.assign(rows.size() * static_cast<size_t>(N), 0.0);
  for (size_t r = 0; r < rows.size(); ++r) {
    const float* a = A + static_cast<size_t>(rows[r]) * K;
    double* acc = &out.value[r * N];
    double* mag = &out.abs_sum[r * N];
    for (int k = 0; k < K; ++k) {  // i-k-j order: unit stride through B and the accumulators
      const double aik = a[k];
      const float* b = B + static_cast<size_t>(k) * N;
      for (int j = 0; j < N; ++j) {
        const double p = aik * b[j];  // exact: a float times a float fits in a double
        acc[j] += p;
        mag[j] += std::fabs(p);
      }
    }
  }
  return out;
}

std::vector<int> rows_to_check(int M, int N, int K) {
  const double budget = double(1 << 28);
  const double per_row = double(N) * K;
  int count = static_cast<int>(std::max(8.0, budget / per_row));
  std::vector<int> rows;
  if (count >= M) {
    for (int i = 0; i < M; ++i) rows.push_back(i);
    return rows;
  }
  rows = {0, 1, M - 2, M - 1};
  for (int s = 1; s <= count - 4; ++s)
    rows.push_back(static_cast<int>(static_cast<long long>(s) * (M - 1) / (count - 3)));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

}  // namespace gemm
