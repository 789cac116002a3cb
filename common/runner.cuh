// The standalone program every GPU chapter shares: parse the command line, check the GPU, make a
// random problem, time cuBLAS, then run, verify and time each selected variant and print a table.
// A chapter's main.cu is a few lines that describe the chapter and call run_gpu_chapter().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/gemm.cuh"
#include "common/verify.hpp"

namespace gemm {

struct GpuChapter {
  std::string name;         // "01_naive": folder, target, binary, ctest label
  std::string description;  // one line, shown by --help and at the top of the output
  std::vector<Variant> variants;
  Precision precision = Precision::kF32;
  int min_cc = 0;           // lowest compute capability (major*10 + minor), e.g. 70 for tensor cores
  std::string min_cc_reason;  // why, for the one-sentence message on an older GPU
  // Optional, for what compute capability alone cannot say (07's exercise needs exactly sm_90a
  // and a build for it): "" where the chapter can run here, otherwise why not, for the message.
  std::function<std::string()> cannot_run;
  bool allows_managed = false;
  // Optional: printed after the device header, before any kernel runs (e.g. the occupancy of each
  // tile size, computed with the CUDA occupancy API for this GPU).
  std::function<void()> describe;
};

int run_gpu_chapter(int argc, char** argv, const GpuChapter& chapter);

}  // namespace gemm
