// What step 11's tuner and benchmark share: the verified, cold-L2 timing of one configuration, and
// the search for the fastest of the candidates at one shape (gemv::candidate_configs).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "device_problem.cuh"
#include "gemv_versatile.cuh"

struct Candidate {
    gemv::VersatileConfig config;
    double ms = 0;  // median, cold L2
};

// The median time of one configuration on the problem's current shape, verified first.
template <class T>
double time_config(gemv::DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                   std::int64_t n, const gemv::VersatileConfig& c, int reps, bool verify = true);

// Verifies each candidate once, times it (one cold run first; a candidate 1.15 times slower than
// the best so far stops there), and returns the fastest. Throws if any candidate is wrong. With
// by_loads, also the fastest of each way of loading (a candidate stopped early is not timed, so
// a way of loading whose every candidate stopped there is missing).
template <class T>
Candidate search_best(gemv::DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                      std::int64_t n, int reps, std::map<gemv::Loads, Candidate>* by_loads = nullptr);
