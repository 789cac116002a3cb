// GPU tests: every variant of every GPU chapter on shapes chosen to break tiling assumptions, and
// deliberately broken kernels that the verifier must reject. Exits 77 (ctest: skipped) when no
// GPU is present, so CI without a GPU reports these as skipped, never as passed.
//
// Environment:
//   GEMM_TEST_CHAPTER=01_naive   test one chapter only (ctest registers one test per chapter)
//   GEMM_TEST_SEED=N             reproduce a run (the seed is printed at the start)
//   GEMM_EXTRA_SHAPES=MxNxK,...  add shapes (e.g. an instructor's hidden ones)
//   GEMM_EXTRA_SHAPES_FILE=FILE  add the shapes in FILE: one MxNxK per line, # starts a comment
//
// The same source is also the exercise suite (GEMM_EXERCISE_SUITE, tests/exercises/): there the
// "chapter" is one exercise or its reference solution, and the result is also written as a grade.
#define CATCH_CONFIG_RUNNER
#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "broken_kernels.hpp"
#include "catch_compat.hpp"
#include "common/cublas_baseline.cuh"
#include "common/energy.cuh"
#include "common/per_device.cuh"
#include "common/problem.cuh"
#include "common/timer.cuh"
#ifdef GEMM_EXERCISE_SUITE
#include "exercises/exercise_suite.hpp"  // all_gpu_chapters(): the exercise; Grader
#else
#include "gemm_chapters.hpp"
// Outside the exercise suite nothing is graded.
struct Grader {
  bool expects_not_attempted() const { return false; }
  void running(const std::string&) {}
  void record(const std::string&, const gemm::VerifyResult&) {}
  std::string finish() { return ""; }
};
#endif

namespace {

struct Shape {
  int m, n, k;
  std::string str() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
};

std::uint64_t g_seed = 0;
int g_cc = 0;  // compute capability of the GPU, major * 10 + minor

// The compute capability of GPU `device`, as major * 10 + minor.
int compute_capability(int device) {
  int major = 0, minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

// fp16 variants use tensor cores (WMMA), which need compute capability 7.0 or newer.
bool runs_on(const gemm::Variant& v, int cc) { return v.f32 != nullptr || cc >= 70; }
bool can_run(const gemm::Variant& v) { return runs_on(v, g_cc); }  // on this process's GPU

gemm::Precision precision_of(const gemm::Variant& v) {
  return v.f32 ? gemm::Precision::kF32 : gemm::Precision::kF16;
}

// "MxNxK", all three >= 1.
bool parse_shape(const std::string& text, Shape& s) {
  char x1 = 0, x2 = 0, rest = 0;
  std::stringstream one(text);
  return one >> s.m >> x1 >> s.n >> x2 >> s.k && x1 == 'x' && x2 == 'x' && s.m > 0 && s.n > 0 &&
         s.k > 0 && !(one >> rest);
}

std::vector<Shape> test_shapes() {
  std::vector<Shape> shapes = {
      {1, 1, 1},     {1, 7, 1},       {7, 1, 3},       {3, 5, 7},        {16, 16, 16},
      {17, 33, 65},  {31, 32, 33},    {64, 64, 64},    {127, 129, 131},  {255, 257, 513},
      {1000, 999, 1001},  // non-square, about 1000: crosses every tile size in the repository
      {2, 3, 4096},       // deep K, tiny output
      {33, 1, 1000},      // a single column
      {68, 44, 36},       // N and K multiples of 4 but not of any tile: 128-bit paths with edges
      {130, 132, 260},
      {40, 56, 72},       // N, K multiples of 8, ragged tiles, a K tail: fast and edge paths mixed
      {136, 264, 200},    // the same, with K long enough for 04's and 06's pipelines to reuse
                          // their stages (07's steps of 64: 4 steps, no reuse; its sanitizer
                          // tests add 136x264x520)
      {2048, 4352, 72},   // many tiles, short K: persistent kernels loop over several tiles per
                          // block (272 tiles of 128 x 256), their stages reused across tiles
      // More tiles of 256 x 256 than an H100 or H200 has clusters of 2 (66), and not a whole
      // number of waves: 07's wgmma_persistent_tail_split cuts the last wave's tiles into slices
      // of K, summed through a workspace. 81 tiles with 9 and 16 K steps (15 tiles left: 2 and 4
      // slices), the second with odd N and K (packed operands, C stored from registers, a ragged
      // last K step); 100 tiles with 13 K steps (34 left: 3 slices of 5, 5 and 3 steps).
      {2304, 2304, 520},  {2300, 2301, 1001}, {2560, 2560, 800},
      // The largest single dimension the command line accepts (2^18) along M, N and K in turn:
      // grid dimensions (gridDim.y stops at 65535), and split-K of a deep, tiny product.
      {262144, 1, 3},     {1, 262144, 2},  {2, 1, 262144},
  };
  if (const char* extra = std::getenv("GEMM_EXTRA_SHAPES")) {
    std::stringstream ss(extra);
    std::string item;
    while (std::getline(ss, item, ',')) {
      Shape s{};
      if (parse_shape(item, s))
        shapes.push_back(s);
      else
        FAIL("GEMM_EXTRA_SHAPES: cannot read '" << item << "' (expected MxNxK)");
    }
  }
  // An instructor's hidden shapes, kept out of the students' sight in a file of their own.
  if (const char* file = std::getenv("GEMM_EXTRA_SHAPES_FILE")) {
    std::ifstream in(file);
    if (!in) FAIL("GEMM_EXTRA_SHAPES_FILE: cannot open '" << file << "'");
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      line = line.substr(0, line.find('#'));
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      Shape s{};
      if (parse_shape(line, s))
        shapes.push_back(s);
      else
        FAIL(file << ":" << number << ": cannot read '" << line << "' (expected MxNxK)");
    }
  }
  return shapes;
}

// One problem and its reference per (shape, precision), built once and shared by all variants.
struct Case {
  std::unique_ptr<gemm::Problem> problem;
  std::unique_ptr<gemm::Reference> reference;
};

class Cases {
 public:
  Case& get(const Shape& s, gemm::Precision p) {
    const std::string key = s.str() + (p == gemm::Precision::kF32 ? "f32" : "f16");
    Case& c = cases_[key];
    if (!c.problem) {
      c.problem = std::make_unique<gemm::Problem>(s.m, s.n, s.k, p, g_seed);
      c.reference = std::make_unique<gemm::Reference>(*c.problem, &cublas_, nullptr);
    }
    return c;
  }

