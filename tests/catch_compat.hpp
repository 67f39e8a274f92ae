// One include for Catch2 3 (Ubuntu 24.04) and Catch2 2.13 (Debian 12): the macros the lab's tests
// use are the same in both.
#pragma once

#if GEMV_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers.hpp>  // REQUIRE_THROWS_WITH
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
