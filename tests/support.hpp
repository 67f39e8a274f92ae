// What every step's test shares: the awkward-shape suite and the checks around a kernel.
#pragma once

#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "cpu_step.hpp"
#include "problem.hpp"
#include "verify.hpp"

#if GEMV_TEST_NEEDS_GPU
#include "gpu_step.hpp"
#endif

namespace gemv_test {

struct Dims {
    std::int64_t m, n;
};

// DESIGN's awkward shapes: degenerate, around powers of two, primes, very tall and very wide.
inline std::vector<Dims> awkward_shapes() {
    return {{1, 1},       {1, 1000},   {1000, 1},  {31, 31},   {33, 33},     {4095, 33},  {33, 4097},
            {4097, 4095}, {997, 1009}, {7919, 13}, {13, 7919}, {1000000, 3}, {3, 1000000}};
}

inline std::string describe(const Dims& d, gemv::Layout layout, const char* precision) {
    return std::to_string(d.m) + " x " + std::to_string(d.n) + ", " + gemv::layout_word(layout) + ", " + precision;
}

// Fails the test with the verifier's plain-words message (what is missing), not a bare mismatch.
inline void require_verified(const gemv::Verification& v, const std::string& what) {
#ifdef GEMV_TEST_KERNEL_NOTE
    INFO(GEMV_TEST_KERNEL_NOTE);
#endif
    INFO(what << ": " << v.message);
    REQUIRE(v.ok);
}

}  // namespace gemv_test
