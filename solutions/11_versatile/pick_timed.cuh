// Step 11: the table's nearest points timed at the shape. A table holds the fastest configuration
// at each mesh point; a shape between the points runs its nearest point's, fitted (fit.cpp), and
// that pick can be well slower than the configuration a neighbouring point holds, or than one a
// step from it. pick_timed times the picks of the few nearest points and the nearest pick's
// neighbours (a step along its threads a row, loads in flight, blocks a row and way of loading; its
// split row in one wave of the blocks its kernel holds) at the problem itself and keeps the
// fastest, as cuBLASLt's callers time the algorithms its heuristic returns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device.hpp"
#include "gemv_versatile.cuh"
#include "resolve.hpp"

namespace gemv {

// Points of the table whose picks are timed, nearest first, and the rounds fastest_in_turns
// (device.hpp says how it times) times them in.
constexpr int kTimedPoints = 4;
constexpr int kTimedRounds = 5;

// resolve()'s configuration where it has no other candidate (the heuristic); else the fastest at
// this problem of resolve_nearest's and the nearest pick split in one wave. The launches write y.
template <class T>
Resolved pick_timed(const std::string& table, const DeviceFacts& device, Layout layout, std::int64_t m, std::int64_t n,
                    const T* A, const T* x, accumulator_t<T>* y) {
    std::vector<Resolved> nearest = resolve_nearest(table, device, precision_of<T>(), layout, m, n, kTimedPoints, true);
    if (nearest.size() == 1) return nearest[0];
    if (const auto one_wave = split_in_one_wave<T>(nearest[0].config, device, layout, m, n)) {
        const auto same = [&](const Resolved& r) { return describe(r.config) == describe(*one_wave); };
        if (std::none_of(nearest.begin(), nearest.end(), same)) {
            Resolved r = nearest[0];
            r.config = *one_wave;
            r.source += ", its row split in one wave of the blocks its kernel holds";
            nearest.push_back(r);
        }
    }
    std::vector<std::function<void(cudaStream_t)>> launches;
    for (const Resolved& r : nearest) {
        const VersatileGemv<T> gemv(r.config, layout, m, n);
        launches.push_back([=](cudaStream_t s) { gemv(A, x, y, s); });
    }
    Resolved fastest = nearest[fastest_in_turns(device, launches, kTimedRounds)];
    fastest.source +=
        " (the fastest at this shape of " + std::to_string(nearest.size()) + " picks of the nearest points)";
    return fastest;
}

}  // namespace gemv
