// Device helpers shared by the kernels of chapter 06 (not host-includable: nvcc only).
//
//   the warp grid            which warp tile of the block tile a warp owns
//   guarded global loads     one half, or a 16-byte chunk of 8 halves, zero outside the matrix
//   tile maps                which elements / chunks of a tile each thread loads
//   shared layouts           padded rows (WMMA) or an XOR swizzle (ldmatrix)
//   cp.async                 16-byte asynchronous copies global -> shared (sm_80+)
//   the WMMA step            one BK-deep step of a warp tile, from shared memory
//   the epilogues            accumulators -> C, guarded (staged through shared memory for WMMA)
//   host checks              may we use 16-byte loads? does this GPU run the sm_80 kernels?
//
// The kernels differ in *how* they use these; each kernel's own file shows its idea.
#pragma once

#include <cstdint>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "common/cuda_check.cuh"
#include "common/device_stores.cuh"
#include "common/gemm.cuh"
#include "common/per_device.cuh"
#include "06_warp_tiling/packing.cuh"

namespace gemm::warp_tiling {

namespace wmma = nvcuda::wmma;

// The WMMA shape of every fragment in this chapter: m16 n16 k16, fp16 in, fp32 accumulate.
constexpr int kFrag = 16;
using FragA = wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, __half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, __half, wmma::row_major>;
using FragC = wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float>;

// ---- The warp grid -----------------------------------------------------------------------------
// The block tile BM x BN is cut into (BM / WM) x (BN / WN) warp tiles; warp w owns the one at
// warp row w / (BN / WN), warp column w % (BN / WN). With the launchers' sizes (128 x 256 block
// tile, 64 x 64 warp tiles): 2 x 4 warps, 256 threads.
template <int BM, int BN, int WM, int WN>
struct WarpGrid {
  static_assert(BM % WM == 0, "WarpGrid: WM must divide BM");
  static_assert(BN % WN == 0, "WarpGrid: WN must divide BN");
  static constexpr int kWarpsM = BM / WM;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = 32 * kWarps;
  // First row and column of this thread's warp tile, inside the block tile.
  __device__ static int warp_row() { return (threadIdx.x / 32) / kWarpsN * WM; }  // KEY
  __device__ static int warp_col() { return (threadIdx.x / 32) % kWarpsN * WN; }  // KEY
};

// ---- Global loads, zero outside the matrix ------------------------------------------------------

// Element (row, col) of a rows x cols row-major matrix, or 0 outside it. A row of A or a column of
// B past the edge then adds 0 to every dot product, so any M, N, K works, K < BK included.
__device__ __forceinline__ __half load_or_zero(const __half* __restrict__ m, int rows, int cols,
                                               int row, int col) {
  return (row < rows && col < cols) ? m[row * cols + col] : __float2half(0.0f);
}

// Two halves in one 32-bit word, the first in the low half (the order they have in memory).
__device__ __forceinline__ uint32_t pack_halves(__half lo, __half hi) {
  return static_cast<uint32_t>(__half_as_ushort(lo)) |
         (static_cast<uint32_t>(__half_as_ushort(hi)) << 16);
}

// Elements (row, col .. col+7) as one 16-byte chunk, zero where outside. With VEC, and all eight
// inside, one 128-bit load (LDG.E.128.CONSTANT: through the read-only path). The caller
// guarantees that such an address is a multiple of 16: m 16-byte aligned, cols % 8 == 0 and
// col % 8 == 0 (a misaligned 128-bit load is not rounded or split: the kernel dies with
// "misaligned address").
template <bool VEC>
__device__ __forceinline__ uint4 load8_or_zero(const __half* __restrict__ m, int rows, int cols,
                                               int row, int col) {
  if (VEC && row < rows && col + 7 < cols)
    return *reinterpret_cast<const uint4*>(&m[row * cols + col]);  // KEY: one 128-bit load
  uint32_t w[4];  // [4]  8 halves, element by element
#pragma unroll
  for (int q = 0; q < 4; ++q)
    w[q] = pack_halves(load_or_zero(m, rows, cols, row, col + 2 * q),
                       load_or_zero(m, rows, cols, row, col + 2 * q + 1));
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// ---- Tile maps: which part of a ROWS x COLS tile thread `tid` loads -----------------------------

// One element at a time (kernels 1-2): element e = tid + p * THREADS, p = 0 .. kPerThread-1,
// row-major, so a warp reads 32 consecutive halves (64 bytes) of one row.
template <int ROWS, int COLS, int THREADS>
struct ElementMap {
  static_assert((ROWS * COLS) % THREADS == 0,
                "ElementMap: THREADS must divide the ROWS * COLS elements of the tile");
  static constexpr int kPerThread = ROWS * COLS / THREADS;
  __host__ __device__ static int row(int tid, int p) { return (tid + p * THREADS) / COLS; }
  __host__ __device__ static int col(int tid, int p) { return (tid + p * THREADS) % COLS; }
};

// 16-byte chunks of 8 halves (kernels 3-6): chunk f = tid + p * THREADS, row-major. For the A tile
// (BK = 32: 4 chunks per row) a warp reads 8 rows x 64 bytes; for the B tile (BN = 256: 32 chunks
// per row) one row of 512 contiguous bytes. Whole 32-byte sectors either way.
template <int ROWS, int COLS, int THREADS>
struct ChunkMap {
  static_assert(COLS % 8 == 0,
                "ChunkMap: COLS must be a multiple of 8 (16-byte chunks of 8 halves)");
  static_assert((ROWS * COLS / 8) % THREADS == 0,
                "ChunkMap: THREADS must divide the ROWS * COLS / 8 chunks of the tile");
  static constexpr int kChunksPerRow = COLS / 8;
  static constexpr int kPerThread = ROWS * COLS / 8 / THREADS;
  __host__ __device__ static int row(int tid, int p) { return (tid + p * THREADS) / kChunksPerRow; }
  __host__ __device__ static int col(int tid, int p) {
    return (tid + p * THREADS) % kChunksPerRow * 8;
  }
};

// ---- Shared-memory layouts: where element (row, col) of a tile lives, in halves -----------------

// Rows of LD = COLS + PAD halves (kernels 2-4). WMMA's load_matrix_sync takes a pointer and one
// row stride, so padding is the only layout change it allows. See kernel 2 for the bank math.
template <int LD>
struct Padded {
  __host__ __device__ static int offset(int row, int col) { return row * LD + col; }
};

// Rows of exactly COLS halves, the 16-byte chunks of each row permuted by an XOR (kernels 5-6).
// Chunk c of row r is stored at chunk position c ^ key(r):
//   COLS = 32 (A tile, 64-byte rows, 4 chunks): two rows share one 128-byte line of the 32 banks;
//        key = (r / 2) % 4. Eight consecutive rows then use line-units (r % 2) * 4 + (c ^ key):
//        all eight different for any c, so ldmatrix's 8 row reads take one wavefront.
//   COLS multiple of 64 (B tile, 256 halves: 32 chunks): every row starts at bank 0;
//        key = r % 8 flips the low three bits of c, so 8 consecutive rows at the same c hit 8
//        different 16-byte bank groups.
// The swizzle costs no memory, but WMMA cannot read it (load_matrix_sync takes one pointer and one
// stride); ldmatrix can: each lane gives the address of its own row.
template <int COLS>
struct Swizzle {
  static constexpr int kChunks = COLS / 8;  // 16-byte chunks per row
  static_assert(COLS % 8 == 0 && (kChunks == 4 || kChunks % 8 == 0),
                "Swizzle: COLS must be 32 halves (4 chunks) or a multiple of 64 halves (8 chunks)");
  __host__ __device__ static int key(int row) { return kChunks == 4 ? (row / 2) % 4 : row % 8; }
  // col: a multiple of 8 (the first half of a chunk).
  __host__ __device__ static int offset(int row, int col) {
    return row * COLS + ((col / 8) ^ key(row)) * 8;  // KEY: XOR, not +
  }
};

// ---- cp.async (sm_80+) --------------------------------------------------------------------------
// cp.async.cg.shared.global [dst], [src], 16, src_bytes: copy 16 bytes from global to shared memory
// without passing through registers, and without waiting: the thread goes on at once. Only the
// first src_bytes are read; the rest of the 16 are written as zeros (so src_bytes = 0 writes a
// zero chunk and reads nothing). .cg: cache in L2 only, not L1 (each tile is read once per block).
// Copies issued since the last commit form one group; wait_group N waits until at most N groups
// of this thread are still in flight. A barrier afterwards makes every thread's copies visible.

// A generic pointer to shared memory, as the 32-bit shared-window address that PTX wants.
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// This thread's cp.async copies of one operand's tiles, with everything that does not change from
// one tile to the next worked out once, before the K loop: the shared-memory offset of each chunk,
// its source in tile 0, and whether its coordinate that does not move with k is inside the matrix.
// Then a tile costs, per chunk, an address, a compare and the copy itself. (Written plainly, one
// cp_async_16 per chunk with both bounds checks and the address worked out from scratch, the
// copies took about twice the instructions per K step, beside mma_sync_ptx's 64 HMMA (nvcc 13.0,
// sm_90, when this was written).)
//   K_IN_COLS = true:  the A tiles of an M x K matrix, tile t at columns t * BK ..  (moves right)
//   K_IN_COLS = false: the B tiles of a K x N matrix, tile t at rows    t * BK ..  (moves down)
// Chunks outside the matrix are zero-filled (src_bytes = 0) and read nothing; their source is the
// matrix's base pointer, never an address past its end.
// Only for the 16-byte path: m 16-byte aligned and its row length a multiple of 8, so that every
// chunk's source is aligned and a chunk is wholly inside or wholly outside the matrix. cp.async
// needs a 16-byte aligned source, which an odd K or N cannot give (src_bytes could zero-fill the
// tail of a chunk that straddles the edge, but its source would still be misaligned); then
// kernel 4's launcher falls back to kernel 3's scalar loads, kernel 5's packs A and B first.
template <class Map, class Layout, int BK, bool K_IN_COLS>
struct TileCopier {
  static constexpr int kChunks = Map::kPerThread;
  const __half* src[kChunks];  // [chunks per thread]  source of chunk p in tile 0
  uint32_t dst[kChunks];       // [chunks per thread]  byte offset of chunk p in a stage
  int k0[kChunks];             // [chunks per thread]  its k (column of A, row of B) in tile 0
  bool fixed_ok[kChunks];      // [chunks per thread]  its row of A / column of B is inside
  long long step;              // elements from a chunk of tile t to the same chunk of tile t + 1

  // m: rows x cols, row-major; (row0, col0): the block's first row of A (col0 = 0) or first
  // column of B (row0 = 0).
  __device__ TileCopier(const __half* m, int rows, int cols, int row0, int col0) {
    step = K_IN_COLS ? BK : static_cast<long long>(BK) * cols;
#pragma unroll
    for (int p = 0; p < kChunks; ++p) {
      const int r = Map::row(threadIdx.x, p), c = Map::col(threadIdx.x, p);
      dst[p] = 2 * Layout::offset(r, c);
      k0[p] = K_IN_COLS ? c : r;
      fixed_ok[p] = K_IN_COLS ? row0 + r < rows : col0 + c < cols;
      // 64-bit offset: m may be a packed copy of more than 2^31 halves (packing.cuh).
      src[p] = fixed_ok[p] ? m + static_cast<long long>(row0 + r) * cols + col0 + c : m;
    }
  }

  // Tile t into the stage at shared address `stage`. K: the length of the k dimension.
  __device__ __forceinline__ void issue(uint32_t stage, const __half* m, int t, int K) const {
#pragma unroll
    for (int p = 0; p < kChunks; ++p) {
      const bool ok = fixed_ok[p] && k0[p] + t * BK < K;
      cp_async_16(stage + dst[p], ok ? src[p] + t * step : m, ok ? 16 : 0);  // KEY: no wait
    }
  }
};

// The same copies with fewer instructions per tile (kernel 6, mma_pipelined.cu, says why that
// matters on a GPU whose tensor cores are fast). TileCopier checks k on every chunk of every tile
// and picks between two sources; yet only a block's last tile can run past K. So this copier
//   - walks the tiles in order: each chunk's source moves one tile on per issue (src += step);
//   - never points outside the matrix: a chunk whose row of A (column of B) is outside reads the
//     last row (the last 8 columns) inside instead, for 0 bytes (zero-filled), so its source is
//     a real address for every tile that is inside K;
//   - issue<false>: a whole tile, no check at all (one copy and one add per chunk);
//     issue<true>: any tile, k checked as in TileCopier (only the block's last tiles need it).
// mma_pipelined.cu has the instruction counts it saves.
// The same preconditions as TileCopier (16-byte path), and the issues must come in tile order.
template <class Map, class Layout, int BK, bool K_IN_COLS>
struct TileStream {
  static constexpr int kChunks = Map::kPerThread;
  const __half* src[kChunks];  // [chunks per thread]  source of chunk p in the next tile
  bool inside[kChunks];        // [chunks per thread]  its row of A / column of B is inside
  long long step;              // elements from one tile to the next

  // m: rows x cols, row-major, cols >= 8; (row0, col0): the block's first row of A (col0 = 0) or
  // first column of B (row0 = 0); t0: the first tile this block copies.
  __device__ TileStream(const __half* m, int rows, int cols, int row0, int col0, int t0) {
    step = K_IN_COLS ? BK : static_cast<long long>(BK) * cols;
#pragma unroll
    for (int p = 0; p < kChunks; ++p) {
      const int r = Map::row(threadIdx.x, p), c = Map::col(threadIdx.x, p);
      inside[p] = K_IN_COLS ? row0 + r < rows : col0 + c < cols;
      const int row = K_IN_COLS ? min(row0 + r, rows - 1) : r;  // KEY: clamped, read for 0 bytes
      const int col = K_IN_COLS ? c : min(col0 + c, cols - 8);
      src[p] = m + static_cast<long long>(row) * cols + col + t0 * step;
    }
  }

  // Byte offset of chunk p in a stage (a constant per thread: the compiler folds it).
  __device__ static uint32_t dst(int p) {
    return 2 * Layout::offset(Map::row(threadIdx.x, p), Map::col(threadIdx.x, p));
  }

  // The next tile, number t, into the stage at shared address `stage`.
  // CHECKED = false only when tile t lies wholly inside K.
  template <bool CHECKED>
  __device__ __forceinline__ void issue(uint32_t stage, const __half* m, int t, int K) {
#pragma unroll
    for (int p = 0; p < kChunks; ++p) {
      if constexpr (!CHECKED) {
        cp_async_16(stage + dst(p), src[p], inside[p] ? 16 : 0);  // KEY: no check, no choice
      } else {
        const int k = (K_IN_COLS ? Map::col(threadIdx.x, p) : Map::row(threadIdx.x, p)) + t * BK;
        const bool ok = inside[p] && k < K;
        cp_async_16(stage + dst(p), ok ? src[p] : m, ok ? 16 : 0);
      }
      src[p] += step;
    }
  }
};

// ---- The WMMA step (kernels 3-4; kernels 1-2 write the same loop out) ---------------------------
// One BK-deep step of a warp's WM x WN tile: per 16-deep slice kk, load the WN/16 fragments of B
// once, then for each of the WM/16 fragments of A: load it once and use it WN/16 times.
// As points at the warp's first row of the A tile (row stride LDA), Bs at the warp's first column
// of the B tile (row stride LDB). Both fragments are read from shared memory with ldmatrix
// (LDSM.16.M88.4 for A, LDSM.16.MT88.4 for row-major B: the compiled code shows it).
template <int BK, int LDA, int LDB, int FM, int FN>
__device__ __forceinline__ void wmma_warp_step(const __half* As, const __half* Bs,
                                               FragC (&acc)[FM][FN]) {
  static_assert(BK % kFrag == 0, "wmma_warp_step: BK must be a multiple of 16 (k16 fragments)");
#pragma unroll
  for (int kk = 0; kk < BK; kk += kFrag) {
    FragB b[FN];  // [WN/16]  the warp's B fragments of this k slice
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], Bs + kk * LDB + j * kFrag, LDB);
#pragma unroll
    for (int i = 0; i < FM; ++i) {
      FragA a;  // one A fragment at a time: it is used FN times, then dropped
      wmma::load_matrix_sync(a, As + i * kFrag * LDA + kk, LDA);
#pragma unroll
      for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a, b[j], acc[i][j]);
    }
  }
}

