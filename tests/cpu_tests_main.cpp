// The CPU test program's main (the same for Catch2 v2 and v3).
#define CATCH_CONFIG_RUNNER
#include "catch_compat.hpp"

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
