// expect_exit [--gpu | --gpus N] [--needs FILE] CODE -- PROGRAM [ARGS...]
//
// Runs PROGRAM and exits 0 if it exited with CODE, 1 otherwise. Exits 77 (ctest's "skipped", via
// SKIP_RETURN_CODE) before running anything when --gpu is given and no CUDA GPU is visible (--gpus
// N: fewer than N GPUs), or when --needs names a file that does not exist (e.g. compute-sanitizer
// was not found); and, with --gpu or --gpus, when the program itself exits 3 ("no suitable GPU":
// too old for that chapter).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {
constexpr int kSkip = 77;

int gpus_visible() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}
}  // namespace

int main(int argc, char** argv) {
  int need_gpus = 0;
  std::string needs;
  int expected = -1;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--gpu") {
      need_gpus = 1;
    } else if (a == "--gpus" && i + 1 < argc) {
      need_gpus = std::atoi(argv[++i]);
    } else if (a == "--needs" && i + 1 < argc) {
      needs = argv[++i];
    } else if (a == "--") {
      ++i;
      break;
    } else {
      expected = std::atoi(a.c_str());
    }
  }
  if (expected < 0 || i >= argc) {
    std::fprintf(stderr,
                 "usage: expect_exit [--gpu | --gpus N] [--needs FILE] CODE -- PROGRAM [ARGS...]\n");
    return 1;
  }
  struct stat st;
  if (!needs.empty() && stat(needs.c_str(), &st) != 0) {
    std::printf("skipped: %s was not found\n", needs.c_str());
    return kSkip;
  }
  if (need_gpus > 0) {
    const int visible = gpus_visible();
    if (visible == 0) {
      std::printf("skipped: no CUDA GPU is visible\n");
      return kSkip;
    }
    if (visible < need_gpus) {
      std::printf("skipped: needs %d GPUs; this machine shows %d\n", need_gpus, visible);
      return kSkip;
    }
  }

  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[i], argv + i);
    std::perror("expect_exit: cannot run the program");
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) {
    std::perror("expect_exit");
    return 1;
  }
  if (!WIFEXITED(status)) {
    std::printf("expect_exit: %s was killed by signal %d (expected exit code %d)\n", argv[i],
                WTERMSIG(status), expected);
    return 1;
  }
  const int code = WEXITSTATUS(status);
  // With --gpu, the chapters' exit code 3 means "this GPU is too old for me" (e.g. no tensor
  // cores): a skip on that machine, not a failure.
  if (need_gpus > 0 && code == 3 && expected != 3) {
    std::printf("skipped: %s reports that this GPU cannot run it (exit code 3)\n", argv[i]);
    return kSkip;
  }
  if (code != expected) {
    std::printf("expect_exit: %s exited with %d, expected %d\n", argv[i], code, expected);
    return 1;
  }
  std::printf("expect_exit: exit code %d as expected\n", code);
  return 0;
}
