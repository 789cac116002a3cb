#include "common/cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

#include "common/exit_codes.hpp"

namespace gemm {
namespace {

// Strict: the whole string must be a base-10 integer in [lo, hi].
bool parse_int(const std::string& text, long long lo, long long hi, long long& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') return false;
  if (v < lo || v > hi) return false;
  out = v;
  return true;
}

ParseResult bad(const std::string& sentence) {
  ParseResult r;
  r.exit_code = kExitBadInput;
  r.message = sentence;
  return r;
}

}  // namespace

std::string usage_text(const CliSpec& spec) {
  std::ostringstream os;
  os << spec.program << ": " << spec.description << "\n\n"
     << "Usage: " << spec.program << " [options]\n"
     << "  --size N          square problem M = N = K = N (default " << spec.default_size << ")\n"
     << "  --m M --n N --k K rectangular problem; each defaults to --size\n"
     << "  --variant NAME    run one variant, or 'all' (default: all)\n"
     << "  --list            list this chapter's variants and exit\n"
     << "  --iters N         minimum timed repetitions (default 10; more until 0.3 s is timed)\n"
     << "  --warmup N        untimed runs of each kernel before timing (default 2)\n"
     << "  --timing HOW      'turns' (default): cuBLAS and the variants timed in rounds, one run\n"
     << "                    of each per round, all at the same clock; 'alone': each on its own,\n"
     << "                    one after the other (with a long --warmup, each at the clock its own\n"
     << "                    power draw allows: docs/benchmarking.md, section 5)\n"
     << "  --no-verify       skip verification (timing only)\n"
     << "  --no-baseline     do not run cuBLAS (no % column; large sizes are then verified on\n"
     << "                    sampled rows only). For compute-sanitizer runs: cuBLAS's kernels\n"
     << "                    are not ours to check\n"
     << "  --csv FILE        append one row per variant to FILE (for scripts/docs/plot.py)\n"
     << "  --resources-csv F append each kernel's registers, shared memory and occupancy to F\n"
     << "  --samples-csv F   append every timed run (kernel, seconds since start, ms) to F\n"
     << "  --seed S          seed of the random inputs (default: a fresh seed, printed)\n";
  if (spec.allows_managed)
    os << "  --memory KIND     'device' (cudaMalloc, default) or 'managed' (unified memory)\n";
  if (spec.uses_gpu)
    os << "  --energy          after the table, each kernel alone, back to back (1 s to settle,\n"
       << "                    then --energy-seconds measured): joules per GEMM, GFLOP per\n"
       << "                    joule, mean power and SM clock, from the driver's energy counter\n"
       << "  --energy-seconds S  the measured window per kernel (default 2; 0.1 to 600)\n"
       << "  --energy-csv F    append those figures to F, one row per kernel (implies --energy)\n"
       << "  --no-flush        do not flush the L2 cache before each timed run: a run may then\n"
       << "                    find A and B in L2 and has no flush's dirty lines to write back\n"
       << "  --cublas-last     with --timing alone and --energy, the variants first and cuBLAS\n"
       << "                    last (the default: cuBLAS first); in turns the order rotates anyway\n"
       << "  --device N        run on GPU N of this machine (default 0; nvidia-smi lists them)\n";
  os << "  --help            this text\n\n"
     << "Sizes: 1 to " << kMaxDim << " each, and each matrix under 2^31 elements.\n"
     << "Exit codes: 0 ok, 1 verification failed, 2 bad input (or too large for GPU memory),\n"
     << "            3 no suitable GPU, 4 unexpected CUDA/cuBLAS error.\n";
  return os.str();
}

std::string memory_shortfall(int M, int N, int K, size_t need, size_t free_bytes,
                             const std::string& device) {
  if (need <= free_bytes) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "A %dx%dx%d problem needs %.2f GB of GPU memory but only %.2f GB is free on %s; "
                "choose smaller sizes.",
                M, N, K, need / 1e9, free_bytes / 1e9, device.c_str());
  return buf;
}

