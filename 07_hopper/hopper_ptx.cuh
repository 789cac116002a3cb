// The PTX of chapter 07's kernels (wgmma_tma.cu, wgmma_warp_specialized.cu,
// wgmma_persistent.cuh), one small wrapper per instruction, as chapter 06's mma_ptx.cuh is for
// mma.sync. Not host-includable: nvcc only. README.md explains each one.
//
//   mbarrier     a 64-bit counter in shared memory that threads and the copy engine arrive on;
//                waiting on it is how a thread learns that a tile has landed or a stage is free
//   TMA          cp.async.bulk.tensor: one thread asks the copy engine for a whole 2D box of a
//                matrix, described by a tensor map; the engine swizzles it into shared memory and
//                counts the bytes into an mbarrier
//   wgmma        a warpgroup (4 warps, 128 threads) multiplies a 64 x N x 16 slice, A and B read
//                straight from shared memory through 64-bit descriptors, asynchronously
//   setmaxnreg   a warpgroup gives registers back to the SM, or takes more
//   TMA stores   the reverse copy, a box of shared memory out to C, tracked in bulk groups
//   clusters     blocks that run together, arrive on each other's mbarriers, and receive one TMA
//                copy at once (multicast)
//
// wgmma exists only in the architecture-specific target sm_90a (compute capability 9.0 exactly:
// H100, H200, GH200), and so, among 9.0's targets, does setmaxnreg (later GPUs' own "a" targets
// have it too). The build compiles these files for sm_90a when its architecture list has 90
// (07_hopper/CMakeLists.txt); otherwise GEMM_SM90A_DEVICE is 0, the wrappers guarded by it are
// empty, the kernels trap, and their launchers never run them (they run chapter 06's
// mma_sync_pipelined instead).
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap: the type only; nothing links against the driver library

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMM_SM90A_DEVICE 1
#else
#define GEMM_SM90A_DEVICE 0
#endif

namespace gemm::hopper {

// ---- mbarrier ------------------------------------------------------------------------------------
// A barrier object of 8 bytes in shared memory. init sets how many arrivals complete one phase.
// A phase completes when that many threads have arrived AND every byte announced with expect_tx
// has been written by the copy engine; then the barrier flips to the next phase. Phases are told
// apart by their parity (0, 1, 0, 1, ...): a thread waits for "the phase with parity p has
// completed". A fresh barrier is in phase 0, and waiting for parity 1 returns at once (the phase
// "before" phase 0 counts as complete): that is how a producer's first wait on an empty stage
// passes.

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t arrivals) {
#if GEMM_SM90A_DEVICE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
#endif
}

// Orders this thread's mbarrier.init operations (and only them) before what follows, with release
// semantics at cluster scope, so that the other block of a cluster (step 4) may arrive on them
// once the cluster barrier that follows has passed; __syncthreads() does the same for the threads
// of this block.
__device__ __forceinline__ void fence_mbarrier_init() {
#if GEMM_SM90A_DEVICE
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

// One arrival, and `bytes` more to wait for in this phase (the TMA copies will deliver them).
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
#if GEMM_SM90A_DEVICE
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
#if GEMM_SM90A_DEVICE
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#endif
}

// Waits for the phase with this parity. mbarrier.try_wait returns whether it has completed, after
// suspending the thread for a while if not; the loop asks again until it has. After 2^26 tries
// (about a second on an H100) the kernel traps: a wait that long means a bug in the protocol (a
// wrong parity, a missing arrival, a wrong byte count), and the program then stops with an error
// instead of hanging the GPU. The loop is written in PTX, in one statement: an early version in
// C++, with the trap on a branch of its own, had ptxas (13.0) wait for the running wgmmas before
// every retry (such a loop's layout decides that: docs/notes/07_hopper.md, "History").
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
#if GEMM_SM90A_DEVICE
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "  .reg .u32 tries;\n"
      "  mov.u32 tries, 0;\n"
      "RETRY:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "  @done bra DONE;\n"
      "  add.u32 tries, tries, 1;\n"
      "  setp.lt.u32 done, tries, 67108864;\n"
      "  @done bra RETRY;\n"
      "  trap;\n"
      "DONE:\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#endif
}

// ---- TMA: one 2D box of a matrix into shared memory ----------------------------------------------
// The tensor map (built on the host, hopper_host.cu) holds the matrix's address, sizes, row stride,
// the box size and the swizzle. (c0, c1) is the box's first element: c0 along the contiguous
// dimension (the column), c1 along the rows. Elements outside the matrix arrive as zeros, and
// their bytes still count towards the barrier's transaction count. One thread issues it.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int c0, int c1,
                                            uint32_t bar) {
#if GEMM_SM90A_DEVICE
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
#endif
}