// ---- The epilogues ------------------------------------------------------------------------------

// store4_guarded (row, col .. col+3 of C, guarded, 16 bytes at once where allowed) is shared with
// the other chapters: common/device_stores.cuh.

// WMMA accumulators -> C, through shared memory. A WMMA accumulator's layout in the lanes is not
// specified, so an edge tile cannot be stored element by element from registers; and
// store_matrix_sync straight to C would need a whole 16 x 16 fragment inside C and a 32-byte
// aligned address. So each fragment goes to this warp's 16 x 16 float scratch (`scratch`, 1 KB,
// 32-byte aligned) with store_matrix_sync, and the 32 lanes copy it out: lane l takes rows l/4 and
// l/4 + 8, columns (l%4)*4 .. +3. A warp's read is 512 contiguous bytes (no bank conflict), its
// write 8 rows x 64 bytes of C, each guarded.
// (row0, col0): the warp tile's first element in C.
template <bool VEC, int FM, int FN>
__device__ __forceinline__ void store_acc_staged(const FragC (&acc)[FM][FN], float* scratch,
                                                 float* __restrict__ C, int M, int N, int row0,
                                                 int col0) {
  const int lane = threadIdx.x % 32;
  const int r = lane / 4, c = (lane % 4) * 4;
#pragma unroll
  for (int i = 0; i < FM; ++i) {
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      wmma::store_matrix_sync(scratch, acc[i][j], kFrag, wmma::mem_row_major);
      __syncwarp();  // the fragment is in shared memory before any lane reads it
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(&scratch[(r + 8 * h) * kFrag + c]);
        store4_guarded<VEC>(C, M, N, row0 + i * kFrag + r + 8 * h, col0 + j * kFrag + c, v);
      }
      __syncwarp();  // every lane has read it before the next fragment overwrites it
    }
  }
}

