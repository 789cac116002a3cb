// Exit codes shared by every chapter program (documented in README.md, "Build and run a chapter").
#pragma once

namespace gemm {
enum ExitCode : int {
  kExitOk = 0,           // every selected variant ran and passed verification
  kExitVerifyFailed = 1, // at least one variant produced a wrong result
  kExitBadInput = 2,     // bad command line: not a number, size < 1, too large, unknown variant
  kExitNoGpu = 3,        // no CUDA GPU, or one too old for this chapter
  kExitCudaError = 4,    // an unexpected CUDA or cuBLAS error (a bug: please report it)
};
}  // namespace gemm
