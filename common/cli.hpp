// The command line shared by every chapter program. Parsing needs no GPU, so --help, --list and
// every bad-input message work on any machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gemm {

struct Options {
  int m = 0, n = 0, k = 0;        // problem size (filled from --size / the chapter default)
  std::string variant = "all";    // --variant NAME|all
  int iters = 10;                 // minimum timed repetitions
  int warmup = 2;                 // untimed runs before timing
  bool alone = false;             // --timing alone: each kernel timed on its own, one after the
                                  // other (default --timing turns: all of them in rounds)
  bool flush = true;              // --no-flush: no L2 flush before each timed run
  bool cublas_last = false;       // --cublas-last: alone and --energy, cuBLAS after the variants
  bool verify = true;             // --no-verify turns verification off
  std::string csv;                // --csv FILE: append machine-readable rows
  std::string resources_csv;      // --resources-csv FILE: the kernels' registers, shared memory
                                  // and occupancy (docs/tile_size_tradeoffs.md)
  std::string samples_csv;        // --samples-csv FILE: every timed run's time (timing.png)
  std::uint64_t seed = 0;         // --seed; random (and printed) when not given
  bool seed_given = false;
  bool baseline = true;           // --no-baseline: do not run cuBLAS (sanitizer runs)
  bool managed = false;           // --memory managed (unified memory, chapter 01 shows its cost)
  bool energy = false;            // --energy: joules per GEMM, each kernel alone (energy.cuh)
  double energy_seconds = 2.0;    // --energy-seconds S: the measured window per kernel
  std::string energy_csv;         // --energy-csv FILE (implies --energy): one row per kernel
  int device = -1;                // --device N: run on GPU N (-1: the current one, GPU 0 unless
                                  // CUDA_VISIBLE_DEVICES says otherwise)
  bool list = false;              // --list
  bool help = false;              // --help
};

// What a chapter tells the parser about itself.
struct CliSpec {
  std::string program;                   // "01_naive"
  std::string description;               // one line for --help
  std::vector<std::string> variant_names;
  std::string list_note = "the first is the chapter's headline";  // shown by --list
  int default_size = 4096;
  bool allows_managed = false;
  bool uses_gpu = true;  // false: chapter 00, which has no --device
};

struct ParseResult {
  Options options;
  int exit_code = -1;   // -1: go on and run; otherwise exit with this code after printing `message`
  std::string message;  // the one clear sentence for bad input, or the --help / --list text
};

// The largest single dimension we accept. The grids put row tiles (naive_uncoalesced: column
// tiles) in blockIdx.y, which CUDA limits to 65535 blocks; with tiles of at least 8 rows (or
// columns) that allows 524280. We also keep every
// matrix under 2^31 elements so that 32-bit index arithmetic (cheap on the GPU) never overflows.
constexpr int kMaxDim = 1 << 18;

ParseResult parse_command_line(int argc, const char* const* argv, const CliSpec& spec);

std::string usage_text(const CliSpec& spec);

// "" when `need` bytes fit in `free_bytes`; otherwise the one sentence that says they do not.
std::string memory_shortfall(int M, int N, int K, size_t need, size_t free_bytes,
                             const std::string& device);

}  // namespace gemm