ParseResult parse_command_line(int argc, const char* const* argv, const CliSpec& spec) {
  ParseResult r;
  Options& o = r.options;
  long long size = spec.default_size, m = -1, n = -1, k = -1;

  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    // Options that take a value read it here; a missing value is a bad input like any other.
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    auto dim = [&](long long& out) -> std::string {
      std::string v;
      if (!value(v)) return arg + " needs a value.";
      if (!parse_int(v, 1, kMaxDim, out))
        return arg + " must be a whole number from 1 to " + std::to_string(kMaxDim) + ", got '" +
               v + "'.";
      return "";
    };
    std::string err, v;
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--size") {
      err = dim(size);
    } else if (arg == "--m") {
      err = dim(m);
    } else if (arg == "--n") {
      err = dim(n);
    } else if (arg == "--k") {
      err = dim(k);
    } else if (arg == "--iters" || arg == "--warmup") {
      long long count = 0;
      const long long lo = (arg == "--iters") ? 1 : 0;
      if (!value(v)) {
        err = arg + " needs a value.";
      } else if (!parse_int(v, lo, 1000000, count)) {
        err = arg + " must be a whole number from " + std::to_string(lo) + " to 1000000, got '" +
              v + "'.";
      } else {
        (arg == "--iters" ? o.iters : o.warmup) = static_cast<int>(count);
      }
    } else if (arg == "--timing") {
      if (!value(v) || (v != "turns" && v != "alone"))
        err = "--timing must be 'turns' or 'alone'.";
      else
        o.alone = (v == "alone");
    } else if (arg == "--variant") {
      if (!value(o.variant)) err = "--variant needs a name (see --list) or 'all'.";
    } else if (arg == "--no-verify") {
      o.verify = false;
    } else if (arg == "--no-baseline") {
      o.baseline = false;
    } else if (arg == "--csv") {
      if (!value(o.csv)) err = "--csv needs a file name.";
    } else if (arg == "--resources-csv") {
      if (!value(o.resources_csv)) err = "--resources-csv needs a file name.";
    } else if (arg == "--samples-csv") {
      if (!value(o.samples_csv)) err = "--samples-csv needs a file name.";
    } else if (arg == "--seed") {
      long long s = 0;
      if (!value(v) || !parse_int(v, 0, 0x7fffffffffffffffLL, s)) {
        err = "--seed must be a whole number from 0 to 2^63-1.";
      } else {
        o.seed = static_cast<std::uint64_t>(s);
        o.seed_given = true;
      }
    } else if (arg == "--energy" && spec.uses_gpu) {
      o.energy = true;
    } else if (arg == "--energy-csv" && spec.uses_gpu) {
      if (!value(o.energy_csv))
        err = "--energy-csv needs a file name.";
      else
        o.energy = true;
    } else if (arg == "--energy-seconds" && spec.uses_gpu) {
      char* end = nullptr;
      const double s = value(v) ? std::strtod(v.c_str(), &end) : 0.0;
      if (v.empty() || end == v.c_str() || *end != '\0' || !(s >= 0.1 && s <= 600))
        err = "--energy-seconds must be a number of seconds from 0.1 to 600, got '" + v + "'.";
      else
        o.energy_seconds = s;
    } else if (arg == "--no-flush" && spec.uses_gpu) {
      o.flush = false;
    } else if (arg == "--cublas-last" && spec.uses_gpu) {
      o.cublas_last = true;
    } else if (arg == "--device" && spec.uses_gpu) {
      long long d = 0;
      if (!value(v))
        err = "--device needs a GPU number (0 is the first; nvidia-smi lists them).";
      else if (!parse_int(v, 0, 1023, d))
        err = "--device must be a GPU number from 0 (nvidia-smi lists them), got '" + v + "'.";
      else
        o.device = static_cast<int>(d);
    } else if (arg == "--memory" && spec.allows_managed) {
      if (!value(v) || (v != "device" && v != "managed"))
        err = "--memory must be 'device' or 'managed'.";
      else
        o.managed = (v == "managed");
    } else {
      err = "Unknown option '" + arg + "' (see --help).";
    }
    if (!err.empty()) return bad(err);
  }

  if (o.help) {
    r.exit_code = kExitOk;
    r.message = usage_text(spec);
    return r;
  }
  if (o.list) {
    r.exit_code = kExitOk;
    r.message = "Variants of " + spec.program + " (" + spec.list_note + "):";
    for (const auto& name : spec.variant_names) r.message += "\n  " + name;
    return r;
  }
  bool known = (o.variant == "all");
  for (const auto& name : spec.variant_names) known = known || (name == o.variant);
  if (!known) return bad("Unknown variant '" + o.variant + "'; --list shows this chapter's variants.");

  o.m = static_cast<int>(m > 0 ? m : size);
  o.n = static_cast<int>(n > 0 ? n : size);
  o.k = static_cast<int>(k > 0 ? k : size);
  const long long limit = 0x7fffffffLL;
  if (1LL * o.m * o.k > limit || 1LL * o.k * o.n > limit || 1LL * o.m * o.n > limit)
    return bad("Each matrix must have fewer than 2^31 elements; " + std::to_string(o.m) + "x" +
               std::to_string(o.n) + "x" + std::to_string(o.k) + " is too large.");
  if (!o.seed_given) o.seed = std::random_device{}() & 0x7fffffffu;
  return r;
}

}  // namespace gemm