 private:
  gemm::Cublas cublas_;
  std::map<std::string, Case> cases_;
};

gemm::VerifyResult run_and_verify(const gemm::Variant& v, const Shape& s, Cases& cases) {
  Case& c = cases.get(s, precision_of(v));
  c.problem->run(v, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return c.reference->verify(c.problem->result());
}

// The chapters to test: all, or the one GEMM_TEST_CHAPTER names.
std::vector<std::pair<std::string, std::vector<gemm::Variant>>> selected_chapters() {
  const char* only = std::getenv("GEMM_TEST_CHAPTER");
  auto chapters = all_gpu_chapters();
  if (only) {
    std::vector<std::pair<std::string, std::vector<gemm::Variant>>> keep;
    for (auto& ch : chapters)
      if (ch.first == only) keep.push_back(ch);
    chapters = keep;
  }
  return chapters;
}

// Calls f(chapter, variant, precision) for every variant of the selected chapters that this GPU
// can run.
template <class F>
void for_each_runnable_variant(F&& f) {
  const auto chapters = selected_chapters();
  REQUIRE_FALSE(chapters.empty());  // a typo in GEMM_TEST_CHAPTER must not pass vacuously
  for (const auto& [chapter, variants] : chapters)
    for (const auto& v : variants)
      if (can_run(v)) f(chapter, v, precision_of(v));
}

// Calls f(chapter, variant, shape, its case) for every runnable variant and every shape.
template <class F>
void for_each_variant_and_shape(const std::vector<Shape>& shapes, Cases& cases, F&& f) {
  for_each_runnable_variant([&](const std::string& chapter, const gemm::Variant& v,
                                gemm::Precision p) {
    for (const Shape& s : shapes) f(chapter, v, s, cases.get(s, p));
  });
}

}  // namespace

TEST_CASE("every variant of every GPU chapter is correct on awkward shapes", "[variants]") {
  const auto chapters = selected_chapters();
  REQUIRE_FALSE(chapters.empty());  // a typo in GEMM_TEST_CHAPTER must not pass vacuously
  Cases cases;
  Grader grader;
  int checked = 0;
  for (const Shape& s : test_shapes()) {
    for (const auto& [chapter, variants] : chapters) {
      REQUIRE_FALSE(variants.empty());
      for (const auto& v : variants) {
        if (!can_run(v)) continue;  // main() has already reported the skip
        grader.running(s.str());
        const gemm::VerifyResult r = run_and_verify(v, s, cases);
        grader.record(s.str(), r);
        INFO(chapter << " / " << v.name << " at " << s.str() << ": " << r.describe());
        if (!grader.expects_not_attempted()) CHECK(r.passed());
        ++checked;
      }
    }
  }
  std::printf("checked %d (variant, shape) pairs, seed %llu\n", checked,
              static_cast<unsigned long long>(g_seed));
  const std::string grade = grader.finish();
  if (grader.expects_not_attempted()) {
    INFO("an unmodified skeleton must fail and still reach every gap; it got: " << grade);
    CHECK(grade.rfind("not attempted", 0) == 0);
  }
}

// A kernel called as a library kernel is: two different problems at the same time, on two
// non-blocking streams (which do not wait for each other), for every variant. A launcher that
// keeps process-wide scratch memory fails here (chapter 06's packing buffer once did: hundreds of
// thousands of wrong elements). Each pair mixes shapes that take the fast paths with shapes that
// need packing or scalar fallbacks, and the launch order alternates between repetitions.
TEST_CASE("every variant is correct on two streams at once", "[streams]") {
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {{1000, 999, 1001}, {777, 555, 333}},  // both packed / scalar: odd K and N
      {{2000, 1999, 2001}, {301, 203, 105}},
      {{520, 512, 4096}, {129, 264, 72}},    // both 16-byte aligned: the fastest paths, deep K
      {{2304, 2304, 520}, {2300, 2301, 1001}},  // 07's last wave split on both: a workspace each
      {{1024, 1024, 1024}, {99, 1000, 999}}, // one aligned, one packed
  };
  constexpr int kRepeats = 3;
  cudaStream_t streams[2];
  for (cudaStream_t& st : streams)
    CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  Cases cases;
  int checked = 0;
  for_each_runnable_variant([&](const std::string& chapter, const gemm::Variant& v,
                                gemm::Precision p) {
    for (const auto& [first, second] : pairs) {
      Case& a = cases.get(first, p);
      Case& b = cases.get(second, p);
      for (int rep = 0; rep < kRepeats; ++rep) {
        // Both launches are queued before either finishes: the kernels (and any packing) overlap.
        if (rep % 2 == 0) {
          a.problem->run(v, streams[0]);
          b.problem->run(v, streams[1]);
        } else {
          b.problem->run(v, streams[1]);
          a.problem->run(v, streams[0]);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        const gemm::VerifyResult ra = a.reference->verify(a.problem->result());
        const gemm::VerifyResult rb = b.reference->verify(b.problem->result());
        INFO(chapter << " / " << v.name << ", repetition " << rep << ": " << first.str() << " "
                     << ra.describe() << "; " << second.str() << " " << rb.describe());
        CHECK(ra.passed());
        CHECK(rb.passed());
        ++checked;
      }
    }
  });
  for (cudaStream_t st : streams) CUDA_CHECK(cudaStreamDestroy(st));
  REQUIRE(checked > 0);  // a chapter whose every variant was skipped must not pass vacuously
  std::printf("checked %d concurrent pairs, seed %llu\n", checked,
              static_cast<unsigned long long>(g_seed));
}

// A library kernel is called with whatever pointers the caller has: a matrix inside a larger
// allocation, a view that starts one element in. cudaMalloc's 256-byte alignment is not a promise
// a launcher may rely on, and a 16-byte load from an address that is not a multiple of 16 kills
// the kernel ("misaligned address"). Every variant runs here with A, B and C one element past an
// aligned address, each alone and all three at once, on shapes whose N and K are multiples of 8,
// so that only the pointers can send a launcher to its packing or scalar path.
namespace {

// `count` elements of T starting one element past a 256-byte aligned address, holding `from`.
template <class T>
struct Shifted {
  gemm::DeviceBuffer<T> buffer;
  T* p;
  Shifted(const T* from, size_t count, bool shift) : buffer(count + 1), p(buffer.get() + shift) {
    if (from)
      CUDA_CHECK(cudaMemcpy(p, from, count * sizeof(T), cudaMemcpyDeviceToDevice));
  }
};

}  // namespace

TEST_CASE("every variant is correct with unaligned pointers", "[unaligned]") {
  // 2304 x 2304 x 520: 07's last wave split, with packed operands or C stored from registers.
  const std::vector<Shape> shapes = {{64, 64, 64}, {136, 264, 200}, {520, 512, 1024},
                                     {2304, 2304, 520}};
  struct Shift {
    bool a, b, c;
    const char* what;
  };
  const Shift shifts[] = {{true, false, false, "A + 1"},
                          {false, true, false, "B + 1"},
                          {false, false, true, "C + 1"},
                          {true, true, true, "A + 1, B + 1, C + 1"}};
  Cases cases;
  int checked = 0;
  for_each_variant_and_shape(shapes, cases, [&](const std::string& chapter,
                                                const gemm::Variant& v, const Shape& s, Case& c) {
    const gemm::Problem& pr = *c.problem;
    for (const Shift& sh : shifts) {
      const size_t count_c = static_cast<size_t>(s.m) * s.n;
      Shifted<float> C(nullptr, count_c, sh.c);
      CUDA_CHECK(cudaMemset(C.p, 0xFF, count_c * sizeof(float)));  // NaN: unwritten fails
      if (v.f32) {
        Shifted<float> A(pr.dA.get(), pr.dA.size(), sh.a), B(pr.dB.get(), pr.dB.size(), sh.b);
        v.f32(A.p, B.p, C.p, s.m, s.n, s.k, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
      } else {
        Shifted<__half> A(pr.dA16.get(), pr.dA16.size(), sh.a),
            B(pr.dB16.get(), pr.dB16.size(), sh.b);
        v.f16(A.p, B.p, C.p, s.m, s.n, s.k, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
      }
      std::vector<float> out(count_c);
      CUDA_CHECK(cudaMemcpy(out.data(), C.p, count_c * sizeof(float), cudaMemcpyDeviceToHost));
      const gemm::VerifyResult r = c.reference->verify(out);
      INFO(chapter << " / " << v.name << " at " << s.str() << " with " << sh.what << ": "
                   << r.describe());
      CHECK(r.passed());
      ++checked;
    }
  });
  REQUIRE(checked > 0);  // a chapter whose every variant was skipped must not pass vacuously
  std::printf("checked %d (variant, shape, pointers) runs, seed %llu\n", checked,
              static_cast<unsigned long long>(g_seed));
}

// A launcher is stream-ordered, so it can be captured into a CUDA graph: cudaStreamBeginCapture,
// the call, cudaStreamEndCapture, and the graph replays the call without the host. This is how
// the launchers are used in a framework that replays a whole model step, and what cuBLAS allows.
// Inside a capture a launcher may only queue work on the stream: no synchronization, no
// cudaMalloc, no creating a memory pool (docs/library_use.md). Every variant is captured here in
// the default (global) mode, as the first call of that variant in this process (ctest runs this
// test case in a process of its own), so lazy set-up inside the launcher is captured too. Each
// graph is then replayed three times onto a C poisoned with NaN: every replay must verify, and
// give the same bits as the first.
// Under compute-sanitizer (GEMM_TEST_SMALL set, tests/CMakeLists.txt), smaller shapes of the same
// kinds keep the run short.
TEST_CASE("every variant is correct when captured into a CUDA graph and replayed", "[graphs]") {
  const bool small = std::getenv("GEMM_TEST_SMALL") != nullptr;
  const std::vector<Shape> shapes =
      small ? std::vector<Shape>{{67, 45, 39}, {136, 264, 200}, {16, 512, 2048}}
            : std::vector<Shape>{
                  {1000, 999, 1001},  // odd N and K: padded copies or scalar paths, workspaces
                  {520, 512, 4096},   // aligned, deep K: the fast paths, split-K where it splits
                  {2304, 2304, 520},  // 07's last wave split: its workspace, counters, memset
                  {16, 4096, 4096},   // skinny: split-K's workspace and reduction in the graph
                  {129, 264, 72}};
  std::map<std::string, int> graphs_of;  // variant -> graphs that passed every replay
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Cases cases;
  int checked = 0;
  for_each_variant_and_shape(shapes, cases, [&](const std::string& chapter,
                                                const gemm::Variant& v, const Shape& s, Case& c) {
    gemm::Problem& pr = *c.problem;
    CUDA_CHECK(cudaDeviceSynchronize());  // the problem's set-up is done before the capture
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    pr.launch(v, stream);  // KEY: recorded, not run
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    size_t nodes = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<float> first;
    for (int replay = 0; replay < 3; ++replay) {
      pr.dC.poison(stream);
      CUDA_CHECK(cudaGraphLaunch(exec, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      const std::vector<float> out = pr.result();
      const gemm::VerifyResult r = c.reference->verify(out);
      INFO(chapter << " / " << v.name << " at " << s.str() << ", graph of " << nodes
                   << " nodes, replay " << replay << ": " << r.describe());
      CHECK(nodes > 0);
      CHECK(r.passed());
      if (replay == 0)
        first = out;
      else
        CHECK(std::memcmp(out.data(), first.data(), out.size() * sizeof(float)) == 0);
      if (r.passed() && replay == 2) ++graphs_of[chapter + " / " + v.name];
    }
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    ++checked;
  });
  CUDA_CHECK(cudaStreamDestroy(stream));
  REQUIRE(checked > 0);  // a chapter whose every variant was skipped must not pass vacuously
  for (const auto& [name, passed] : graphs_of)  // the per-variant record check_gpu.sh keeps
    std::printf("  %-44s %d of %zu shapes: captured, 3 replays verified\n", name.c_str(), passed,
                shapes.size());
  std::printf("captured and replayed %d (variant, shape) graphs, 3 replays each, seed %llu\n",
              checked, static_cast<unsigned long long>(g_seed));
}

// Eight host threads, each with its own non-blocking stream and its own problem, call the same
// variant at the same time, twice: what a server that runs several requests at once does. A
// launcher with process-wide state that is not thread-safe (a scratch buffer, a lazily built
// table, a memory pool made twice) fails here. Catch2's assertions are not thread-safe, so the
// threads only run and collect; the checks come after the join.
TEST_CASE("every variant is correct when called from eight threads at once", "[threads]") {
  constexpr int kThreads = 8;
  const Shape shapes[kThreads] = {{1000, 999, 1001}, {520, 512, 1024}, {64, 64, 64},
                                  {2304, 2304, 520}, {16, 2048, 2048}, {129, 264, 72},
                                  {1024, 1024, 1024}, {3, 5, 7}};
  Cases cases;
  int checked = 0;
  for_each_runnable_variant([&](const std::string& chapter, const gemm::Variant& v,
                                gemm::Precision p) {
    std::vector<Case*> mine;
    for (const Shape& s : shapes) mine.push_back(&cases.get(s, p));
    std::vector<std::vector<float>> out(kThreads);
    for (int rep = 0; rep < 2; ++rep) {
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
          cudaStream_t stream;
          CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
          mine[t]->problem->run(v, stream);
          CUDA_CHECK(cudaStreamSynchronize(stream));
          out[t] = mine[t]->problem->result();
          CUDA_CHECK(cudaStreamDestroy(stream));
        });
      for (std::thread& th : threads) th.join();
      for (int t = 0; t < kThreads; ++t) {
        const gemm::VerifyResult r = mine[t]->reference->verify(out[t]);
        INFO(chapter << " / " << v.name << ", thread " << t << " at " << shapes[t].str()
                     << ", repetition " << rep << ": " << r.describe());
        CHECK(r.passed());
        ++checked;
      }
    }
  });
  REQUIRE(checked > 0);
  std::printf("checked %d (variant, thread) runs, seed %llu\n", checked,
              static_cast<unsigned long long>(g_seed));
}

// ---- Several GPUs ------------------------------------------------------------------------------
// A library kernel runs on whichever GPU is current when it is called. A launcher that kept what it
// made at its first call in a process-wide `static` (a kernel's permission to use its shared
// memory, tile plans from an occupancy query, whether the GPU runs the sm_90a code) would hand the
// first GPU's to every other: there the launch fails, or takes another GPU's path. The launchers
// keep such state per GPU (common/per_device.cuh). These tests call every variant on GPU 0, then
// on every other GPU; and, in a process of their own, from one host thread per GPU at once. Each
// call is the variant's first on its GPU (ctest runs each test case in a process of its own).
// They need two GPUs: with one, they skip and say so.
namespace {

const std::vector<Shape> kDeviceShapes = {{1000, 999, 1001}, {520, 512, 1024},
                                          {2304, 2304, 520}, {16, 2048, 2048}, {3, 5, 7}};

// The number of GPUs, or exit 77 (ctest: skipped) with the sentence, where there are fewer than 2.
int gpus_or_skip() {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::printf("The several-GPU tests need two GPUs; this machine shows %d: skipping.\n", count);
    std::fflush(stdout);
    std::exit(77);
  }
  return count;
}

// Prints "GPU 1: NVIDIA H100 80GB HBM3, compute capability 9.0" and returns major * 10 + minor.
int announce_gpu(int device) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const int cc = compute_capability(device);
  std::printf("GPU %d: %s, compute capability %d.%d\n", device, prop.name, cc / 10, cc % 10);
  return cc;
}

}  // namespace

// The helper itself (common/per_device.cuh), on any machine with a GPU: eight host threads ask for
// the value of every GPU at once; each GPU's value is made exactly once, with that GPU current,
// and every thread gets it. Runs with one GPU too (the per-GPU part then covers GPU 0).
TEST_CASE("PerDevice makes one value per GPU, once, under concurrent first calls", "[per_device]") {
  int gpus = 0;
  CUDA_CHECK(cudaGetDeviceCount(&gpus));
  gemm::PerDevice<int> value_of;
  std::atomic<int> made{0};
  std::vector<std::atomic<int>> made_on(gpus);
  constexpr int kThreads = 8;
  std::vector<std::vector<int>> seen(kThreads, std::vector<int>(gpus, -1));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < gpus; ++i) {
        const int device = (t + i) % gpus;  // the threads start on different GPUs
        CUDA_CHECK(cudaSetDevice(device));
        seen[t][device] = value_of.get([&](int d) {
          int current = -1;
          CUDA_CHECK(cudaGetDevice(&current));
          ++made;
          ++made_on[d];
          std::this_thread::sleep_for(std::chrono::milliseconds(20));  // widen the race
          return current == d ? 1000 + d : -2;  // made with its own GPU current
        });
      }
    });
  for (std::thread& th : threads) th.join();
  CUDA_CHECK(cudaSetDevice(0));
  CHECK(made.load() == gpus);
  CHECK(value_of.size() == static_cast<size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    CHECK(made_on[d].load() == 1);
    for (int t = 0; t < kThreads; ++t) CHECK(seen[t][d] == 1000 + d);
  }
  std::printf("PerDevice: %d GPU(s), %d threads, each value made once\n", gpus, kThreads);
}

