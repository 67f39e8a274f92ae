// A problem made and checked on the device, for programs that time many shapes (step 11's tuner
// and benchmark): filling and checking gigabytes on the host would take longer than measuring.
// A is one buffer holding the largest problem; an m×n problem in either layout is its first m·n
// elements (flat element e is random_value(seed, 1, e), x[j] is random_value(seed, 2, j)). The
// reference is computed in double on the device and held to verify()'s bound, error_bound().
// A and x may be stored in a format narrower than float (step 15): the reference is computed from
// the stored (rounded) values, so the bound is that of the float sum alone.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "device.hpp"
#include "storage.hpp"

namespace gemv {

template <class T>
class DeviceProblem {
public:
    // Room for any m×n with m·n <= max_elems and m, n <= max_dim.
    DeviceProblem(std::int64_t max_elems, std::int64_t max_dim, std::uint64_t seed);
    T* A() { return A_.data(); }
    T* x() { return x_.data(); }
    accumulator_t<T>* y() { return y_.data(); }
    // Makes the leading m×n of A in `layout` the current problem: computes its reference.
    void use(std::int64_t m, std::int64_t n, Layout layout);
    // Rows of y outside the bound of the current problem's reference (NaN counts as outside).
    unsigned long long count_wrong_rows();
    // Poisons y, runs once and checks it (std::runtime_error naming `what` and the shape if it is
    // wrong; skipped when verify is false), then the median of `reps` timed runs, cold L2.
    double verified_median_ms(const DeviceFacts& facts, const std::function<void(cudaStream_t)>& run, int warmup,
                              int reps, const std::string& what, bool verify = true);

private:
    DeviceArray<T> A_, x_;
    DeviceArray<accumulator_t<T>> y_;
    DeviceArray<double> ref_, abs_sum_;
    DeviceArray<unsigned long long> failures_;
    std::int64_t m_ = 0, n_ = 0;
};

}  // namespace gemv
