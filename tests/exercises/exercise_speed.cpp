// build/tests/NN_name_exercise_speed: how fast an exercise's kernel runs next to its reference
// solution (the chapter's own kernel), on the same GPU and in the same process. ctest runs it as
// the test NN_name_exercise_speed (label exercise) after the grading test NN_name_exercise, alone
// on the GPU (RUN_SERIAL); scripts/run/grade.sh turns the record it writes into the grade
// (speed_grading.hpp; docs/instructors.md, section 4).
//
// A timing is never a pass/fail test (CONVENTIONS.md, 11): a slow kernel exits 0 like a fast one.
// The exit code says whether a measurement was made:
//   0    measured: the record is in GEMM_SPEED_FILE, the ratio and the grade are printed
//   77   not timed (ctest: skipped): no GPU, no tensor cores for an fp16 exercise, a GPU the
//        exercise cannot run on (07's needs sm_90a), or the grading test has not passed
//        (GEMM_GRADE_FILE, its grade, does not start with "passed")
//   1    the kernel gave a wrong result at the speed size (it is verified there before timing)
//   2    a bad GEMM_SPEED_SIZE, GEMM_SPEED_THRESHOLD or GEMM_SPEED_THRESHOLD_FILE
//   4    a CUDA error: usually the student's kernel crashed
//
// It measures as the chapters do (common/timer.cuh): CUDA events, the L2 cache flushed before
// every timed run, warm-up first, the median, the chapters' TimerConfig for how many runs. The one
// difference: the two kernels take turns, run by run, so a clock that drifts while the GPU warms
// up slows both alike.
//
// One source for every exercise (and for the self-test's pairs): each program is linked with a
// generated file that names the kernel to grade and the reference (tests/exercises/CMakeLists.txt).
// By hand, without GEMM_GRADE_FILE (no grading test is asked):
//   cmake --build build --target 02_shared_tiling_exercise_speed
//   ./build/tests/02_shared_tiling_exercise_speed
//   GEMM_SPEED_SIZE=4096 ./build/tests/02_shared_tiling_exercise_speed
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/cli.hpp"
#include "common/cublas_baseline.cuh"
#include "common/device_info.cuh"
#include "common/exit_codes.hpp"
#include "common/problem.cuh"
#include "common/timer.cuh"
#include "exercises/grading.hpp"
#include "exercises/speed_grading.hpp"

// Defined by the generated file of each speed program.
const char* speed_subject();                      // "02_shared_tiling_exercise": what is graded
const char* speed_exercise();                     // "02_shared_tiling": whose threshold applies
std::vector<gemm::Variant> subject_variants();    // its one kernel (the student's)
std::string subject_cannot_run();                 // "" where it can run on this GPU
std::vector<gemm::Variant> reference_variants();  // the chapter's kernel

namespace {

constexpr int kSkip = 77;

// The speed record (speed_grading.hpp), for scripts/run/grade.sh.
void record(const std::string& line) {
  const char* path = std::getenv("GEMM_SPEED_FILE");
  if (!gemm::exercise::is_set(path)) return;
  std::ofstream out(path, std::ios::trunc);
  out << line << "\n";
  if (!out) std::printf("warning: cannot write the speed record %s\n", path);
}

int not_timed(const std::string& why, int code = kSkip) {
  std::printf("%s: not timed: %s\n", speed_subject(), why.c_str());
  record("not timed: " + why);
  return code;
}

// "" when the grading test passed (or was not asked for: a run by hand); otherwise why not. A
// kernel that failed or crashed there is not timed: its time would mean nothing.
std::string not_passed() {
  const char* path = std::getenv("GEMM_GRADE_FILE");
  if (!gemm::exercise::is_set(path)) return "";
  std::ifstream in(path);
  std::string grade;
  if (!std::getline(in, grade))
    return std::string("its grading test wrote no grade (") + path + ")";
  if (!gemm::exercise::starts_with(grade, "passed"))
    return "it has not passed its grading test (" + grade + ")";
  return "";
}

// "" when one run of `v` is right at this size; otherwise the grade line that says where not.
std::string verify_once(const gemm::Variant& v, gemm::Problem& p, const gemm::Reference& ref,
                        cudaStream_t s) {
  p.run(v, s);  // C poisoned with NaN first: an element never written fails
  CUDA_CHECK(cudaStreamSynchronize(s));
  const gemm::VerifyResult r = ref.verify(p.result());
  if (r.passed()) return "";
  const std::string shape =
      std::to_string(p.M) + "x" + std::to_string(p.N) + "x" + std::to_string(p.K);
  return gemm::exercise::grade_line(false, shape, r, 0u, 0u) + " (in the speed run)";
}

struct PairTiming {
  gemm::Timing subject, reference;
};

// Both kernels, taking turns (S R, R S, S R, ...), each run timed on its own after an L2 flush,
// with the chapters' TimerConfig (GpuTimer::time_in_turns, common/timer.cuh).
PairTiming time_taking_turns(gemm::GpuTimer& timer, gemm::Problem& p, const gemm::Variant& subject,
                             const gemm::Variant& reference, cudaStream_t s) {
  const std::vector<gemm::Timing> t = timer.time_in_turns(
      {[&](cudaStream_t st) { p.launch(subject, st); },
       [&](cudaStream_t st) { p.launch(reference, st); }},
      s, gemm::TimerConfig{});
  return {t[0], t[1]};
}

// Exactly one kernel, as an exercise exports (exercise_main.cu checks the same).
bool one_kernel(const std::vector<gemm::Variant>& v, const char* what) {
  if (v.size() == 1) return true;
  std::fprintf(stderr, "%s must export exactly one kernel, not %zu.\n", what, v.size());
  return false;
}

}  // namespace

