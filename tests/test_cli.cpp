// The shared command line: every bad input is rejected with one sentence and exit code 2.
// (tests/CMakeLists.txt also checks the exit codes of the real program.)
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "common/cli.hpp"
#include "common/exit_codes.hpp"

namespace {

gemm::ParseResult parse(std::vector<std::string> args) {
  gemm::CliSpec spec;
  spec.program = "01_naive";
  spec.description = "test";
  spec.variant_names = {"first", "second"};
  spec.default_size = 4096;
  spec.allows_managed = true;
  args.insert(args.begin(), "01_naive");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return gemm::parse_command_line(static_cast<int>(argv.size()), argv.data(), spec);
}

bool one_sentence(const std::string& s) {
  return !s.empty() && s.back() == '.' && s.find('\n') == std::string::npos;
}

}  // namespace

TEST_CASE("cli: defaults", "[cli]") {
  const auto r = parse({});
  REQUIRE(r.exit_code == -1);
  CHECK(r.options.m == 4096);
  CHECK(r.options.n == 4096);
  CHECK(r.options.k == 4096);
  CHECK(r.options.variant == "all");
  CHECK(r.options.verify);
  CHECK_FALSE(r.options.managed);
  CHECK(r.options.device == -1);  // the current GPU
}

TEST_CASE("cli: --size, then --m --n --k override one dimension each", "[cli]") {
  const auto r = parse({"--size", "100", "--k", "7", "--variant", "second", "--seed", "5",
                        "--no-verify", "--iters", "3", "--warmup", "0", "--memory", "managed",
                        "--timing", "alone", "--samples-csv", "s.csv", "--device", "1"});
  REQUIRE(r.exit_code == -1);
  CHECK(r.options.m == 100);
  CHECK(r.options.n == 100);
  CHECK(r.options.k == 7);
  CHECK(r.options.variant == "second");
  CHECK(r.options.seed == 5);
  CHECK_FALSE(r.options.verify);
  CHECK(r.options.iters == 3);
  CHECK(r.options.warmup == 0);
  CHECK(r.options.managed);
  CHECK(r.options.alone);
  CHECK(r.options.samples_csv == "s.csv");
  CHECK(r.options.device == 1);
}

TEST_CASE("cli: --energy, its window and its CSV", "[cli]") {
  const auto off = parse({});
  CHECK_FALSE(off.options.energy);
  CHECK(off.options.energy_seconds == 2.0);
  const auto on = parse({"--energy", "--energy-seconds", "0.5"});
  REQUIRE(on.exit_code == -1);
  CHECK(on.options.energy);
  CHECK(on.options.energy_seconds == 0.5);
  CHECK(on.options.energy_csv.empty());
  const auto csv = parse({"--energy-csv", "e.csv"});  // the CSV alone turns the measurement on
  REQUIRE(csv.exit_code == -1);
  CHECK(csv.options.energy);
  CHECK(csv.options.energy_csv == "e.csv");
}

TEST_CASE("cli: --no-flush and --cublas-last", "[cli]") {
  const auto off = parse({});
  CHECK(off.options.flush);
  CHECK_FALSE(off.options.cublas_last);
  const auto on = parse({"--no-flush", "--cublas-last", "--timing", "alone"});
  REQUIRE(on.exit_code == -1);
  CHECK_FALSE(on.options.flush);
  CHECK(on.options.cublas_last);
}

TEST_CASE("cli: a fresh seed when none is given", "[cli]") {
  // Two draws from std::random_device agreeing 3 times in a row is (practically) impossible.
  const auto a = parse({}), b = parse({}), c = parse({});
  CHECK_FALSE((a.options.seed == b.options.seed && b.options.seed == c.options.seed));
}

TEST_CASE("cli: every bad input gets exit code 2 and one sentence", "[cli]") {
  const std::vector<std::vector<std::string>> bad = {
      {"--size", "abc"},     {"--size", "12x"},       {"--size", ""},
      {"--size", "0"},       {"--m", "-3"},           {"--n", "1.5"},
      {"--k"},               {"--size", "99999999"},  {"--size", "100000"},
      {"--variant", "nope"}, {"--variant"},           {"--iters", "0"},
      {"--warmup", "-1"},    {"--seed", "x"},         {"--memory", "pinned"},
      {"--csv"},             {"--bogus"},             {"--timing", "both"},
      {"--timing"},          {"--samples-csv"},       {"--m", "300000", "--n", "1", "--k", "1"},
      {"--device"},          {"--device", "-1"},      {"--device", "one"},
      {"--device", "5000"},  {"--energy-seconds"},    {"--energy-seconds", "0"},
      {"--energy-seconds", "2s"}, {"--energy-seconds", "nan"}, {"--energy-seconds", "601"},
      {"--energy-csv"},
  };
  for (const auto& args : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    INFO("arguments: " << joined);
    const auto r = parse(args);
    CHECK(r.exit_code == gemm::kExitBadInput);
    CHECK(one_sentence(r.message));
  }
}

TEST_CASE("cli: --help and --list exit 0 without touching a GPU", "[cli]") {
  const auto h = parse({"--help"});
  CHECK(h.exit_code == gemm::kExitOk);
  CHECK(h.message.find("Exit codes") != std::string::npos);
  const auto l = parse({"--list"});
  CHECK(l.exit_code == gemm::kExitOk);
  CHECK(l.message.find("first") != std::string::npos);
  CHECK(l.message.find("second") != std::string::npos);
}

TEST_CASE("cli: sizes that do not fit in GPU memory get one sentence", "[cli]") {
  CHECK(gemm::memory_shortfall(10, 10, 10, 100, 1000, "gpu").empty());
  const std::string s = gemm::memory_shortfall(40000, 40000, 40000, size_t(30e9), size_t(8e9), "Some GPU");
  CHECK(one_sentence(s));
  CHECK(s.find("30.00 GB") != std::string::npos);
  CHECK(s.find("8.00 GB") != std::string::npos);
}
