// Deliberately wrong kernels: the GPU tests feed them to the verifier, which must reject them.
// A verifier that passes these would pass anything.
#pragma once

#include <vector>

#include "common/gemm.cuh"

namespace gemm::broken {
std::vector<Variant> variants();
}