TEST_CASE("every variant is correct on every GPU, each call its first there", "[devices]") {
  const int gpus = gpus_or_skip();
  const auto chapters = selected_chapters();
  REQUIRE_FALSE(chapters.empty());
  // What ran (Variant::runs_instead) for each (capability, variant, shape) on the first GPU of
  // that capability: every other GPU of the same capability must take the same path.
  std::map<std::string, std::string> path_of;
  int checked = 0;
  for (int device = 0; device < gpus; ++device) {
    CUDA_CHECK(cudaSetDevice(device));  // KEY: every call below is on this GPU
    const int cc = announce_gpu(device);
    Cases cases;  // this GPU's problems, references and cuBLAS
    for (const auto& [chapter, variants] : chapters)
      for (const auto& v : variants) {
        if (!runs_on(v, cc)) {
          std::printf("  %s / %s: needs tensor cores, not run on GPU %d\n", chapter.c_str(),
                      v.name.c_str(), device);
          continue;
        }
        std::set<std::string> instead;  // what this GPU ran instead, as the programs say it
        for (const Shape& s : kDeviceShapes) {
          const gemm::VerifyResult r = run_and_verify(v, s, cases);
          const std::string note = cases.get(s, precision_of(v)).problem->runs_instead(v);
          INFO(chapter << " / " << v.name << " on GPU " << device << " at " << s.str() << ": "
                       << r.describe() << (note.empty() ? "" : " (" + note + ")"));
          CHECK(r.passed());
          const auto [first, fresh] =
              path_of.emplace(std::to_string(cc) + " " + chapter + " " + v.name + " " + s.str(),
                              note);
          if (!fresh) CHECK(first->second == note);  // the same capability, the same path
          if (!note.empty()) instead.insert(note);
          ++checked;
        }
        for (const std::string& note : instead)
          std::printf("  %s / %s on GPU %d: %s\n", chapter.c_str(), v.name.c_str(), device,
                      note.c_str());
      }
  }
  CUDA_CHECK(cudaSetDevice(0));
  REQUIRE(checked > 0);
  std::printf("checked %d (GPU, variant, shape) runs on %d GPUs, seed %llu\n", checked, gpus,
              static_cast<unsigned long long>(g_seed));
}

