// How a run becomes a grade (grading.hpp) and how its speed joins the grade (speed_grading.hpp),
// checked on the CPU: the GPU side of the exercise suite can only run where there is a GPU, but
// the words a student reads, and the instructor's settings, must be right everywhere.
#define CATCH_CONFIG_RUNNER
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "exercises/grading.hpp"
#include "exercises/speed_grading.hpp"

namespace {

using gemm::exercise::gap_list;
using gemm::exercise::grade_line;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// A verification with one wrong element, C[3][5] = got where `expected` was due.
gemm::VerifyResult one_wrong(double got, double expected) {
  gemm::VerifyResult r;
  r.check(0, 0, 45, 1.0, 1.0, 1e-6);
  r.check(3, 5, 45, got, expected, 1e-6);
  return r;
}

}  // namespace

TEST_CASE("gap lists name the gaps in order", "[grading]") {
  CHECK(gap_list(0u) == "");
  CHECK(gap_list(0x2u) == "1");
  CHECK(gap_list(0xEu) == "1,2,3");
  CHECK(gap_list(0x80000001u) == "0,31");
}

TEST_CASE("a correct kernel passes, whatever markers are left", "[grading]") {
  const gemm::VerifyResult none;
  CHECK(grade_line(true, "", none, 0u, 0xEu) == "passed");
  const std::string with_marker = grade_line(true, "", none, 0x4u, 0xEu);
  CHECK(starts_with(with_marker, "passed"));
  CHECK(with_marker.find("2") != std::string::npos);
}

TEST_CASE("a wrong kernel that reached every gap is not attempted", "[grading]") {
  const gemm::VerifyResult r = one_wrong(0.0, 2.5);
  CHECK(grade_line(false, "1x1x1", r, 0xEu, 0xEu) == "not attempted (gaps 1,2,3 still open)");
}

TEST_CASE("a wrong kernel with some gaps filled has failed, and says where", "[grading]") {
  const gemm::VerifyResult r = one_wrong(1.25, 2.5);
  const std::string line = grade_line(false, "17x33x65", r, 0x4u, 0xEu);
  INFO(line);
  CHECK(starts_with(line, "failed: at 17x33x65, C[3][5] = 1.25, expected 2.5 (bound 1e-06)"));
  CHECK(line.find("1 of 2 elements wrong") != std::string::npos);
  CHECK(line.find("gaps 2 still open") != std::string::npos);
  // Every marker deleted: no mention of gaps.
  CHECK(grade_line(false, "17x33x65", r, 0u, 0xEu).find("gaps") == std::string::npos);
}

TEST_CASE("NaN (an element never written) is reported as such", "[grading]") {
  const gemm::VerifyResult r = one_wrong(std::numeric_limits<double>::quiet_NaN(), 2.5);
  const std::string line = grade_line(false, "3x5x7", r, 0u, 0xEu);
  INFO(line);
  CHECK(line.find("= nan, expected 2.5") != std::string::npos);
}

TEST_CASE("without known gaps, nothing is called not attempted", "[grading]") {
  const gemm::VerifyResult r = one_wrong(0.0, 2.5);
  CHECK(starts_with(grade_line(false, "1x1x1", r, 0x2u, 0u), "failed: at 1x1x1"));
  CHECK(starts_with(grade_line(false, "1x1x1", r, 0u, 0u), "failed: at 1x1x1"));
}

// ---- Speed (speed_grading.hpp) ----------------------------------------------------------------

namespace {

using gemm::exercise::SpeedRecord;
using gemm::exercise::SpeedSettings;
using gemm::exercise::SpeedThresholds;

const std::vector<std::string> kBuild = {"01_naive", "02_shared_tiling"};

// Reads `text` as a threshold file; returns the error sentence ("" when it was read).
std::string read_file(const std::string& text, SpeedThresholds& t, bool env_default = false) {
  std::istringstream in(text);
  return gemm::exercise::read_threshold_file(in, "th.txt", kBuild, env_default, t);
}

bool one_sentence(const std::string& s) {
  return !s.empty() && s.back() == '.' && s.find('\n') == std::string::npos;
}

SpeedRecord measured(double exercise_ms, double reference_ms) {
  return gemm::exercise::parse_speed_record(
      gemm::exercise::measured_line(2048, exercise_ms, reference_ms, 20));
}

}  // namespace

