// Inputs and the oracle. Host-only C++ (no CUDA), shared by the CPU chapter, the GPU runner and
// the tests.
#pragma once

#include <cstdint>
#include <vector>

namespace gemm {

// Uniform in [-1, 1], from a seeded generator: fresh values every run, reproducible with --seed.
// Never constants and never zeros: those hide indexing bugs and unwritten outputs.
std::vector<float> random_matrix(int rows, int cols, std::uint64_t seed);

// The oracle: C = A x B for the selected rows of C, accumulated in double (53-bit mantissa: its own
// rounding error is ~2^29 times smaller than fp32's, so it stands for the exact product). It also
// keeps sum_k |a_ik * b_kj| for every element, which scales the verifier's error bound.
struct OracleRows {
  std::vector<int> rows;         // which rows of C were computed
  std::vector<double> value;     // [rows.size()][N]
  std::vector<double> abs_sum;   // [rows.size()][N]
};
OracleRows oracle_rows(const float* A, const float* B, int M, int N, int K,
                       const std::vector<int>& rows);

// All rows when the product is small; otherwise a sample that always includes the first and last
// two rows (edge tiles) plus evenly spread rows in between, capped near 2^28 multiply-adds.
std::vector<int> rows_to_check(int M, int N, int K);

}  // namespace gemm
