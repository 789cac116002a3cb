// How a run becomes a grade (grading.hpp), checked on the CPU: the GPU side of the exercise suite
// can only run where there is a GPU, but the words a student reads must be right everywhere.
#define CATCH_CONFIG_RUNNER
#include <cmath>
#include <limits>
#include <string>

#include "catch_compat.hpp"
#include "exercises/grading.hpp"

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

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