TEST_CASE("a threshold is a plain number from 0 to 2", "[grading][speed]") {
  double v = -1.0;
  CHECK(gemm::exercise::parse_threshold("0.5", v));
  CHECK(v == 0.5);
  CHECK(gemm::exercise::parse_threshold(".75", v));
  CHECK(v == 0.75);
  CHECK(gemm::exercise::parse_threshold("0", v));
  CHECK(v == 0.0);
  CHECK(gemm::exercise::parse_threshold("2", v));
  for (const char* bad : {"", ".", "50", "2.01", "50%", "-0.5", "0.5x", "1e-1", "inf", "nan",
                          "0..5", "0.5 ", "half"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(gemm::exercise::parse_threshold(bad, v));
  }
}

TEST_CASE("the settings: defaults, the environment variables, one sentence when bad",
          "[grading][speed]") {
  SpeedSettings s;
  CHECK(gemm::exercise::read_speed_settings(nullptr, nullptr, nullptr, kBuild, s) == "");
  CHECK(s.size == 2048);
  CHECK(s.thresholds.for_exercise("02_shared_tiling") == 0.5);
  // Empty values count as unset (GEMM_SPEED_THRESHOLD= bash scripts/run/grade.sh).
  CHECK(gemm::exercise::read_speed_settings("", "", "", kBuild, s) == "");

  SpeedSettings t;
  CHECK(gemm::exercise::read_speed_settings("1024", "0.3", nullptr, kBuild, t) == "");
  CHECK(t.size == 1024);
  CHECK(t.thresholds.for_exercise("01_naive") == 0.3);

  for (const char* size : {"100", "9000", "2k", "-2048", "2048.0", "99999999999"}) {
    SpeedSettings u;
    const std::string why = gemm::exercise::read_speed_settings(size, nullptr, nullptr, kBuild, u);
    INFO(why);
    CHECK(one_sentence(why));
    CHECK(why.rfind("GEMM_SPEED_SIZE: '", 0) == 0);
  }
  SpeedSettings u;
  const std::string why = gemm::exercise::read_speed_settings(nullptr, "50", nullptr, kBuild, u);
  INFO(why);
  CHECK(one_sentence(why));
  CHECK(why.rfind("GEMM_SPEED_THRESHOLD: '50' is not a threshold", 0) == 0);
  const std::string missing =
      gemm::exercise::read_speed_settings(nullptr, nullptr, "/no/such/file", kBuild, u);
  CHECK(missing == "GEMM_SPEED_THRESHOLD_FILE: cannot read '/no/such/file'.");
}

TEST_CASE("a threshold file: per exercise, a default, comments", "[grading][speed]") {
  SpeedThresholds t;
  REQUIRE(read_file("# thresholds for the class of 2025\n"
                    "\n"
                    "default 0.4\n"
                    "  02_shared_tiling   0.8   # the plain loop runs at 0.7x here\n",
                    t) == "");
  CHECK(t.for_exercise("02_shared_tiling") == 0.8);
  CHECK(t.for_exercise("01_naive") == 0.4);
  // Without a default line, the environment's (or the built-in) default stays.
  SpeedThresholds e;
  e.fallback = 0.3;
  REQUIRE(read_file("01_naive 0.6\n", e, true) == "");
  CHECK(e.for_exercise("01_naive") == 0.6);
  CHECK(e.for_exercise("02_shared_tiling") == 0.3);
}

TEST_CASE("a bad threshold file is refused with its file and line", "[grading][speed]") {
  struct Case {
    const char* text;
    const char* starts;
  };
  const Case cases[] = {
      {"02_shared_tiling\n", "th.txt:1: expected 'NN_name THRESHOLD'"},
      {"# ok\n02_shared_tiling 0.8 0.9\n", "th.txt:2: expected 'NN_name THRESHOLD'"},
      {"02_shared_tiling 80%\n", "th.txt:1: '80%' is not a threshold"},
      {"02_shared_tilling 0.8\n", "th.txt:1: '02_shared_tilling' names no exercise of this build"},
      {"shared_tiling 0.8\n", "th.txt:1: 'shared_tiling' names no exercise"},
      {"01_naive 0.5\n01_naive 0.6\n",
       "th.txt:2: 01_naive was already given a threshold on line 1"},
      {"default 0.5\ndefault 0.6\n", "th.txt:2: default was already given"},
  };
  for (const Case& c : cases) {
    SpeedThresholds t;
    const std::string why = read_file(c.text, t);
    INFO(c.text << " -> " << why);
    CHECK(why.rfind(c.starts, 0) == 0);
    CHECK(one_sentence(why));
  }
  // A default in the file and in GEMM_SPEED_THRESHOLD: which one was meant?
  SpeedThresholds t;
  CHECK(read_file("default 0.5\n", t, true).find("GEMM_SPEED_THRESHOLD is set as well") !=
        std::string::npos);
  // The list of exercises is named, so the typo is easy to see.
  CHECK(read_file("03_thread_tiling 0.5\n", t).find("(01_naive, 02_shared_tiling, or default)") !=
        std::string::npos);
}

TEST_CASE("speed records are written and read back", "[grading][speed]") {
  const SpeedRecord r = measured(1.234, 1.197);
  REQUIRE(r.kind == SpeedRecord::Kind::kMeasured);
  CHECK(r.size == 2048);
  CHECK(r.reps == 20);
  CHECK(std::fabs(r.ratio() - 1.197 / 1.234) < 1e-9);

  const SpeedRecord n = gemm::exercise::parse_speed_record("not timed: no CUDA GPU is visible");
  CHECK(n.kind == SpeedRecord::Kind::kNotTimed);
  CHECK(n.text == "no CUDA GPU is visible");
  const SpeedRecord f = gemm::exercise::parse_speed_record(
      "failed: crashed or hung at 2048x2048x2048 (in the speed run)");
  CHECK(f.kind == SpeedRecord::Kind::kFailed);
  CHECK(gemm::exercise::parse_speed_record("").kind == SpeedRecord::Kind::kNone);
  for (const char* bad : {"measured: size=2048",
                          "measured: size=2048 exercise_ms=0 "
                          "reference_ms=1 reps=3",
                          "measured: size=2048 exercise_ms=nan "
                          "reference_ms=1 reps=3",
                          "2048 1.2 1.1",
                          "measured: size=2048 "
                          "exercise_ms=1 reference_ms=1 reps=3 extra"}) {
    const SpeedRecord u = gemm::exercise::parse_speed_record(bad);
    INFO(bad);
    CHECK(u.kind == SpeedRecord::Kind::kNotTimed);
    CHECK(u.text.find("cannot be read") != std::string::npos);
  }
}

TEST_CASE("a passing exercise is graded on its speed too", "[grading][speed]") {
  using gemm::exercise::speed_grade;
  CHECK(speed_grade("passed", measured(1.234, 1.197), 0.5) ==
        "passed, 0.97x the reference (2048^3: 1.234 ms vs 1.197 ms)");
  CHECK(speed_grade("passed", measured(9.876, 1.197), 0.5) ==
        "correct but slow (0.12x the reference, below the threshold 0.5x; 2048^3: 9.876 ms vs "
        "1.197 ms)");
  // Faster than the reference is fine; a threshold of 0 never calls anything slow.
  CHECK(speed_grade("passed", measured(0.5, 1.0), 0.5).rfind("passed, 2.00x the reference", 0) ==
        0);
  CHECK(speed_grade("passed", measured(100.0, 1.0), 0.0).rfind("passed, 0.01x", 0) == 0);
  // Very slow kernels keep two significant digits, never "0.00x".
  CHECK(speed_grade("passed", measured(34.76, 1.857), 0.5).rfind("correct but slow (0.053x", 0) ==
        0);
  // Judged on the ratio as printed: 0.4996 prints as 0.50x, which is not below 0.5x.
  CHECK(speed_grade("passed", measured(1.0, 0.4996), 0.5).rfind("passed, 0.50x", 0) == 0);
  CHECK(speed_grade("passed", measured(1.0, 0.494), 0.5).rfind("correct but slow (0.49x", 0) == 0);
}

TEST_CASE("speed does not change a grade that did not pass", "[grading][speed]") {
  using gemm::exercise::speed_grade;
  for (const char* grade : {"failed: at 1x1x1, C[0][0] = nan, expected 1 (bound 1e-07); 1 of 1 "
                            "elements wrong",
                            "not attempted (gaps 1,2 still open)"}) {
    CHECK(speed_grade(grade, measured(1.0, 1.0), 0.5) == grade);
    CHECK(speed_grade(grade, SpeedRecord{}, 0.5) == grade);
  }
}

TEST_CASE("a speed that was not measured says why, and keeps the pass", "[grading][speed]") {
  using gemm::exercise::parse_speed_record;
  using gemm::exercise::speed_grade;
  CHECK(speed_grade("passed", SpeedRecord{}, 0.5) ==
        "passed, speed not measured (no speed record: the speed test did not run)");
  CHECK(speed_grade("passed", parse_speed_record("not timed: no CUDA GPU is visible"), 0.5) ==
        "passed, speed not measured (no CUDA GPU is visible)");
  // A kernel wrong (or hung) at the speed size has failed after all.
  const std::string wrong =
      "failed: at 2048x2048x2048, C[0][0] = 0, expected 1 (bound 1e-05); "
      "4 of 4096 elements wrong (in the speed run)";
  CHECK(speed_grade("passed", parse_speed_record(wrong), 0.5) == wrong);
}

TEST_CASE("a forgotten gap marker is still mentioned, after the speed", "[grading][speed]") {
  const std::string grade = "passed (but the EXERCISE_GAP markers 2 are still there)";
  CHECK(gemm::exercise::speed_grade(grade, measured(1.0, 1.0), 0.5) ==
        "passed, 1.00x the reference (2048^3: 1.000 ms vs 1.000 ms), but the EXERCISE_GAP "
        "markers 2 are still there");
  CHECK(gemm::exercise::speed_grade(grade, measured(10.0, 1.0), 0.5)
            .find("1.000 ms), but the EXERCISE_GAP markers 2") != std::string::npos);
}

TEST_CASE("the self-test's speed checks", "[grading][speed]") {
  using gemm::exercise::selftest_speed_problem;
  using gemm::exercise::speed_grade;
  auto problem = [](const char* expect, const SpeedRecord& r) {
    return selftest_speed_problem(expect, r, speed_grade("passed", r, 0.5));
  };
  CHECK(problem("reference", measured(1.0, 1.02)) == "");
  CHECK(problem("reference", measured(1.0, 0.7)) != "");  // itself at 0.7x: broken timing
  CHECK(problem("reference", measured(1.0, 1.4)) != "");
  CHECK(problem("reference", measured(3.0, 1.0)) != "");  // graded slow
  CHECK(problem("reference", SpeedRecord{}) != "");       // not measured
  CHECK(problem("slow", measured(20.0, 1.0)) == "");
  CHECK(problem("slow", measured(1.5, 1.0)) != "");  // 0.67x: passed, not slow
  CHECK(problem("slow", SpeedRecord{}) != "");
}

int main(int argc, char** argv) {
  return Catch::Session().run(argc, argv);
}