// ---- Tile order ---------------------------------------------------------------------------------
// Tile t of C (0 .. tiles_m x tiles_n - 1) -> (tile row, tile column), in bands of group_m tile
// rows, each band walked column by column. The blocks that run at the same time then cover a
// compact patch of C (group_m rows of tiles by a few columns) instead of a few whole rows of it,
// so the panels of A and B they read are shared in L2 rather than fetched from DRAM again.
// group_m = 1 is the plain row-major order.
__device__ __forceinline__ int2 tile_grouped(int t, int tiles_m, int tiles_n, int group_m) {
  const int band = t / (group_m * tiles_n);
  const int first = band * group_m;
  const int rows = min(group_m, tiles_m - first);  // the last band may be narrower
  const int in_band = t - band * group_m * tiles_n;
  return make_int2(first + in_band % rows, in_band / rows);
}

// ---- Host checks --------------------------------------------------------------------------------

// May a kernel read A and B in 16-byte chunks (and write C in 16-byte pieces)? Every chunk starts
// a multiple of 8 halves into a row, so the rows must start at multiples of 16 bytes too: the
// base pointers aligned and the row lengths (K for A, N for B and C) multiples of 8. cudaMalloc
// returns 256-byte aligned memory, but the interface promises no alignment (a caller may pass
// A + 1). The same test decides whether cp.async (16-byte copies only) can be used at all.
inline bool vec8_ok(const __half* A, const __half* B, const float* C, int N, int K) {
  return rows_are_16_byte_aligned(A, B, N, K) && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
}

