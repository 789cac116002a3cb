// The exercise suite: tests/test_gpu.cpp compiled a second time, with GEMM_EXERCISE_SUITE defined,
// and linked once per exercise (and per reference solution) with a generated file that names it
// (tests/exercises/CMakeLists.txt). Each program has one "chapter": NN_name_exercise, whose only
// variant is the student's kernel, or NN_name_solution, the chapter's own kernel in its place.
// Linking each exercise on its own means a submission that does not compile costs that exercise
// only, not the whole class's grading.
//
// On top of the chapters' checks, the suite turns the run into a grade (grading.hpp) and writes it
// as one line to the file named by GEMM_GRADE_FILE, for scripts/run/grade.sh to print:
//   passed | failed: at MxNxK, C[r][c] = got, expected exp (bound b); ... | not attempted (gaps ..)
// Before each shape it writes "failed: crashed or hung at MxNxK", so a kernel that faults (the
// CUDA error ends the program) or hangs (ctest stops it) still leaves a line that says where.
//
// GEMM_EXERCISE_EXPECT=not_attempted (the self-test of an unmodified skeleton) inverts the check:
// the test passes only when the grade is "not attempted".
// A "passed" grade is then timed by a test of its own, NN_name_exercise_speed (exercise_speed.cpp).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "common/gemm.cuh"
#include "common/verify.hpp"
#include "exercises/grading.hpp"

struct ExerciseInfo {
  std::string name;         // "02_shared_tiling_exercise" or "02_shared_tiling_solution"
  unsigned (*open_gaps)();  // the gaps its kernel ran through since the last call (then cleared)
  unsigned skeleton_gaps;   // every gap of the unmodified skeleton (0 for a solution)
  std::string (*cannot_run)();  // "" where it can run on this GPU; else why not (main() skips)
};

// Defined by the generated file of each exercise test program.
std::vector<std::pair<std::string, std::vector<gemm::Variant>>> all_gpu_chapters();
ExerciseInfo exercise_info();

namespace grading_detail {
inline std::string& grade_file() {
  static std::string path;
  return path;
}
inline std::string& running_shape() {
  static std::string shape;
  return shape;
}
inline void write_grade(const std::string& line) {
  if (grade_file().empty()) return;
  std::ofstream out(grade_file(), std::ios::trunc);
  out << line << "\n";
  if (!out) std::printf("warning: cannot write the grade file %s\n", grade_file().c_str());
}
// Runs at exit(), also when CUDA_CHECK ends the program in the middle of a shape: then the
// provisional line gets the CUDA error. A fault (an illegal address) is sticky, so
// cudaGetLastError() still returns it here. Registered after the CUDA runtime's own handlers,
// so it runs before them.
inline void on_exit() {
  if (running_shape().empty()) return;
  const cudaError_t err = cudaGetLastError();
  write_grade("failed: crashed at " + running_shape() +
              (err != cudaSuccess ? std::string(" (CUDA error: ") + cudaGetErrorString(err) + ")"
                                  : std::string(" (the program exited during the run)")));
}
}  // namespace grading_detail

class Grader {
 public:
  Grader() : info_(exercise_info()) {
    if (const char* f = std::getenv("GEMM_GRADE_FILE")) grading_detail::grade_file() = f;
    const char* expect = std::getenv("GEMM_EXERCISE_EXPECT");
    expect_not_attempted_ = expect && std::string(expect) == "not_attempted";
    std::atexit(grading_detail::on_exit);
  }

  // The self-test of an unmodified skeleton: no shape is expected to pass.
  bool expects_not_attempted() const { return expect_not_attempted_; }

  void running(const std::string& shape) {
    grading_detail::running_shape() = shape;
    grading_detail::write_grade("failed: crashed or hung at " + shape);
  }

  void record(const std::string& shape, const gemm::VerifyResult& r) {
    grading_detail::running_shape().clear();
    ++shapes_;
    if (r.passed() || !passed_) return;
    passed_ = false;
    first_bad_shape_ = shape;
    first_bad_ = r;
  }

  // Reads (and clears) the gaps the kernel ran through, writes the grade file and returns the line.
  std::string finish() {
    const unsigned open = info_.open_gaps();
    const bool passed = passed_ && shapes_ > 0;
    const std::string line = gemm::exercise::grade_line(passed, first_bad_shape_, first_bad_, open,
                                                        info_.skeleton_gaps);
    grading_detail::write_grade(line);
    std::printf("%s: %s\n", info_.name.c_str(), line.c_str());
    return line;
  }

 private:
  ExerciseInfo info_;
  bool expect_not_attempted_ = false;
  bool passed_ = true;
  int shapes_ = 0;
  std::string first_bad_shape_;
  gemm::VerifyResult first_bad_;
};
