// =================================================================================================
// Exercise 07 - the pipeline of a warp-specialized Hopper kernel: who waits for what, who arrives
// where, and how many bytes make a stage.
//
// What to do: fill in the four numbered gaps in pipeline_exercise_kernel below. C = A x B,
// row-major; A is M x K and B is K x N in fp16 (__half), C is fp32. This is the chapter's step 2,
// wgmma_warp_specialized: a block of 3 warpgroups computes one 128 x 256 tile of C, walking along
// K in steps of 64 through a ring of 4 shared-memory stages.
//   warpgroup 0, the producer: one thread asks the copy engine (TMA) for each K step's tiles
//   warpgroups 1 and 2, the consumers: 64 rows of the tile each, with wgmma
// Each stage s has two mbarriers (README.md, step 1, "mbarriers: phases and transaction
// counts"):
//   full(s)   completes a phase when the producer has arrived once AND the copy engine has
//             delivered every byte the producer announced for it
//   empty(s)  completes a phase when all 8 consumer warps have arrived (they are done reading)
// Everything else is given: the barriers' initialisation, the wgmmas, the store of C, the
// launcher. The gaps are the protocol:
//   gap 1  the producer waits until stage s is empty (its previous use has been released)
//   gap 2  the producer announces how many bytes stage s will receive (and arrives), then asks
//          the copy engine for K step k's boxes
//   gap 3  each consumer waits until stage s is full
//   gap 4  each consumer warp releases the stage it finished with
// README.md explains each instruction (step 1) and this kernel ("Step 2, wgmma_warp_specialized:
// a producer and two consumers"); hopper_ptx.cuh has the wrappers you need: mbar_wait,
// mbar_arrive_expect_tx, tma_load_2d, mbar_arrive. Try without looking at
// wgmma_warp_specialized.cu (this kernel, complete), then compare.
// Each gap holds a line `EXERCISE_GAP(n);`: delete it once you have written gap n, so the grader
// knows you tried.
//
// When you are done, the kernel must be correct for EVERY M, N, K >= 1. The unmodified file
// compiles, runs and fails verification. A mistake in the protocol usually shows as a wait that
// never ends: mbar_wait then stops the kernel within a second or so (an "unspecified launch
// failure"), and the grade says "crashed". Worse, some mistakes are races no tool reports, caught
// only when a test shape happens to lose them (README.md, "Correctness, and what the sanitizers
// cannot see"): reason about each wait and arrival, do not only test. And read what the build
// prints: a correct kernel can still be slow (gap 4 says how).
// Needs an H100, H200 or GH200 (sm_90a) and a build whose CUDA architectures include 90; anywhere
// else the program and the grading tests say so and are skipped.
//
// Build and run (from the repository root):
//   cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=90 -DGEMM_EXERCISES=ON
//   cmake --build build --target 07_hopper_exercise
//   ./build/bin/07_hopper_exercise --size 1024
// Grade yourself (every awkward shape, compared with the chapter's wgmma_warp_specialized):
//   cmake --build build --target exercises   # the grading programs
//   ctest --test-dir build -L exercise --output-on-failure
// =================================================================================================
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "06_warp_tiling/tile_helpers.cuh"  // float2_stores_ok
#include "07_hopper/hopper_host.cuh"
#include "07_hopper/hopper_ptx.cuh"
#include "07_hopper/hopper_tiles.cuh"
#include "common/cuda_check.cuh"
#include "common/exercise.cuh"
#include "common/gemm.cuh"
#include "common/per_device.cuh"