TEST_CASE("every variant is correct from one host thread per GPU at once", "[device_threads]") {
  const int gpus = gpus_or_skip();
  std::vector<int> cc(gpus);
  std::vector<std::unique_ptr<Cases>> cases(gpus);  // each GPU's problems, made on that GPU
  for (int device = 0; device < gpus; ++device) {
    CUDA_CHECK(cudaSetDevice(device));
    cc[device] = announce_gpu(device);
    cases[device] = std::make_unique<Cases>();
  }
  int checked = 0;
  for (const auto& [chapter, variants] : selected_chapters())
    for (const auto& v : variants) {
      // The problems first, each on its GPU, so that the threads only run the variant.
      for (int device = 0; device < gpus; ++device) {
        CUDA_CHECK(cudaSetDevice(device));
        for (const Shape& s : kDeviceShapes) cases[device]->get(s, precision_of(v));
      }
      std::vector<std::vector<std::vector<float>>> out(gpus);
      std::vector<std::thread> threads;
      for (int device = 0; device < gpus; ++device) {
        if (!runs_on(v, cc[device])) continue;
        threads.emplace_back([&, device] {
          CUDA_CHECK(cudaSetDevice(device));  // KEY: this thread's GPU
          cudaStream_t stream;
          CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
          for (const Shape& s : kDeviceShapes) {
            Case& c = cases[device]->get(s, precision_of(v));
            c.problem->run(v, stream);
            CUDA_CHECK(cudaStreamSynchronize(stream));
            out[device].push_back(c.problem->result());
          }
          CUDA_CHECK(cudaStreamDestroy(stream));
        });
      }
      for (std::thread& t : threads) t.join();
      // Catch2's checks are not thread-safe: they come after the join.
      for (int device = 0; device < gpus; ++device)
        for (size_t i = 0; i < out[device].size(); ++i) {
          const Shape& s = kDeviceShapes[i];
          const gemm::VerifyResult r =
              cases[device]->get(s, precision_of(v)).reference->verify(out[device][i]);
          INFO(chapter << " / " << v.name << " on GPU " << device << " at " << s.str() << ": "
                       << r.describe());
          CHECK(r.passed());
          ++checked;
        }
    }
  for (int device = 0; device < gpus; ++device) {  // each GPU's cuBLAS handle freed on its GPU
    CUDA_CHECK(cudaSetDevice(device));
    cases[device].reset();
  }
  CUDA_CHECK(cudaSetDevice(0));
  REQUIRE(checked > 0);
  std::printf("checked %d (GPU, variant, shape) runs, one host thread per GPU at once, seed %llu\n",
              checked, static_cast<unsigned long long>(g_seed));
}