// May an epilogue store C as float2 pairs at even columns? Every row of C must start 8-byte
// aligned: C itself, and an even N.
inline bool float2_stores_ok(const float* C, int N) {
  return reinterpret_cast<std::uintptr_t>(C) % 8 == 0 && N % 2 == 0;
}

// Compute capability of the current GPU as major * 10 + minor, queried once per GPU (a machine
// may hold an H100 and an A100: each takes its own path; common/per_device.cuh).
inline int device_cc() {
  static PerDevice<int> cc_of;
  return cc_of.get([](int device) {
    int major = 0, minor = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return major * 10 + minor;
  });
}

// Does this GPU run the sm_80 code of `kernel` (cp.async, ldmatrix, mma.sync m16n8k16)? The GPU
// must be sm_80 or newer, and the image the runtime picked for it must have been compiled with
// __CUDA_ARCH__ >= 800: a build for sm_75 only, run on an A100, JIT-compiles the sm_75 PTX, whose
// kernel body is the #else branch (a trap). ptxVersion says which it is (75 or 80, 86, 90 ...).
inline bool runs_sm80_code(const void* kernel) {
  if (device_cc() < 80) return false;
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  return attr.ptxVersion >= 80;
}

// ---- The launch configuration of the chapter ----------------------------------------------------
// Chosen here, once, for every launcher (warp_tiling.cu, cp_async.cu, mma_ptx.cu); the pipeline
// depths are chosen next to their launchers. README.md, "The hierarchy of tiles", explains them.
constexpr int kBM = 128, kBN = 256, kBK = 32;  // block tile; BK = two k16 slices per K step
constexpr int kWM = 64, kWN = 64;              // warp tile: 2 x 4 warps, 4 x 4 WMMA fragments each
constexpr int kPad = 8;                        // halves of padding per shared row (kernels 2-4)
constexpr int kThreads = WarpGrid<kBM, kBN, kWM, kWN>::kThreads;  // 256

// x: column tiles, y: row tiles (gridDim.y allows 65535 x 128 rows).
inline dim3 grid_for(int M, int N) { return dim3(ceil_div(N, kBN), ceil_div(M, kBM)); }

}  // namespace gemm::warp_tiling
