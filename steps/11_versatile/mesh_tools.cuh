// What the tuner and the benchmark share: problems made on the device (the mesh reaches sizes the
// host would take minutes to fill), a double-precision reference computed on the device, the
// verifier's bound applied there, and the search over configurations at one shape.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device.hpp"
#include "gemv_versatile.cuh"

template <class T>
struct DeviceProblem {
    gemv::DeviceArray<T> A, x, y;
    gemv::DeviceArray<double> ref, abs_sum;
    gemv::DeviceArray<unsigned long long> failures;
    // Room for any m×n with m·n <= max_elems and m, n <= max_dim.
    DeviceProblem(std::int64_t max_elems, std::int64_t max_dim, std::uint64_t seed);
    // The reference for the leading m×n of A in the given layout.
    void reference(std::int64_t m, std::int64_t n, gemv::Layout layout);
    // Rows of y outside n·eps·Σ|a·x| of the reference (NaN counts as outside).
    unsigned long long count_wrong_rows(std::int64_t m, std::int64_t n);
};

struct Candidate {
    VersatileConfig config;
    double ms = 0;  // median, cold L2
};

// Every candidate the tuner tries at m×n: pruned by versatile_invalid, widest vector first.
std::vector<VersatileConfig> candidate_configs(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                                               int sm_count);

// Verifies each candidate once, times it (one cold run first; a candidate 1.5 times slower than
// the best so far stops there), and returns the fastest. Throws if any candidate is wrong.
template <class T>
Candidate search_best(DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                      std::int64_t n, int reps);

// Median time of one configuration, and of cuBLAS, cold L2, after verifying the output.
template <class T>
double time_config(DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m, std::int64_t n,
                   const VersatileConfig& c, int reps, bool verify = true);
template <class T>
double time_cublas(DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m, std::int64_t n,
                   int reps);
