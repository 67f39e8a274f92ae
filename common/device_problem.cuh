// A problem made and checked on the device: for programs that time many shapes (step 11's tuner
// and benchmark), where filling and checking gigabytes on the host would take longer than
// measuring, and for steps 15 and 16 (run_device_problem_step, gpu_step.hpp), whose formats and k
// vectors the host reference does not take.
// A is one buffer holding the largest problem; an m×n problem in either layout is its first m·n
// elements (flat element e is random_value(seed, 1, e)). X has k columns (`vectors`: step 16's
// right-hand sides, 1 for GEMV), column-major: the problem's X is the first n·k elements of one
// stream, element (j, c) is random_value(seed, 2, c·n + j), so x[j] is random_value(seed, 2, j)
// whatever k. Y is m×k, column-major, in the accumulator's type. The reference is computed in
// double on the device for every column and held to verify()'s bound, error_bound().
// A and X may be stored in a format narrower than float (steps 15 and 16): the reference is
// computed from the stored (rounded) values, so the bound is that of the float sum alone.
// A may carry scales (fp8 as models store it, step 15: scales.hpp), drawn from the seed: the
// reference multiplies each product by its scale, so its sum and its Σ|a·x| (the bound) carry them alike.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "device.hpp"
#include "scales.hpp"
#include "storage.hpp"

namespace gemv {

template <class T>
class DeviceProblem {
public:
    // Room for any m×n with m·n <= max_elems and m, n <= max_dim, k = vectors.
    DeviceProblem(std::int64_t max_elems, std::int64_t max_dim, std::uint64_t seed, int vectors = 1);
    // Room for the one problem of `shape`, made current (use(shape.m, shape.n, shape.layout)).
    DeviceProblem(const Shape& shape, std::uint64_t seed, int vectors = 1);
    // What the second form holds on the device, for require_device_memory: A, X, Y, and two
    // doubles (the reference and its Σ|a·x|) an element of Y.
    static std::uint64_t bytes(const Shape& shape, int vectors = 1);
    T* A() { return A_.data(); }
    T* x() { return x_.data(); }                 // X: vector c of the current problem at x() + c·n
    accumulator_t<T>* y() { return y_.data(); }  // Y: column c at y() + c·m
    int vectors() const { return vectors_; }
    // Makes the leading m×n of A in `layout`, with scales of `mode`, the current problem: draws the scales
    // and computes its reference.
    void use(std::int64_t m, std::int64_t n, Layout layout, Scales mode = Scales::none);
    // The current problem's scales on the device (mode none: no values).
    DeviceScales scales() const { return {scale_mode_, scale_mode_ == Scales::none ? nullptr : scales_.data()}; }
    // Every element of the current problem's Y a NaN, so that an unwritten one fails.
    void poison(cudaStream_t stream = 0);
    // Elements of Y (m·k: every row of every column) outside the bound of the current problem's
    // reference (NaN counts as outside).
    unsigned long long count_wrong_elements();
    // Poisons y, runs once and checks it (std::runtime_error naming `what` and the shape if it is
    // wrong; skipped when verify is false), then the median of `reps` timed runs, cold L2.
    double verified_median_ms(const DeviceFacts& facts, const std::function<void(cudaStream_t)>& run, int warmup,
                              int reps, const std::string& what, bool verify = true);

private:
    struct Room {
        std::int64_t elems, rows, cols;
    };
    DeviceProblem(const Room& room, std::uint64_t seed, int vectors);

    int vectors_;
    std::uint64_t seed_;
    DeviceArray<T> A_, x_;
    DeviceArray<float> scales_;  // grown by use() as the scales need
    DeviceArray<accumulator_t<T>> y_;
    DeviceArray<double> ref_, abs_sum_;
    DeviceArray<unsigned long long> failures_;
    std::int64_t m_ = 0, n_ = 0;
    Scales scale_mode_ = Scales::none;
};

}  // namespace gemv
