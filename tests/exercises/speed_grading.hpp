// How fast a passing exercise runs, as part of its grade (docs/instructors.md, section 4).
// Host-only C++, tested on the CPU (test_grading.cpp) and shared by
//   exercise_speed.cpp   ctest's NN_name_exercise_speed: times the student's kernel against the
//                        reference solution and writes a speed record;
//   speed_grade.cpp      exercise_speed_grade, scripts/run/grade.sh's helper: checks the
//                        instructor's settings, and turns a grade and a speed record into the
//                        line it prints.
//
// Settings (environment variables, all optional; an empty value counts as unset):
//   GEMM_SPEED_SIZE=2048          the speed is measured at SIZE x SIZE x SIZE (256 to 8192)
//   GEMM_SPEED_THRESHOLD=0.5      a correct kernel slower than this fraction of the reference's
//                                 speed is graded "correct but slow" (0 to 2; 0: never)
//   GEMM_SPEED_THRESHOLD_FILE=F   lines "NN_name THRESHOLD" and at most one "default THRESHOLD";
//                                 # starts a comment
//
// The speed record, one line in build/grades/NN_name_exercise_speed.txt:
//   measured: size=2048 exercise_ms=1.234 reference_ms=1.197 reps=57
//   not timed: WHY             (no GPU, the grading test did not pass, a bad setting)
//   failed: WHERE AND WHY      (a wrong result, a crash or a hang at the speed size)
//
// The grade of an exercise whose grading test passed then reads one of
//   passed, 0.97x the reference (2048^3: 1.234 ms vs 1.197 ms)
//   correct but slow (0.12x the reference, below the threshold 0.5x; 2048^3: 9.876 ms vs 1.197 ms)
//   passed, speed not measured (WHY)
//   failed: WHERE AND WHY
// The ratio is the reference's time over the student's: 1.00x is as fast, 0.50x half as fast.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gemm::exercise {

// 0.5: a kernel that follows the chapter's idea runs at about 1.0x (the reference timed against
// itself varies by a few percent), and the mistakes the chapters warn about mostly cost far more
// than 2x (chapter 01's uncoalesced mapping runs at 0.075x of the coalesced one at 2048^3 on the
// H200). Half the reference's speed is far from both, so the noise of one GPU or the different
// balance of another does not flip a grade. docs/instructors.md, section 4, says what it misses.
constexpr double kDefaultSpeedThreshold = 0.5;
constexpr double kMaxSpeedThreshold = 2.0;  // more is surely a percentage typed by mistake ("50")
constexpr int kDefaultSpeedSize = 2048;
constexpr int kMinSpeedSize = 256;   // smaller grids leave most SMs idle: the ratio means little
constexpr int kMaxSpeedSize = 8192;  // larger, and a slow kernel takes many seconds per run
// The self-test times the reference against itself: the same kernel twice must give about 1.0x.
constexpr double kSelfRatioLow = 0.8;
constexpr double kSelfRatioHigh = 1.25;

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// ---- The settings -----------------------------------------------------------------------------

// "0.5", ".5" or "1" -> true and the value. Only plain decimals from 0 to kMaxSpeedThreshold:
// no sign, exponent, "inf" or "50%", which strtod alone would take or half-read.
inline bool parse_threshold(const std::string& text, double& value) {
  const bool digits_and_one_dot =
      !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos &&
      text.find('.') == text.rfind('.') && text.find_first_of("0123456789") != std::string::npos;
  if (!digits_and_one_dot) return false;
  value = std::strtod(text.c_str(), nullptr);
  return value <= kMaxSpeedThreshold;
}

inline std::string bad_threshold(const std::string& where, const std::string& text) {
  return where + ": '" + text + "' is not a threshold: give a number from 0 to 2, the fraction " +
         "of the reference's speed below which a correct kernel is graded slow (0.5: half as " +
         "fast; 0: never).";
}

// "02_shared_tiling": two digits, an underscore, a name.
inline bool looks_like_exercise(const std::string& name) {
  return name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '_';
}

// "" when `name` is one of the exercises `known` (any NN_name when `known` is empty); otherwise
// the sentence that says so, with the names there are, so that a typo is easy to see.
inline std::string unknown_exercise(const std::string& name,
                                    const std::vector<std::string>& known) {
  const bool in_build = known.empty() || std::find(known.begin(), known.end(), name) != known.end();
  if (looks_like_exercise(name) && in_build) return "";
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  return "'" + name + "' names no exercise" +
         (list.empty() ? " (expected NN_name, e.g. 02_shared_tiling, or default)."
                       : " of this build (" + list + ", or default).");
}