// The largest sizes the command line accepts: a matrix of just under 2^31 elements, C, A or B in
// turn, with odd sizes so that rows padded to 16 bytes (chapter 04's copies, chapter 06's packed
// operands) pass 2^31 elements: 46339 x 46341 is 2,147,395,599 elements, 46339 x 46344 (rows
// padded to 8 halves) 2,147,534,616. A launcher that computes an offset in a 32-bit int there reads
// or writes far outside its buffers. Needs about 33 GiB of GPU memory and 33 GiB of host memory;
// elsewhere it exits 77 (skipped) with the reason. One problem is alive at a time, and every
// variant of the selected chapters runs on it before the next is built (building one takes
// seconds: 2^31 random values, their upload, and the reference).
namespace {

const Shape kHugeShapes[] = {{46339, 46341, 9},    // C just under 2^31 elements
                             {46339, 9, 46341},    // A
                             {9, 46341, 46339}};   // B

size_t host_bytes_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  size_t kib = 0;
  while (meminfo >> key >> kib)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;  // unknown: the caller decides
}

// Exits 77 (ctest: skipped), with the reason, where this machine cannot hold the huge problems.
void skip_huge_unless_they_fit(gemm::Precision p) {
  size_t gpu_need = 0, host_need = 0;
  for (const Shape& s : kHugeShapes) {
    const size_t mk = size_t(s.m) * s.k, kn = size_t(s.k) * s.n, mn = size_t(s.m) * s.n;
    // The problem and its reference, plus the largest padded copies a launcher makes.
    gpu_need = std::max(gpu_need, gemm::Problem::gpu_bytes_needed(s.m, s.n, s.k, p, 0) +
                                      4 * (mk + kn + mn) + (size_t(1) << 30));
    // Host: A, B, |A| or |B|, the full reference and bound, one result.
    host_need = std::max(host_need, 4 * (2 * (mk + kn) + 4 * mn) + (size_t(1) << 30));
  }
  size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const size_t host = host_bytes_available();
  const double gib = 1024.0 * 1024.0 * 1024.0;
  if (free_bytes < gpu_need || (host != 0 && host < host_need)) {
    std::printf("Skipping the huge-size tests: they need %.0f GiB of free GPU memory and %.0f GiB "
                "of host memory; this machine has %.0f GiB and %.0f GiB free.\n",
                gpu_need / gib, host_need / gib, free_bytes / gib, host / gib);
    std::fflush(stdout);
    std::exit(77);
  }
}

}  // namespace

