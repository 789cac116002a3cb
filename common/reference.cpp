#include "common/reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "common/parallel.hpp"

namespace gemm {

namespace {

// SplitMix64's finaliser: neighbouring inputs give unrelated 64-bit outputs.
std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

// In chunks of 2^20 values, each from its own generator (chunk 0 seeded with `seed` itself, chunk
// c with a mix of seed and c), so that the cores can fill a matrix of 2^31 values at once and the
// values depend on the seed alone, never on the number of cores.
std::vector<float> random_matrix(int rows, int cols, std::uint64_t seed) {
  constexpr size_t kChunk = size_t(1) << 20;
  std::vector<float> m(static_cast<size_t>(rows) * cols);
  const size_t chunks = (m.size() + kChunk - 1) / kChunk;
  parallel_parts(chunks, 1, [&](size_t, size_t first, size_t last) {
    for (size_t c = first; c < last; ++c) {
      std::mt19937_64 gen(c == 0 ? seed : mix64(seed ^ mix64(c)));
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (size_t i = c * kChunk; i < std::min(m.size(), (c + 1) * kChunk); ++i) m[i] = dist(gen);
    }
  });
  return m;
}

OracleRows oracle_rows(const float* A, const float* B, int M, int N, int K,
                       const std::vector<int>& rows) {
  (void)M;
  OracleRows out;
  out.rows = rows;
  out.value.assign(rows.size() * static_cast<size_t>(N), 0.0);
  out.abs_sum.assign(rows.size() * static_cast<size_t>(N), 0.0);
  const double per_row = static_cast<double>(N) * K;  // multiply-adds: rows go to the cores in
  const size_t grain = static_cast<size_t>(std::max(1.0, double(1 << 22) / per_row));  // 4M lots
  parallel_parts(rows.size(), grain, [&](size_t, size_t first, size_t last) {
    for (size_t r = first; r < last; ++r) {
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
  });
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