int main() {
  // The settings first, before anything needs a GPU: bad input is reported on any machine.
  gemm::exercise::SpeedSettings settings;
  const std::string bad = gemm::exercise::speed_settings_from_env({}, settings);
  if (!bad.empty()) {
    std::fprintf(stderr, "%s\n", bad.c_str());
    record("not timed: " + bad);
    return gemm::kExitBadInput;
  }
  gemm::DeviceInfo dev;
  std::string why;
  if (!gemm::query_device(dev, why)) return not_timed("no CUDA GPU is visible");
  why = not_passed();
  if (!why.empty()) return not_timed(why);

  const std::vector<gemm::Variant> subjects = subject_variants();
  const std::vector<gemm::Variant> references = reference_variants();
  if (!one_kernel(subjects, speed_subject()) || !one_kernel(references, "The reference"))
    return gemm::kExitBadInput;
  const gemm::Variant& subject = subjects.front();
  const gemm::Variant& reference = references.front();
  const bool f16 = reference.f16 != nullptr;
  if ((subject.f16 != nullptr) != f16) {
    std::fprintf(stderr, "%s must take %s inputs, like its reference.\n", speed_subject(),
                 f16 ? "__half" : "float");
    return gemm::kExitBadInput;
  }
  if (f16 && dev.cc_major < 7)
    return not_timed("tensor cores (compute capability 7.0) are needed, this GPU has " +
                     std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor));
  why = subject_cannot_run();  // an exercise for some GPUs only (07's: sm_90a)
  if (!why.empty()) return not_timed(why);

  const int n = settings.size;
  const gemm::Precision precision = f16 ? gemm::Precision::kF16 : gemm::Precision::kF32;
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::string shortfall = gemm::memory_shortfall(
      n, n, n, gemm::Problem::gpu_bytes_needed(n, n, n, precision, dev.l2_bytes), free_bytes,
      dev.name);
  if (!shortfall.empty()) return not_timed(shortfall + " GEMM_SPEED_SIZE sets the size.");

  const char* seed_text = std::getenv("GEMM_TEST_SEED");
  const std::uint64_t seed =
      seed_text ? std::strtoull(seed_text, nullptr, 10) : std::random_device{}();
  std::printf("%s against the reference at %d^3 on %s (seed %llu)\n", speed_subject(), n,
              dev.name.c_str(), static_cast<unsigned long long>(seed));

  // From here on a crash or a hang (ctest's TIMEOUT) leaves this line behind.
  const std::string shape = std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n);
  record("failed: crashed or hung at " + shape + " (in the speed run)");
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  gemm::Problem problem(n, n, n, precision, seed);
  gemm::Cublas cublas;
  const gemm::Reference ref(problem, &cublas, stream);
  const std::string wrong = verify_once(subject, problem, ref, stream);
  if (!wrong.empty()) {
    std::printf("%s: %s\n", speed_subject(), wrong.c_str());
    record(wrong);
    return gemm::kExitVerifyFailed;
  }
  // The chapter's kernel is tested by the chapters' own tests; a failure here is the harness's.
  const std::string reference_wrong = verify_once(reference, problem, ref, stream);
  if (!reference_wrong.empty())
    return not_timed("the reference solution itself is wrong: " + reference_wrong,
                     gemm::kExitVerifyFailed);

  gemm::GpuTimer timer(dev);
  const PairTiming t = time_taking_turns(timer, problem, subject, reference, stream);
  CUDA_CHECK(cudaStreamDestroy(stream));

  const std::string line =
      gemm::exercise::measured_line(n, t.subject.median_ms, t.reference.median_ms, t.subject.reps);
  record(line);
  const double threshold = settings.thresholds.for_exercise(speed_exercise());
  const std::string grade =
      gemm::exercise::speed_grade("passed", gemm::exercise::parse_speed_record(line), threshold);
  std::printf("%s\n%s: %s (medians of %d runs each, taking turns)\n", line.c_str(), speed_subject(),
              grade.c_str(), t.subject.reps);
  return gemm::kExitOk;
}
