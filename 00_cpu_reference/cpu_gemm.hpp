// Chapter 00: C = A x B on the CPU, five steps from the textbook triple loop to all cores.
//
// Every function computes C = A x B for row-major fp32 matrices: A is M x K, B is K x N, C is
// M x N, for any M, N, K >= 1 (the command line keeps each matrix under 2^31 elements, so int
// indices cannot overflow). Each one overwrites C completely; nothing is read from C first.
//
// Unlike the GPU chapters, which list their headline first, variants() is in TEACHING order:
// each step changes one thing from the step before. `--variant all` runs them in that order, and
// the last one, `threaded`, is the CPU figure the GPU chapters have to beat.
#pragma once

#include <string>
#include <vector>

namespace gemm::cpu {

// Step 4's tile sizes (cpu_gemm.cpp explains the choice; README.md, "Step 4: cache blocking").
// Here, in the header, so that the diagrams are drawn from the same numbers.
constexpr int kBlockM = 64;   // rows of C (and A) per tile
constexpr int kBlockN = 512;  // columns of C (and B) per tile
constexpr int kBlockK = 64;   // depth: columns of A, rows of B per tile
// A fact of the CPUs this chapter targets (x86-64 and Arm cores alike), not a choice: memory moves
// between DRAM and the caches in lines of 64 bytes.
constexpr int kCacheLineBytes = 64;

using CpuGemm = void (*)(const float* A, const float* B, float* C, int M, int N, int K);

// 1. The textbook loop: the running sum lives in C, in memory, and nothing says C cannot overlap
//    A or B, so every step must store it.
void ijk_textbook(const float* A, const float* B, float* C, int M, int N, int K);
// 2. The same loop with __restrict pointers and the running sum in a local variable (a register).
void ijk_register(const float* __restrict A, const float* __restrict B, float* __restrict C,
                  int M, int N, int K);
// 3. Loop order i-k-j: the inner loop walks a row of B and a row of C with unit stride (SIMD).
void ikj(const float* __restrict A, const float* __restrict B, float* __restrict C, int M, int N,
         int K);
// 4. ikj on tiles small enough to stay in cache (cache blocking).
void blocked(const float* __restrict A, const float* __restrict B, float* __restrict C, int M,
             int N, int K);
// 5. blocked, with the rows of C split across all hardware threads (std::thread).
void threaded(const float* A, const float* B, float* C, int M, int N, int K);

struct CpuVariant {
  std::string name;       // "ikj": the --variant name
  CpuGemm fn;
  std::string summary;    // one line for the program's output
  // The largest problem, in GFLOP (2MNK / 1e9), this variant runs in full. Above it the program
  // times only the first rows of C, so the slow loops finish in seconds at any size.
  double max_gflop_full;
};

// In teaching order; the last one (threaded) is the fastest and the CPU figure to beat.
std::vector<CpuVariant> variants();

}  // namespace gemm::cpu
