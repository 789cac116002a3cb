// Deliberately wrong kernels: the GPU tests feed them to the verifier, which must reject them.
// A verifier that passes these would pass anything.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::broken {
// Each computes a wrong result on every test shape: the verifier must reject all of them.
std::vector<Variant> variants();
// A shared-memory tiled kernel (chapter 02's) with one of its two __syncthreads() removed. The
// result is wrong only when the race happens to bite, so these are not verified; instead
// `ctest -L sanitize` runs them under compute-sanitizer racecheck, which must report the hazard.
std::vector<Variant> racy_variants();
}