TEST_CASE("every variant is correct with a matrix of just under 2^31 elements", "[huge]") {
  const auto chapters = selected_chapters();
  REQUIRE_FALSE(chapters.empty());
  int checked = 0;
  for (const gemm::Precision p : {gemm::Precision::kF32, gemm::Precision::kF16}) {
    bool any = false;  // does a selected chapter have a runnable variant of this precision?
    for (const auto& [chapter, variants] : chapters)
      for (const auto& v : variants)
        any = any || (can_run(v) && precision_of(v) == p);
    if (!any) continue;
    skip_huge_unless_they_fit(p);
    gemm::Cublas cublas;
    for (const Shape& s : kHugeShapes) {
      const auto started = std::chrono::steady_clock::now();
      gemm::Problem problem(s.m, s.n, s.k, p, g_seed);
      const gemm::Reference reference(problem, &cublas, nullptr);
      std::vector<float> out(problem.dC.size());
      const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                           started).count();
      std::printf("%s, %s: problem and reference built in %.1f s\n", s.str().c_str(),
                  p == gemm::Precision::kF32 ? "f32" : "f16", setup_s);
      for (const auto& [chapter, variants] : chapters)
        for (const auto& v : variants) {
          if (!can_run(v) || precision_of(v) != p) continue;
          problem.run(v, nullptr);
          CUDA_CHECK(cudaDeviceSynchronize());
          CUDA_CHECK(cudaMemcpy(out.data(), problem.dC.get(), problem.dC.bytes(),
                                cudaMemcpyDeviceToHost));
          const gemm::VerifyResult r = reference.verify(out);
          const std::string note = problem.runs_instead(v);
          std::printf("  %-16s %-34s %s%s\n", chapter.c_str(), v.name.c_str(),
                      r.passed() ? "PASS" : "FAIL", note.empty() ? "" : ("  (" + note + ")").c_str());
          INFO(chapter << " / " << v.name << " at " << s.str() << ": " << r.describe());
          CHECK(r.passed());
          ++checked;
        }
      std::fflush(stdout);
    }
  }
  REQUIRE(checked > 0);
  std::printf("checked %d (variant, huge shape) pairs, seed %llu\n", checked,
              static_cast<unsigned long long>(g_seed));
}

