#include "gemv_cpu_loop.hpp"

// BEGIN EXCERPT loop
template <class T>
void gemv_cpu_loop(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // BEGIN SOLUTION for every row i, y[i] = row i of A (row-major, n a row) times x, summed in T
    for (std::int64_t i = 0; i < m; ++i) {
        // One accumulator per row, in the kernel's own precision: the rounding a student's
        // result is checked against (n·eps·Σ|a_ij·x_j|) allows for exactly this.
        T sum = 0;
        for (std::int64_t j = 0; j < n; ++j) sum += A[i * n + j] * x[j];
        y[i] = sum;
    }
    // END SOLUTION
}
// END EXCERPT loop

template void gemv_cpu_loop<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_cpu_loop<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
