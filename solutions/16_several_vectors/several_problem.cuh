#pragma once

#include <cstdint>

#include "device.hpp"
#include "storage.hpp"

// Step 16's problem, made and checked on the GPU as step 15's (common/device_problem.cuh) is, for
// k vectors: A (m×n, flat element e is random_value(seed, 1, e), so vector 0 sees step 15's A) and
// X (n×k column-major, element (j, c) is random_value(seed, 2, c·n + j)) rounded to T; Y m×k in
// float. The reference is computed in double from the stored values, with Σ|a·x| for each element
// of Y, and an element passes within n·eps_float·Σ|a·x| of it (common/verify's error_bound).
template <class T>
class SeveralProblem {
public:
    SeveralProblem(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, std::uint64_t seed);
    const T* A() const { return A_.data(); }
    const T* X() const { return X_.data(); }
    float* Y() { return Y_.data(); }
    // Every element of Y a NaN, so that an unwritten one fails.
    void poison(cudaStream_t s = 0) { Y_.poison(s); }
    // Elements of Y outside the bound (NaN counts as outside).
    unsigned long long count_wrong();
    // The bytes it holds on the device, for require_device_memory: A, X, Y, and two doubles an
    // element of Y.
    static std::uint64_t bytes(std::int64_t m, std::int64_t n, int k);

private:
    std::int64_t m_, n_;
    int k_;
    gemv::DeviceArray<T> A_, X_;
    gemv::DeviceArray<float> Y_;
    gemv::DeviceArray<double> ref_, abs_sum_;
    gemv::DeviceArray<unsigned long long> failures_;
};