// ---- Clusters (step 4) ---------------------------------------------------------------------------
// A thread-block cluster is a group of blocks (here 2) that the GPU runs at the same time on
// neighbouring SMs of one GPC. Each block can address the others' shared memory (the
// "shared::cluster" window), arrive on their mbarriers, and be the target of one TMA copy that
// lands in every block of the cluster at once (multicast): the tile is read from L2 once and
// written into 2 shared memories.

// This block's rank within its cluster: 0 .. cluster size - 1.
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t rank = 0;
#if GEMM_SM90A_DEVICE
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
#endif
  return rank;
}

// Every thread of every block of the cluster waits here for all the others (the cluster's
// __syncthreads()). Release/acquire: what each thread wrote before it (barrier initialisations)
// is visible to the whole cluster after it. Not the .aligned form: the producer warpgroup's
// threads arrive here from different branches.
__device__ __forceinline__ void cluster_sync() {
#if GEMM_SM90A_DEVICE
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::: "memory");
#endif
}

// One arrival on the mbarrier at shared address `bar` of another block `cta` of this cluster:
// mapa translates our shared address into that block's. The default memory order, release at CTA
// scope, is what a consumer needs (it has waited for its wgmmas, so its reads of the stage are
// done). Written .release.cluster, the compiler put a MEMBAR.ALL.GPU before every arrival, which
// waited for the wgmmas in flight too: the tensor cores idled at every K step, and the kernel ran
// at half speed (8192^3 on an H100: 3.53 ms against 1.68 ms).
__device__ __forceinline__ void mbar_arrive_remote(uint32_t bar, uint32_t cta) {
#if GEMM_SM90A_DEVICE
  asm volatile(
      "{\n"
      "  .reg .b32 remote;\n"
      "  mapa.shared::cluster.u32 remote, %0, %1;\n"
      "  mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
#endif
}

// tma_load_2d, multicast: the box lands at the same shared address `dst` in every block of the
// cluster whose bit is set in `mask`, and each block's mbarrier at address `bar` counts its bytes.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map, int c0,
                                                      int c1, uint32_t bar, uint16_t mask) {
#if GEMM_SM90A_DEVICE
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
#endif
}

// ---- TMA stores: a box of shared memory out to a matrix (step 5) --------------------------------
// The reverse copy: the engine reads a box from shared memory (laid out as the tensor map's swizzle
// says) and writes it into the matrix, skipping what falls outside. Its completion is tracked per
// thread in "bulk groups", as cp.async's groups are: commit closes a group, wait_group.read N
// returns when at most N groups still have to READ their shared memory (the buffer may then be
// written again), wait_group N when at most N are still writing to global memory.

// Ordinary stores to shared memory (the generic proxy) become visible to the copy engine (the
// async proxy) only after this fence, executed by each thread that wrote, before the barrier
// after which one thread issues the copy.
__device__ __forceinline__ void fence_proxy_async_shared() {
#if GEMM_SM90A_DEVICE
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// A barrier for `threads` threads (a multiple of 32) only, numbered `id` (1..15; 0 is
// __syncthreads()'s): one consumer warpgroup synchronises without stopping the other warpgroups.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
#if GEMM_SM90A_DEVICE
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#endif
}

__device__ __forceinline__ void st_shared_v2(uint32_t addr, float x, float y) {
#if GEMM_SM90A_DEVICE
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(x), "f"(y) : "memory");
#endif
}

// One box from shared memory at `src` to the matrix at (c0 = column, c1 = row).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int c0, int c1, uint32_t src) {
#if GEMM_SM90A_DEVICE
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::
                   "l"(reinterpret_cast<uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(src)
               : "memory");
#endif
}

