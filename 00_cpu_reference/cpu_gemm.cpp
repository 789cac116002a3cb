// =================================================================================================
// Chapter 00 - cpu_reference: C = A x B on the CPU, from the textbook loop to all cores.
//
// The idea: before writing a single GPU kernel, find out how fast the CPU in the same machine can
// do the job, and learn on it the lessons every GPU chapter reuses: keep the running sum in a
// register, walk memory with unit stride, reuse what is already in cache, use every core.
//
// Five steps, each changing one thing (variants() lists them in this order):
//   ijk_textbook   the sum lives in C, in memory: a store at every step of the k loop
//   ijk_register   __restrict and a local accumulator: the sum stays in a register
//   ikj            loop order i-k-j: unit stride through B and C, so the loop vectorizes
//   blocked        ikj on BM x BN x BK tiles, so the part of B in use stays in cache
//   threaded       blocked, with the rows of C split across all hardware threads
//
// Work: every variant does the same 2MNK floating-point operations; only the memory traffic and
// the number of operations per instruction (SIMD) and per second (cores) change.
// Preconditions: none. Any M, N, K >= 1 (tiles at the edges are simply cut short).
// Plain C++17 and the standard library only: no OpenMP, no intrinsics, no -march=native, so it
// builds and runs the same everywhere (SSE2, four floats per instruction, on x86-64).
// Build and run:  cmake --build build --target 00_cpu_reference && ./build/bin/00_cpu_reference
// Measured result: README.md, section "Measured".
// =================================================================================================
#include "00_cpu_reference/cpu_gemm.hpp"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace gemm::cpu {

// Step 1. The loop from the textbook: C[i][j] = sum over k of A[i][k] * B[k][j].
// The running sum is C[i][j] itself. Counted as written, each k step reads A, B and C and writes
// C; with the zero written first, a one-term sum costs 3 reads and 2 writes. The pointers carry no
// promise that C does not overlap A or B, so the compiler must assume that writing C[i][j] could
// change the next A or B element: it keeps the store at every k step. (g++ -O3 does keep a copy of
// the sum in a register and skips re-reading C, since it just wrote it; the store stays. Look for
// it in the loop with `g++ -O3 -S`.) B is also walked down a column, 4N bytes apart: a different
// 64-byte cache line at every k step.
void ijk_textbook(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      C[i * N + j] = 0.0f;
      for (int k = 0; k < K; ++k) {
        C[i * N + j] += A[i * K + k] * B[k * N + j];  // KEY: load-add-store in memory, every step
      }
    }
  }
}

// Step 2. Changed: __restrict on the pointers and the sum in a local variable.
// __restrict promises that A, B and C never overlap, and `acc` is a local whose address is never
// taken, so no store can change it behind the compiler's back. The compiler may now keep the sum
// in a register for the whole k loop, never reload or re-store C inside it (one store at the end),
// and reorder and unroll the loads of A and B freely, since nothing it writes can change them.
// Either change alone would do: given only __restrict, g++ -O3 moves the textbook loop's store
// out of the k loop by itself. The local says it explicitly, whatever the optimizer decides.
// What the compiler still may not do is split the sum across SIMD lanes: that would add the K
// products in a different order, which changes the rounding, and C++ forbids it without
// -ffast-math. B is still walked down a column, so the loop still waits on memory: expect a
// modest gain only. Step 3 fixes both.
void ijk_register(const float* __restrict A, const float* __restrict B, float* __restrict C,
                  int M, int N, int K) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;  // KEY: the running sum lives in a register
      for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
      C[i * N + j] = acc;  // KEY: one store per element of C, not one per step
    }
  }
}

// Step 3. Changed: the loop order, i-k-j instead of i-j-k. Same arithmetic, same sum order for
// every element of C (k still goes 0, 1, 2, ... for each C[i][j]), so the result is identical.
// Now A[i][k] is one number held in a register, and the inner loop walks row k of B and row i of
// C with unit stride: consecutive j are consecutive floats, 16 to a 64-byte cache line. The j
// iterations are independent, so the compiler vectorizes the loop: a SIMD multiply and a SIMD add
// (mulps, addps) for four elements of C at a time with this build's SSE2 (AVX would do eight, and
// FMA instructions would fuse the two). The row of C is zeroed first because it now collects
// partial sums across the k loop.
void ikj(const float* __restrict A, const float* __restrict B, float* __restrict C, int M, int N,
         int K) {
  for (int i = 0; i < M; ++i) {
    float* c = C + i * N;  // row i of C
    std::fill(c, c + N, 0.0f);
    for (int k = 0; k < K; ++k) {
      const float a = A[i * K + k];  // KEY: one element of A, reused across the whole row of B
      const float* b = B + k * N;    // row k of B
      for (int j = 0; j < N; ++j) c[j] += a * b[j];  // KEY: unit stride in b and c -> SIMD
    }
  }
}