namespace gemm::hopper_exercise_impl {

using namespace gemm::hopper;  // the chapter's PTX wrappers, shared layout and tile pieces

constexpr int kStages = 4;
constexpr int kThreads = 384;        // the producer warpgroup and two consumer warpgroups
constexpr int kConsumerWarps = 8;    // arrivals that complete a phase of empty(s)
using Layout = SharedLayout<kStages>;  // 4 stages of a 128 x 256 tile (hopper_tiles.cuh)

// Given: waits for the phase with this parity, but gives up after about a millisecond instead of
// stopping the kernel. Used only by the drain at the end of the kernel, never by the pipeline.
__device__ __forceinline__ void wait_or_give_up(uint32_t bar, uint32_t parity) {
#if GEMM_SM90A_DEVICE
  for (int tries = 0; tries < (1 << 16); ++tries) {
    uint32_t done = 0;
    asm volatile(
        "{\n"
        "  .reg .pred p;\n"
        "  mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "  selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    if (done) return;
  }
#endif
}

__global__ void __launch_bounds__(kThreads, 1)
    pipeline_exercise_kernel(const __grid_constant__ CUtensorMap map_a,
                             const __grid_constant__ CUtensorMap map_b, float* __restrict__ C,
                             int M, int N, int K, bool pairs) {
#if GEMM_SM90A_DEVICE
  extern __shared__ unsigned char smem_raw[];
  const Layout sm(smem_raw);
  const int wg = threadIdx.x / 128;
  const int tiles_n = (N + kBN - 1) / kBN;
  const int m0 = (blockIdx.x / tiles_n) * kBM, n0 = (blockIdx.x % tiles_n) * kBN;
  const int k_steps = (K + kBK - 1) / kBK;

  // Given: the barriers, before anyone uses them.
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(sm.full(s), 1);                // the producer's one arrival (+ the bytes)
      mbar_init(sm.empty(s), kConsumerWarps);  // one arrival per consumer warp
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  // K step k uses stage s = k % kStages, for the (k / kStages)-th time: its phase number there.
  if (wg == 0) {
    // ---- The producer ---------------------------------------------------------------------------
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      for (int k = 0; k < k_steps; ++k) {
        [[maybe_unused]] const int s = k % kStages;  // unused until you write gaps 1 and 2
        // ---- Gap 1: wait until stage s is empty ----------------------------------------------
        // Step k may overwrite stage s once the consumers have released its previous use, step
        // k - kStages. Wait on empty(s) for the right parity. (The first kStages steps have no
        // previous use: which parity returns at once on a fresh barrier?)
        EXERCISE_GAP(1);  // delete this line when you have written gap 1

        // ---- Gap 2: announce the stage's bytes, and copy K step k into stage s ----------------
        // First one call on full(s): this thread's arrival, and the number of bytes the copies
        // will deliver into stage s. Count them: 2 boxes of A and 4 of B, each 64 x 64 halves (a
        // box that hangs over the edge of a matrix still delivers all its bytes, as zeros).
        // Then the 6 copies, tma_load_2d(destination, &map, column, row, full(s)): the column
        // first (the contiguous dimension), then the row, each the box's first element.
        //   A box a = 0, 1:        into sm.a(s) + a * kBoxABytes, rows m0 + 64 a .., k from k kBK
        //   B box b = 0, 1, 2, 3:  into sm.b(s) + b * kBoxBBytes, k rows from k kBK, columns
        //                          n0 + 64 b ..
        EXERCISE_GAP(2);  // delete this line when you have written gap 2
      }
      // Given: the drain. A block must not exit while copies into its shared memory are still
      // under way. In a correct pipeline the consumers have already waited for every stage, and
      // this returns at once; in a broken one it keeps the mistake from faulting the GPU.
      for (int s = 0; s < kStages && s < k_steps; ++s) {
        const int last = k_steps - 1 - (k_steps - 1 - s) % kStages;  // stage s's last step
        wait_or_give_up(sm.full(s), (last / kStages) & 1);
      }
    }
  } else {
    // ---- The consumers --------------------------------------------------------------------------
    setmaxnreg_inc<232>();
    const int cw = wg - 1;  // consumer 0: rows 0-63 of the tile, consumer 1: rows 64-127
    // Given: lane 0 of each warp arrives for its warp (gap 4), decided once, before the loop, as
    // wgmma_warp_specialized.cu does. Use it in gap 4 rather than testing threadIdx.x there (gap
    // 4 says why).
    [[maybe_unused]] const bool arrives = threadIdx.x % 32 == 0;
    float acc[kBN / 2] = {};
    for (int k = 0; k < k_steps; ++k) {
      const int s = k % kStages;
      // ---- Gap 3: wait until stage s is full -------------------------------------------------
      // Every consumer thread waits on full(s) for the phase that step k's copies complete.
      EXERCISE_GAP(3);  // delete this line when you have written gap 3

      // Given: 4 wgmmas on stage s (asynchronous), then wait until at most one group, this
      // one, is still running: step k - 1's wgmmas have finished reading their stage.
      mma_stage<kBN>(acc, sm.a(s), sm.b(s), cw, k > 0);
      wgmma_wait<1>();

      // ---- Gap 4: release the stage that step k - 1 read ----------------------------------------
      // One arrival per consumer warp (the thread whose `arrives` is true) on empty of step
      // k - 1's stage, if there was a step k - 1. Why k - 1 and not k, here? (Step k's wgmmas may
      // still be reading.)
      // Mind the build output: a correct gap 4 can still make a slow kernel. If nvcc prints
      //   ptxas info : (C7515) Potential Performance Loss: wgmma.mma_async instructions are
      //   serialized due to non wgmma instructions defining accumulator registers of a wgmma
      //   between start and end of the pipeline stage in the function '...'
      // then ptxas saw an instruction other than a wgmma write accumulator registers between a
      // wgmma's issue and the wait that retires it (here that window crosses the loop's back edge:
      // wgmma_wait<1> leaves step k's group running into step k + 1), and so made each wgmma wait
      // for the one before. The result stays correct; the tensor cores idle between wgmmas, and
      // the speed grade falls a few percent below the reference. No line of this kernel writes an
      // accumulator there: what decides it is how the compiler lays out the loop around this
      // gap's branch, which only lane 0 takes. Measured on this file with nvcc 13.0: the branch
      // tested on `threadIdx.x % 32 == 0` here, with the stage written (k - 1) % kStages, prints
      // C7515; the same branch tested on `arrives` (as wgmma_warp_specialized.cu does) builds
      // without it, and so does the stage written from s, (s + kStages - 1) % kStages, which
      // cannot be negative and lets nvcc unroll the loop to two K steps per trip (`#pragma unroll
      // 1` on the loop brings the warning back). The signed remainder is not wrong in itself:
      // wgmma_warp_specialized.cu writes (k - 1) % STAGES.
      EXERCISE_GAP(4);  // delete this line when you have written gap 4
    }
    // Given: the last group, then the store. (The last stage need not be released: one tile per
    // block, nothing will refill it.)
    wgmma_wait<0>();
    fence_accumulators(acc);
    store_tile<kBN>(acc, C, M, N, m0 + 64 * cw, n0, pairs);
  }
#endif
}

// Given: the launcher, one block per 128 x 256 tile of C. A and B as tensor maps (packed copies
// where their rows do not start at 16-byte boundaries, as the chapter's launchers do).
void launch_exercise(const __half* A, const __half* B, float* C, int M, int N, int K,
                     cudaStream_t stream) {
  if (!runs_here()) {  // the harness does not call it then; a direct call gets one sentence
    std::fprintf(stderr, "07_hopper exercise: %s.\n", why_not().c_str());
    std::exit(kExitNoGpu);
  }
  static PerDevice<bool> allowed_on;  // once per GPU (common/per_device.cuh)
  allowed_on.get([](int) {
    CUDA_CHECK(cudaFuncSetAttribute(pipeline_exercise_kernel,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, Layout::kBytes));
    return true;
  });
  const AlignedOperands ops(A, B, M, N, K, stream);
  const TensorMaps maps = make_tensor_maps(ops, M, N);
  const bool pairs = warp_tiling::float2_stores_ok(C, N);
  const int tiles = ceil_div(M, kBM) * ceil_div(N, kBN);
  pipeline_exercise_kernel<<<tiles, kThreads, Layout::kBytes, stream>>>(maps.a, maps.b, C, M, N,
                                                                       ops.k(), pairs);
  CUDA_CHECK(cudaGetLastError());  // a bad launch configuration fails here, loudly
}

// Given: why this exercise cannot run here ("" where it can), for the program and the tests.
std::string cannot_run_here() { return runs_here() ? "" : why_not(); }

}  // namespace gemm::hopper_exercise_impl

GEMM_EXERCISE_EXPORT_WHERE(hopper, hopper_exercise_impl::launch_exercise,
                           hopper_exercise_impl::cannot_run_here)
