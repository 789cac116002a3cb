// The test sources work with Catch2 v3 (Ubuntu 24.04) and v2 (Debian 12, Ubuntu 22.04): the
// macros we use are the same in both; only the header differs.
#pragma once
#if defined(GEMM_CATCH2_V3)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