TEST_CASE("the verifier rejects deliberately broken kernels", "[broken]") {
  Cases cases;
  // Not 1x1x1, where a transposed result would coincide with the right one.
  const std::vector<Shape> shapes = {{3, 5, 5}, {17, 33, 33}, {64, 64, 64}, {127, 129, 129},
                                     {300, 1000, 1000}};
  for (const auto& v : gemm::broken::variants())
    for (const Shape& s : shapes) {
      const gemm::VerifyResult r = run_and_verify(v, s, cases);
      INFO(v.name << " at " << s.str() << ": " << r.describe());
      CHECK_FALSE(r.passed());
      CHECK(r.failed > 0);
    }
}

#ifndef GEMM_EXERCISE_SUITE
// The timer that every table's numbers come from (common/timer.cuh): in turns, the first of each
// round moves along, every kernel gets the same number of runs, and each run is timed on its own.
// The "kernels" are two memsets, one writing twice the bytes of the other (both far larger than
// L2, so bandwidth-bound): the second must take about twice as long.
TEST_CASE("the timer takes turns and times each kernel on its own", "[timer]") {
  gemm::DeviceInfo dev;
  std::string why;
  REQUIRE(gemm::query_device(dev, why));
  gemm::GpuTimer timer(dev);
  const size_t small = std::max<size_t>(4u * static_cast<size_t>(dev.l2_bytes), 64u << 20);
  gemm::DeviceBuffer<unsigned char> buffer(2 * small);
  std::string order;  // who ran, in order: warm-up included
  const gemm::GpuTimer::Run one = [&](cudaStream_t s) {
    order += 'A';
    CUDA_CHECK(cudaMemsetAsync(buffer.get(), 1, small, s));
  };
  const gemm::GpuTimer::Run two = [&](cudaStream_t s) {
    order += 'B';
    CUDA_CHECK(cudaMemsetAsync(buffer.get(), 2, 2 * small, s));
  };
  gemm::TimerConfig cfg;
  cfg.warmup = 1;
  cfg.min_reps = 4;
  cfg.min_total_ms = 0.0;  // exactly min_reps rounds
  const std::vector<gemm::Timing> t = timer.time_in_turns({one, two}, nullptr, cfg);
  CHECK(order == "AB" "AB" "BA" "AB" "BA");  // the warm-up round, then who goes first alternates
  // The samples, in the order they ran, at increasing times.
  const std::vector<gemm::GpuTimer::Sample>& xs = timer.last_samples();
  REQUIRE(xs.size() == 8);
  std::string sampled;
  for (size_t i = 0; i < xs.size(); ++i) {
    sampled += xs[i].kernel == 0 ? 'A' : 'B';
    if (i > 0) CHECK(xs[i].at_s > xs[i - 1].at_s);
  }
  CHECK(sampled == "ABBAABBA");
  REQUIRE(t.size() == 2);
  CHECK(t[0].reps == 4);
  CHECK(t[1].reps == 4);
  const double ratio = t[1].median_ms / t[0].median_ms;
  INFO("A " << t[0].median_ms << " ms, B " << t[1].median_ms << " ms");
  CHECK(ratio > 1.6);
  CHECK(ratio < 2.4);
  // One kernel alone: the same rule, at least min_reps runs.
  order.clear();
  const gemm::Timing alone = timer.time(one, nullptr, cfg);
  CHECK(alone.reps == 4);
  CHECK(order == "AAAAA");
}