__device__ __forceinline__ void tma_store_commit() {
#if GEMM_SM90A_DEVICE
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

// At most N of this thread's bulk groups still reading shared memory.
template <int N>
__device__ __forceinline__ void tma_store_wait_read() {
#if GEMM_SM90A_DEVICE
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#endif
}

// At most N of this thread's bulk groups not yet complete (their writes done).
template <int N>
__device__ __forceinline__ void tma_store_wait() {
#if GEMM_SM90A_DEVICE
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// ---- wgmma ---------------------------------------------------------------------------------------
// The shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"), 64 bits:
//   bits  0-13  start address >> 4 (an address in the shared window)
//   bits 16-29  leading-dimension byte offset >> 4 (LBO)
//   bits 32-45  stride-dimension byte offset >> 4  (SBO)
//   bits 49-51  base offset: 0, because every tile starts at a 1024-byte boundary
//   bits 62-63  swizzle mode: 1 = the 128-byte swizzle that TMA wrote
// The tiles are made of "core matrices" of 8 rows x 16 bytes. With the 128-byte swizzle, 8 rows
// of 128 bytes (1024 bytes) form one swizzle atom; SBO is the step from one group of 8 rows (along
// M or N for a K-major operand, along K for an N-major one) to the next, LBO the step between
// 64-element column blocks of an N-major operand (README.md, "The 128-byte swizzle and the
// descriptors", draws both).
__device__ __forceinline__ uint64_t smem_desc_sw128(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>(lbo >> 4) << 16) | (static_cast<uint64_t>(sbo >> 4) << 32) |
         (1ull << 62);
}

// Orders this thread's earlier accesses to the accumulators before the wgmmas that follow. PTX
// asks for it before a warpgroup's first wgmma and between any other instruction's access to the
// accumulators and a wgmma that uses them; wgmmas of one shape chained on the same accumulators
// need none between them. mma_stage issues one per K step, before its 4 wgmmas.
__device__ __forceinline__ void wgmma_fence() {
#if GEMM_SM90A_DEVICE
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

// Closes a group of wgmmas issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
#if GEMM_SM90A_DEVICE
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

// Waits until at most N groups of this thread are still running.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
#if GEMM_SM90A_DEVICE
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}

// The accumulators are written by the tensor cores after the wgmma instruction has issued; to the
// compiler, they were written at the issue. After wgmma_wait, this empty statement tells it that
// each register may have changed here, so no read of an accumulator is moved above the wait.
template <int N>
__device__ __forceinline__ void fence_accumulators(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// D (64 x 256, fp32) = A (64 x 16, fp16) * B (16 x 256, fp16) + (accumulate ? D : 0), by the 128
// threads of one warpgroup. A is K-major (its rows are K-contiguous, as A is in global memory),
// B is N-major (its rows are N-contiguous, as B is): the last immediate, imm-trans-b = 1, says so.
// The immediates are: scale A by +1, scale B by +1, A not transposed, B transposed (N-major).
// Thread t (warp w = t / 32 of the warpgroup, lane l, g = l / 4, q = l % 4) holds, for each
// j = 0..31 (the 8-column block 8j .. 8j+7):
//   d[4j + 0], d[4j + 1]: row 16w + g,     columns 8j + 2q, 8j + 2q + 1
//   d[4j + 2], d[4j + 3]: row 16w + g + 8, the same columns
// (the layout of mma.sync's 16 x 8 accumulator, repeated 32 times along N, one warp per 16 rows).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                                 bool accumulate) {
#if GEMM_SM90A_DEVICE
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  setp.ne.b32 p, %130, 0;\n"
      "  wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16\n"
      "  {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n"
      "   %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,\n"
      "   %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,\n"
      "   %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,\n"
      "   %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,\n"
      "   %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,\n"
      "   %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109,\n"
      "   %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123,\n"
      "   %124, %125, %126, %127},\n"
      "  %128, %129, p, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),
        "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
        "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),
        "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
        "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]),
        "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
        "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
        "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)));
#endif
}

// The same for a 64 x 128 tile (wgmma_persistent's 128 x 128 and 64 x 128 block tiles): 64
// accumulators per thread, d[4j ..] for j = 0..15, laid out as in wgmma_m64n256k16.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                 bool accumulate) {
#if GEMM_SM90A_DEVICE
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  setp.ne.b32 p, %66, 0;\n"
      "  wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16\n"
      "  {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n"
      "   %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,\n"
      "   %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,\n"
      "   %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},\n"
      "  %64, %65, p, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)));
#endif
}

// ---- Partial sums through global memory (the tail split) ---------------------------------------
// A 16-byte store and load that bypass L1 (.cg: cached in L2 only, where every SM sees the same
// bytes), written as volatile asm with a "memory" clobber: the compiler may neither drop them nor
// move them across the __threadfence() and the atomic that order them against other blocks. (The
// toolkit's __stcg / __ldcg have no clobber; a load moved above the arrival that says the data is
// there would read whatever the workspace held before.)
__device__ __forceinline__ void st_global_cg_v4(float4* p, float4 v) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y),
               "f"(v.z), "f"(v.w)
               : "memory");
}
__device__ __forceinline__ float4 ld_global_cg_v4(const float4* p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

// ---- Register reallocation -----------------------------------------------------------------------
// Every thread of the warpgroup executes it; the count is per thread, a multiple of 8 in 24..256.
// The kernel must start with a register cap (__launch_bounds__(threads, 1)), which the warpgroups
// then trade among themselves: the producer gives registers back, the consumers take them.
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
#if GEMM_SM90A_DEVICE
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
#endif
}

template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
#if GEMM_SM90A_DEVICE
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
#endif
}

}  // namespace gemm::hopper
