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
#include <optional>
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

// A pick whose row is split in place, with as many blocks a row as one wave of its kernel holds,
// added up by the last block (atomic's memset of y first is a launch of its own). The tuner's and
// the fit's waves count the blocks an SM holds at full occupancy, rounded to whole row blocks: a
// kernel whose registers hold fewer, or a grid rounded past a wave, leaves a last wave part empty
// (H200, bf16 14336 x 4096 column-major, 45 registers: the pick's 19 blocks a row of 128 threads
// run in 1.6 waves, 34.3 µs; 9 a row of 512 threads, one wave, 32.3 µs;
// slides/data/step11/h200_one_wave_1555957058.csv). None where the row is not split, or a wave
// holds no more than one block a row.
template <class T>
std::optional<Resolved> split_in_one_wave(const Resolved& pick, const DeviceFacts& device, Layout layout,
                                          std::int64_t m, std::int64_t n) {
    if (!in_place(pick.config) || pick.config.blocks_per_row < 2) return std::nullopt;
    const VersatilePlan plan = VersatileGemv<T>(pick.config, layout, m, n).plan();
    // The col and row kernels split a row: their grid is row blocks by blocks a row.
    if (plan.family != Family::col && plan.family != Family::row) return std::nullopt;
    const Launch& launch = plan.launch;
    const std::int64_t wave = std::int64_t(occupancy_of(launch, device).blocks_per_sm) * device.sm_count;
    Resolved r = pick;
    r.config.blocks_per_row = std::min<std::int64_t>(wave / launch.grid.x, 65535);
    r.config.combine = Combine::atomic_last;
    if (r.config.blocks_per_row < 2 || r.config.blocks_per_row == pick.config.blocks_per_row ||
        !versatile_invalid(r.config, kernel_layout(layout, m, n), m, n, sizeof(T)).empty())
        return std::nullopt;
    r.source += ", its row split in one wave of the blocks its kernel holds";
    return r;
}

// resolve()'s configuration where it has no other candidate (the heuristic); else the fastest at
// this problem of resolve_nearest's and the nearest pick split in one wave. The launches write y.
template <class T>
Resolved pick_timed(const std::string& table, const DeviceFacts& device, Layout layout, std::int64_t m, std::int64_t n,
                    const T* A, const T* x, accumulator_t<T>* y) {
    std::vector<Resolved> nearest = resolve_nearest(table, device, precision_of<T>(), layout, m, n, kTimedPoints, true);
    if (nearest.size() == 1) return nearest[0];
    const auto one_wave = split_in_one_wave<T>(nearest[0], device, layout, m, n);
    const auto same = [&](const Resolved& r) { return describe(r.config) == describe(one_wave->config); };
    if (one_wave && std::none_of(nearest.begin(), nearest.end(), same)) nearest.push_back(*one_wave);
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