struct SpeedThresholds {
  double fallback = kDefaultSpeedThreshold;  // for every exercise the file does not name
  std::map<std::string, double> named;       // the file's "NN_name THRESHOLD" lines

  double for_exercise(const std::string& exercise) const {
    const auto it = named.find(exercise);
    return it == named.end() ? fallback : it->second;
  }
};

// Reads the lines of a threshold file into `t`. Returns "" or one sentence that starts with
// FILE:LINE. `known`: the exercises of this build, so that a misspelt name is an error instead of
// a line that silently does nothing (empty: any NN_name). `env_default`: GEMM_SPEED_THRESHOLD is
// set as well, and a "default" line would be a second default.
inline std::string read_threshold_file(std::istream& in, const std::string& file,
                                       const std::vector<std::string>& known, bool env_default,
                                       SpeedThresholds& t) {
  std::map<std::string, int> first_line;  // name -> the line that set it
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string name, value, extra;
    if (!(words >> name)) continue;  // blank, or only a comment
    const std::string where = file + ":" + std::to_string(number);
    if (!(words >> value) || (words >> extra))
      return where + ": expected 'NN_name THRESHOLD' or 'default THRESHOLD', not '" + line + "'.";
    double v = 0.0;
    if (!parse_threshold(value, v)) return bad_threshold(where, value);
    if (first_line.count(name))
      return where + ": " + name + " was already given a threshold on line " +
             std::to_string(first_line[name]) + ".";
    first_line[name] = number;
    if (name == "default") {
      if (env_default)
        return where +
               ": GEMM_SPEED_THRESHOLD is set as well: give the default threshold in one "
               "place only.";
      t.fallback = v;
      continue;
    }
    const std::string unknown = unknown_exercise(name, known);
    if (!unknown.empty()) return where + ": " + unknown;
    t.named[name] = v;
  }
  return "";
}

struct SpeedSettings {
  int size = kDefaultSpeedSize;
  SpeedThresholds thresholds;
};

inline bool is_set(const char* value) {
  return value != nullptr && *value != '\0';
}

// The three settings, from their values (nullptr or "": unset). Returns "" or one sentence.
inline std::string read_speed_settings(const char* size, const char* threshold, const char* file,
                                       const std::vector<std::string>& known, SpeedSettings& s) {
  if (is_set(size)) {
    const std::string text = size;
    const bool digits =
        text.size() <= 5 && text.find_first_not_of("0123456789") == std::string::npos;
    s.size = digits ? std::atoi(text.c_str()) : 0;
    if (s.size < kMinSpeedSize || s.size > kMaxSpeedSize)
      return "GEMM_SPEED_SIZE: '" + text + "' is not a size from 256 to 8192 (the speed is " +
             "measured at SIZE x SIZE x SIZE, 2048 by default).";
  }
  if (is_set(threshold) && !parse_threshold(threshold, s.thresholds.fallback))
    return bad_threshold("GEMM_SPEED_THRESHOLD", threshold);
  if (is_set(file)) {
    std::ifstream in(file);
    if (!in) return std::string("GEMM_SPEED_THRESHOLD_FILE: cannot read '") + file + "'.";
    return read_threshold_file(in, file, known, is_set(threshold), s.thresholds);
  }
  return "";
}

inline std::string speed_settings_from_env(const std::vector<std::string>& known,
                                           SpeedSettings& s) {
  return read_speed_settings(std::getenv("GEMM_SPEED_SIZE"), std::getenv("GEMM_SPEED_THRESHOLD"),
                             std::getenv("GEMM_SPEED_THRESHOLD_FILE"), known, s);
}

// ---- The speed record -------------------------------------------------------------------------

struct SpeedRecord {
  enum class Kind { kNone, kMeasured, kNotTimed, kFailed };
  Kind kind = Kind::kNone;
  int size = 0;
  double exercise_ms = 0.0, reference_ms = 0.0;
  int reps = 0;      // timed runs of each kernel
  std::string text;  // kNotTimed: why; kFailed: the whole line

  double ratio() const { return reference_ms / exercise_ms; }
};

inline std::string measured_line(int size, double exercise_ms, double reference_ms, int reps) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "measured: size=%d exercise_ms=%.6g reference_ms=%.6g reps=%d",
                size, exercise_ms, reference_ms, reps);
  return buf;
}

