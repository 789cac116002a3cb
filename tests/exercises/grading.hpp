// How a run of an exercise becomes a grade. Host-only, shared by the exercise program
// (exercise_main.cu: the gap line after a run) and the exercise test suite (test_gpu.cpp compiled
// with GEMM_EXERCISE_SUITE: the grade file that scripts/run/grade.sh prints).
//
// Three outcomes, decided in this order:
//   passed          every shape verified (a gap marker left in a correct kernel is only mentioned)
//   not attempted   some shape failed and the kernel still ran through every gap of the skeleton
//   failed          anything else: the first shape that failed, its first wrong element, the
//                   expected value and the bound, and the gaps still open if any
// A "passed" grade then gets its speed, or becomes "correct but slow": speed_grading.hpp.
#pragma once

#include <cstdio>
#include <string>

#include "common/verify.hpp"

namespace gemm::exercise {

// "1,2,3" for bits 1, 2 and 3.
inline std::string gap_list(unsigned gaps) {
  std::string s;
  for (int g = 0; g < 32; ++g)
    if (gaps & (1u << g)) s += (s.empty() ? "" : ",") + std::to_string(g);
  return s;
}

// Every gap of the skeleton still reached. A skeleton without markers (skeleton_gaps == 0) can
// never be "not attempted": we cannot tell.
inline bool all_gaps_open(unsigned open, unsigned skeleton_gaps) {
  return skeleton_gaps != 0 && (open & skeleton_gaps) == skeleton_gaps;
}

// The one-line grade. `first_bad` is the VerifyResult of the first shape that failed (unused when
// `passed`), at shape `first_bad_shape` ("17x33x65").
inline std::string grade_line(bool passed, const std::string& first_bad_shape,
                              const VerifyResult& first_bad, unsigned open,
                              unsigned skeleton_gaps) {
  if (passed)
    return open ? "passed (but the EXERCISE_GAP markers " + gap_list(open) + " are still there)"
                : "passed";
  if (all_gaps_open(open, skeleton_gaps))
    return "not attempted (gaps " + gap_list(open) + " still open)";
  char buf[320];
  if (first_bad.checked == 0) {
    std::snprintf(buf, sizeof buf, "failed: at %s, nothing was checked", first_bad_shape.c_str());
  } else {
    std::snprintf(buf, sizeof buf,
                  "failed: at %s, C[%d][%d] = %.9g, expected %.9g (bound %.3g); %lld of %lld "
                  "elements wrong",
                  first_bad_shape.c_str(), first_bad.bad_row, first_bad.bad_col, first_bad.bad_got,
                  first_bad.bad_expected, first_bad.bad_bound, first_bad.failed, first_bad.checked);
  }
  std::string line = buf;
  if (open) line += "; gaps " + gap_list(open) + " still open";
  return line;
}

}  // namespace gemm::exercise
