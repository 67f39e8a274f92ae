// Generated from solutions/01_cpu_loop/gemv_cpu_loop.cpp by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 01
#include "gemv_cpu_loop.hpp"

// BEGIN EXCERPT loop
template <class T>
void gemv_cpu_loop(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // TODO: for every row i, y[i] = row i of A (row-major, n a row) times x, summed in T
}
// END EXCERPT loop

template void gemv_cpu_loop<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_cpu_loop<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
