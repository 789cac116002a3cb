// The PTX instructions of kernels 5 and 6 (mma_ptx.cu, mma_pipelined.cu, through mma_tiles.cuh) and
// of the ceiling microbenchmark (wmma_ceiling.cu): ldmatrix, ldmatrix.trans and mma.sync.m16n8k16,
// as inline assembly, with the fragment layouts they produce. Not host-includable: nvcc only. All
// three need sm_80 (ldmatrix exists since sm_75, mma.sync.m16n8k16 with f16 inputs since sm_80);
// compiled for an older GPU they are empty, and the kernels that call them trap (their launchers
// never run them there).
#pragma once

#include <cstdint>

namespace gemm::warp_tiling {

// The shape of one mma.sync.m16n8k16: rows of A and C, columns of B and C, and its depth in k.
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;

// ---- The three PTX instructions -----------------------------------------------------------------
// Fragment layouts of mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (PTX ISA, "Matrix
// fragments for mma.m16n8k16"), for lane l, with g = l / 4 (the group) and t = l % 4:
//   A (16 x 16, row-major), 4 registers of 2 halves; each register holds columns 2t, 2t+1 of a row:
//       a[0]: row g,     k 2t..2t+1        a[2]: row g,     k 8+2t..8+2t+1
//       a[1]: row g + 8, k 2t..2t+1        a[3]: row g + 8, k 8+2t..8+2t+1
//   B (16 x 8, "col": k runs along a register), 2 registers of 2 halves:
//       b[0]: k 2t..2t+1,     column g     b[1]: k 8+2t..8+2t+1, column g
//   C, D (16 x 8, fp32), 4 floats:
//       c[0], c[1]: row g,     columns 2t, 2t+1
//       c[2], c[3]: row g + 8, columns 2t, 2t+1
//
// ldmatrix.sync.aligned.m8n8.x4.shared.b16 loads four 8 x 8 matrices of 16-bit elements. Lanes
// 8q .. 8q+7 give the shared addresses of the 8 rows (16 bytes each) of matrix q; lane l then
// receives, in register q, row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix q: exactly
// one register of an A fragment. With .trans each matrix is transposed on the way: lane l receives
// rows 2 (l % 4), 2 (l % 4) + 1 of column l / 4, which is a B register when the stored rows are k
// and the columns n (B row-major in shared memory, as it is in global memory).

// The inline-assembly operands: "=r" is a 32-bit register the instruction writes, "r" one it reads,
// "+f" a float register it reads and writes (the accumulators: C and D are the same registers).
// `addr` is a 32-bit address in the shared-memory window (smem_u32 in tile_helpers.cuh), 16-byte
// aligned. `volatile` keeps the compiler from moving or merging the loads: the same address holds
// a different tile after every barrier.

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#endif
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t& r0, uint32_t& r1, uint32_t& r2,
                                                  uint32_t& r3, uint32_t addr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
#endif
}

// d = a * b + d on a 16 x 8 x 16 tile: 2048 multiply-adds by the warp's 32 lanes together.
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4],
                                             const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

}  // namespace gemm::warp_tiling