// Step 4 tile sizes. In ikj, every row i of C streams through ALL of B (K x N floats) before the
// next row starts; once B is larger than the caches, every row reloads it from DRAM. Blocking
// shortens that reuse distance: a BK x BN tile of B is used by BM rows in a row, while it is hot.
//   B tile  BK x BN = 64 x 512 floats = 128 KiB: half of the smallest private L2 in common use
//           (256 KiB; most current cores have 512 KiB to 2 MiB), so it stays in L2 next to the
//           pieces of A and C in use, and is reused BM times before the next tile replaces it.
//   C piece 1 x BN = 2 KiB: the row segment of C that the BK steps of the k loop accumulate into,
//           which stays in L1 (32 to 48 KiB) for all of them.
//   BN = 512 also keeps the inner loop long, so SIMD work dominates the loop overhead.
// At 4096^3, where B (64 MiB) is far larger than any core's L2, blocked ran 2.7x faster than ikj
// on a 2-core Xeon VM (13.3 against 5.0 GFLOPS, --variant ikj / blocked --no-verify, 2026-11-25).
// That VM's lscpu lists 2 MiB of L2 per core and 260 MiB of L3, so there B fits in L3: blocking
// pays before DRAM is involved, by serving the B tile from L2 instead of all of B from L3. The
// reference run's CPU, at 4096^3 too, gains less (README.md, "Step 4" and "Measured").
constexpr int BM = kBlockM;  // 64 rows of C (and A) per tile (cpu_gemm.hpp)
constexpr int BN = kBlockN;  // 512 columns of C (and B) per tile
constexpr int BK = kBlockK;  // 64: depth, columns of A and rows of B per tile
static_assert(BK * BN * sizeof(float) <= 128 * 1024,
              "the BK x BN tile of B should fit in half of a 256 KiB L2");

// The blocked kernel for rows [row_begin, row_end) of C; threaded() runs it on slices of rows.
static void blocked_rows(const float* __restrict A, const float* __restrict B,
                         float* __restrict C, int row_begin, int row_end, int N, int K) {
  std::fill(C + row_begin * N, C + row_end * N, 0.0f);
  for (int i0 = row_begin; i0 < row_end; i0 += BM) {
    const int i1 = std::min(i0 + BM, row_end);  // the last tile may be cut short: any M works
    for (int j0 = 0; j0 < N; j0 += BN) {
      const int j1 = std::min(j0 + BN, N);
      for (int k0 = 0; k0 < K; k0 += BK) {  // KEY: the B tile [k0, k1) x [j0, j1) is now hot
        const int k1 = std::min(k0 + BK, K);
        // The ikj loops of step 3, restricted to one tile.
        for (int i = i0; i < i1; ++i) {
          float* c = C + i * N;
          for (int k = k0; k < k1; ++k) {
            const float a = A[i * K + k];
            const float* b = B + k * N;
            for (int j = j0; j < j1; ++j) c[j] += a * b[j];  // KEY: hits L1/L2, not DRAM
          }
        }
      }
    }
  }
}

// Step 4. Changed: the ikj loops run tile by tile. Each C[i][j] still adds its products in
// k order 0, 1, 2, ..., so the result is again bit-identical to ikj; only the cache traffic drops.
void blocked(const float* __restrict A, const float* __restrict B, float* __restrict C, int M,
             int N, int K) {
  blocked_rows(A, B, C, 0, M, N, K);
}

// Step 5. Changed: the rows of C are split into one contiguous slice per hardware thread, and each
// thread runs the blocked kernel on its slice. Threads share A and B (read only) and each writes
// only its own rows of C, so no two threads ever write the same element: no locks, no races.
// Starting and joining the threads costs some tens of microseconds, which only shows on tiny
// problems.
void threaded(const float* A, const float* B, float* C, int M, int N, int K) {
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());  // 0 if unknown
  const int workers = std::max(1, std::min(hardware, M));  // never more threads than rows
  const int rows_per_worker = (M + workers - 1) / workers;
  std::vector<std::thread> pool;
  for (int t = 0; t < workers; ++t) {
    const int begin = t * rows_per_worker;
    const int end = std::min(M, begin + rows_per_worker);
    if (begin >= end) break;
    pool.emplace_back(blocked_rows, A, B, C, begin, end, N, K);  // KEY: one slice of rows each
  }
  for (std::thread& worker : pool) worker.join();  // KEY: C is complete only after every join
}

std::vector<CpuVariant> variants() {
  // The slow loops run in full up to about 1024^3 (2.15 GFLOP); ikj up to about 2048^3.
  constexpr double kUnlimited = 1e30;
  const std::string tiles =
      std::to_string(BM) + " x " + std::to_string(BN) + " x " + std::to_string(BK);
  return {
      {"ijk_textbook", ijk_textbook, "textbook i-j-k loop, the running sum stored to C each step",
       2.2},
      {"ijk_register", ijk_register, "i-j-k with __restrict and the running sum in a register",
       2.2},
      {"ikj", ikj, "loop order i-k-j: unit stride through B and C, vectorized", 20.0},
      {"blocked", blocked, "ikj on BM x BN x BK = " + tiles + " tiles that stay in cache",
       kUnlimited},
      {"threaded", threaded, "blocked, rows of C split across all hardware threads", kUnlimited},
  };
}

}  // namespace gemm::cpu