// The energy meter (common/energy.cuh), with the timer's two memsets: each alone, back to back for
// a second, B writing twice A's bytes. Both are bandwidth-bound at about the same power, so B's
// run takes about twice as long and twice the joules. Exits 77 (skipped), with the reason, where
// NVML or the GPU's energy counter is missing.
TEST_CASE("the energy meter gives joules per run from the driver's counter", "[energy]") {
  gemm::DeviceInfo dev;
  std::string why;
  REQUIRE(gemm::query_device(dev, why));
  const gemm::EnergyMeter meter;
  if (meter.absent_here()) {  // no NVML, or a GPU without the counter: nothing to test
    std::printf("%s: skipping the energy test.\n", meter.why_not().c_str());
    std::exit(77);
  }
  INFO(meter.why_not());
  REQUIRE(meter.ok());  // any other failure to start is a bug of ours
  const size_t small = std::max<size_t>(4u * static_cast<size_t>(dev.l2_bytes), 64u << 20);
  gemm::DeviceBuffer<unsigned char> buffer(2 * small);
  const gemm::GpuTimer::Run one = [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(buffer.get(), 1, small, s));
  };
  const gemm::GpuTimer::Run two = [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(buffer.get(), 2, 2 * small, s));
  };
  const gemm::EnergyReading a = meter.measure(one, nullptr, 1e9, 0.1, 0.5, 1.0);
  const gemm::EnergyReading b = meter.measure(two, nullptr, 1e9, 0.2, 0.5, 1.0);
  REQUIRE(a.measured);
  REQUIRE(b.measured);
  INFO("A: " << a.runs << " runs, " << a.ms_per_gemm << " ms, " << a.joules_per_gemm << " J, "
             << a.mean_watts << " W, " << a.mean_sm_mhz << " MHz; B: " << b.runs << " runs, "
             << b.ms_per_gemm << " ms, " << b.joules_per_gemm << " J, " << b.mean_watts << " W");
  CHECK(a.seconds >= 1.0);
  CHECK(a.runs > 10);
  CHECK(a.mean_watts > 20);   // a GPU writing memory flat out draws tens to hundreds of watts
  CHECK(a.mean_watts < 2000);
  CHECK(a.mean_sm_mhz > 100);
  const double joules = a.mean_watts * a.ms_per_gemm / 1000;  // the same figure, another way
  CHECK(std::abs(a.joules_per_gemm - joules) <= 1e-6 * joules);
  CHECK(std::abs(a.gflop_per_joule * a.joules_per_gemm - 1.0) <= 1e-6);
  const double time_ratio = b.ms_per_gemm / a.ms_per_gemm;
  const double energy_ratio = b.joules_per_gemm / a.joules_per_gemm;
  CHECK(time_ratio > 1.6);
  CHECK(time_ratio < 2.4);
  CHECK(energy_ratio > 1.4);
  CHECK(energy_ratio < 2.8);
}
#endif

// Not a correctness test: it only runs the racy kernels, so that
//   compute-sanitizer --tool racecheck gpu_tests "[race-demo]"
// can show (and ctest -L sanitize can check) that racecheck reports each missing barrier.
// The environment variable GEMM_RACE_DEMO picks one kernel by name.
TEST_CASE("race demo: tiled kernels with a missing __syncthreads()", "[race-demo]") {
  Cases cases;
  const char* only = std::getenv("GEMM_RACE_DEMO");
  int ran = 0;
  for (const auto& v : gemm::broken::racy_variants()) {
    if (only && v.name != only) continue;
    const gemm::VerifyResult r = run_and_verify(v, {64, 64, 64}, cases);
    std::printf("%s at 64x64x64: %s\n", v.name.c_str(), r.describe().c_str());
    ++ran;
  }
  REQUIRE(ran > 0);
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("No CUDA GPU is visible: skipping the GPU tests.\n");
    return 77;
  }
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  g_cc = compute_capability(device);
  const int major = g_cc / 10, minor = g_cc % 10;
  if (g_cc < 70) {
    // A chapter whose every variant needs tensor cores is skipped as a whole on this GPU.
    const char* only = std::getenv("GEMM_TEST_CHAPTER");
    for (const auto& [chapter, variants] : all_gpu_chapters()) {
      if (!only || chapter != only) continue;
      bool any = false;
      for (const auto& v : variants) any = any || can_run(v);
      if (!any) {
        std::printf("%s needs tensor cores (compute capability 7.0); this GPU has %d.%d: "
                    "skipping.\n", only, major, minor);
        return 77;
      }
    }
    std::printf("This GPU (compute capability %d.%d) has no tensor cores: fp16 variants are "
                "skipped.\n", major, minor);
  }
#ifdef GEMM_EXERCISE_SUITE
  // An exercise for some GPUs only (07's: sm_90a) is skipped, with the reason, everywhere else.
  const ExerciseInfo info = exercise_info();
  if (const std::string why_not = info.cannot_run(); !why_not.empty()) {
    std::printf("%s cannot run on this GPU: %s. Skipping.\n", info.name.c_str(), why_not.c_str());
    return 77;
  }
#endif
  const char* seed = std::getenv("GEMM_TEST_SEED");
  g_seed = seed ? std::strtoull(seed, nullptr, 10) : std::random_device{}();
  std::printf("GPU tests: seed %llu (set GEMM_TEST_SEED to repeat)\n",
              static_cast<unsigned long long>(g_seed));
  return Catch::Session().run(argc, argv);
}
