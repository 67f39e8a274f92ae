// The GPU tests of steps 16 and 17 (several vectors): the shapes and k they run, and the check
// that every element of Y is right, naming the case.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "device_problem.cuh"
#include "support.hpp"

namespace several_test {

inline const std::vector<int> kVectors = {1, 2, 3, 7, 16, 17, 64, 256};

template <class T>
void require_right(gemv::DeviceProblem<T>& p, const std::function<void()>& run, const std::string& what) {
    p.poison();
    run();
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
    INFO(GEMV_TEST_KERNEL_NOTE);
    INFO(what);
    REQUIRE(p.count_wrong_elements() == 0);
}

// The awkward shapes for every k where they are small; the very tall and very wide ones (10^6
// elements a vector) for a few k, so that the test stays short.
inline std::vector<int> vectors_for(const gemv_test::Dims& d) {
    if (d.m * d.n >= 1000000) return {1, 3, 17};
    return kVectors;
}

template <class T>
std::string what(const gemv_test::Dims& d, gemv::Layout layout, int k, const std::string& kernel) {
    return gemv_test::describe(d, layout, gemv::Storage<T>::name) + ", k " + std::to_string(k) + ", " + kernel;
}

inline int sm_count() {
    int id = 0, sms = 0;
    GEMV_CUDA_CHECK(cudaGetDevice(&id));
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id));
    return sms;
}

inline std::vector<gemv_test::Dims> shapes() {
    auto s = gemv_test::awkward_shapes();
    s.push_back({1000, 4096});  // whole tiles of 64 columns
    s.push_back({129, 4099});   // a block of rows and a bit, a tile of columns and a bit
    s.push_back({260, 1030});   // m a multiple of 4, n of 2 only: 16-byte copies of columns, 4-byte of rows
    s.push_back({264, 2120});   // lines whole (m and n multiples of 8), a chunk of 64 columns cut at the end
    return s;
}

}  // namespace several_test