// The first line of a speed record ("" when there is none).
inline SpeedRecord parse_speed_record(const std::string& line) {
  SpeedRecord r;
  if (line.empty()) return r;
  if (starts_with(line, "failed: ")) {
    r.kind = SpeedRecord::Kind::kFailed;
    r.text = line;
    return r;
  }
  r.kind = SpeedRecord::Kind::kNotTimed;
  if (starts_with(line, "not timed: ")) {
    r.text = line.substr(11);
    return r;
  }
  char rest = 0;
  const int read =
      std::sscanf(line.c_str(), "measured: size=%d exercise_ms=%lf reference_ms=%lf reps=%d %c",
                  &r.size, &r.exercise_ms, &r.reference_ms, &r.reps, &rest);
  // "> 0.0" also rejects NaN, "< 1e9" infinity.
  if (read == 4 && r.size > 0 && r.exercise_ms > 0.0 && r.reference_ms > 0.0 && r.reps > 0 &&
      r.exercise_ms < 1e9 && r.reference_ms < 1e9) {
    r.kind = SpeedRecord::Kind::kMeasured;
  } else {
    r.text = "the speed record '" + line + "' cannot be read";
  }
  return r;
}

// ---- The grade line ---------------------------------------------------------------------------

// 0.97 -> "0.97x"; below 0.1, two significant digits (0.053 -> "0.053x"), never "0.00x".
inline std::string format_ratio(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ratio >= 0.095 ? "%.2fx" : "%.2gx", ratio);
  return buf;
}

inline std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

// The line of an exercise, from its correctness grade (the first line of NN_name_exercise.txt:
// grading.hpp) and its speed record. Only a "passed" grade changes; its remark about forgotten
// gap markers, "passed (but ...)", moves behind the speed.
inline std::string speed_grade(const std::string& grade, const SpeedRecord& r, double threshold) {
  if (!starts_with(grade, "passed")) return grade;
  std::string remark = grade.substr(6);  // "" or " (but the EXERCISE_GAP markers 2 are ...)"
  if (starts_with(remark, " (") && remark.back() == ')')
    remark = ", " + remark.substr(2, remark.size() - 3);
  switch (r.kind) {
    case SpeedRecord::Kind::kNone:
      return "passed, speed not measured (no speed record: the speed test did not run)" + remark;
    case SpeedRecord::Kind::kNotTimed: {
      const bool full_stop = !r.text.empty() && r.text.back() == '.';  // a sentence, in brackets
      return "passed, speed not measured (" + r.text.substr(0, r.text.size() - full_stop) + ")" +
             remark;
    }
    case SpeedRecord::Kind::kFailed:
      return r.text;
    case SpeedRecord::Kind::kMeasured:
      break;
  }
  const std::string ratio = format_ratio(r.ratio());
  const std::string times = std::to_string(r.size) + "^3: " + format_ms(r.exercise_ms) + " vs " +
                            format_ms(r.reference_ms);
  // Judged on the ratio as printed, so that "0.50x" is never "below the threshold 0.5x".
  if (std::strtod(ratio.c_str(), nullptr) < threshold) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%gx", threshold);
    return "correct but slow (" + ratio + " the reference, below the threshold " + limit + "; " +
           times + ")" + remark;
  }
  return "passed, " + ratio + " the reference (" + times + ")" + remark;
}

// The self-test's speed checks (scripts/run/grade.sh --selftest), with the default threshold.
// Returns "" when `line`, made from record `r`, is what it must be; otherwise why not.
//   "reference": the chapter's kernel timed against itself: measured, passed, and within
//                kSelfRatioLow .. kSelfRatioHigh (anything else means the timing is broken);
//   "slow":      tests/exercises/slow/NN_name.cu: correct, and graded slow.
inline std::string selftest_speed_problem(const std::string& expect, const SpeedRecord& r,
                                          const std::string& line) {
  if (r.kind != SpeedRecord::Kind::kMeasured) return "no speed was measured";
  if (expect == "slow")
    return starts_with(line, "correct but slow") ? "" : "must be graded correct but slow";
  if (!starts_with(line, "passed, ")) return "the reference must pass";
  if (r.ratio() < kSelfRatioLow || r.ratio() > kSelfRatioHigh)
    return "the same kernel twice must time at 0.8x to 1.25x";
  return "";
}

}  // namespace gemm::exercise
