// build/tests/exercise_speed_grade: scripts/run/grade.sh's helper for the speed part of a grade, so
// that the shell script holds no parsing of its own (the rules are in speed_grading.hpp,
// CPU-tested). No GPU needed.
//
//   exercise_speed_grade --check [EXERCISE...]
//       checks GEMM_SPEED_SIZE, GEMM_SPEED_THRESHOLD and GEMM_SPEED_THRESHOLD_FILE (whose names
//       must be among the EXERCISEs given): exit 0, or one sentence on stderr and exit 2
//   exercise_speed_grade EXERCISE GRADE SPEED_FILE
//       prints the exercise's grade line: GRADE (what its grading test said, e.g. "passed"), with
//       the speed from the record in SPEED_FILE when it passed
//   exercise_speed_grade --expect reference|slow EXERCISE GRADE SPEED_FILE
//       the self-test: the same line with the default threshold (the settings are not read), and
//       exit 0 when it is what it must be; otherwise exit 1, with the reason on a second line
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "exercises/speed_grading.hpp"

namespace {

using namespace gemm::exercise;

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

int usage() {
  std::fprintf(stderr,
               "usage: exercise_speed_grade --check [EXERCISE...]\n"
               "       exercise_speed_grade EXERCISE GRADE SPEED_FILE\n"
               "       exercise_speed_grade --expect reference|slow EXERCISE GRADE SPEED_FILE\n");
  return gemm::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--check") {
    SpeedSettings settings;
    const std::string why =
        speed_settings_from_env(std::vector<std::string>(args.begin() + 1, args.end()), settings);
    if (why.empty()) return gemm::kExitOk;
    std::fprintf(stderr, "%s\n", why.c_str());
    return gemm::kExitBadInput;
  }
  if (args.size() == 5 && args[0] == "--expect" && (args[1] == "reference" || args[1] == "slow")) {
    const SpeedRecord record = parse_speed_record(first_line(args[4]));
    const std::string line = speed_grade(args[3], record, kDefaultSpeedThreshold);
    const std::string problem = selftest_speed_problem(args[1], record, line);
    std::printf("%s\n", line.c_str());
    if (problem.empty()) return gemm::kExitOk;
    std::printf("%s\n", problem.c_str());
    return 1;
  }
  if (args.size() != 3 || args[0].empty() || args[0][0] == '-') return usage();

  SpeedSettings settings;
  const std::string why = speed_settings_from_env({}, settings);
  if (!why.empty()) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return gemm::kExitBadInput;
  }
  const SpeedRecord record = parse_speed_record(first_line(args[2]));
  const double threshold = settings.thresholds.for_exercise(args[0]);
  std::printf("%s\n", speed_grade(args[1], record, threshold).c_str());
  return gemm::kExitOk;
}
