#include "gemv_cpu_openmp.hpp"

template <class T>
void gemv_omp_dynamic(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // BEGIN SOLUTION split the rows over threads with schedule(dynamic); vectorise each row's sum
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t i = 0; i < m; ++i) {
        T sum = 0;
        // simd: the sum is split over vector lanes; any order is within the verifier's bound.
#pragma omp simd reduction(+ : sum)
        for (std::int64_t j = 0; j < n; ++j) sum += A[i * n + j] * x[j];
        y[i] = sum;
    }
    // END SOLUTION
}

template <class T>
void gemv_omp_static(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // BEGIN SOLUTION the same loop with schedule(static): each thread keeps the rows it first touched
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
        T sum = 0;
#pragma omp simd reduction(+ : sum)
        for (std::int64_t j = 0; j < n; ++j) sum += A[i * n + j] * x[j];
        y[i] = sum;
    }
    // END SOLUTION
}

template void gemv_omp_dynamic<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_dynamic<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
template void gemv_omp_static<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_static<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
