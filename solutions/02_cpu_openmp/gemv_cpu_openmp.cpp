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

template <class T>
void gemv_omp_static_4rows(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // BEGIN SOLUTION rows in blocks of four with schedule(static): four sums, x[j] loaded once for all four
    const std::int64_t blocks = (m + 3) / 4;
#pragma omp parallel for schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
        const std::int64_t i = 4 * b;
        if (i + 4 <= m) {
            const T *a0 = A + i * n, *a1 = a0 + n, *a2 = a1 + n, *a3 = a2 + n;
            T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
            for (std::int64_t j = 0; j < n; ++j) {
                const T xj = x[j];
                s0 += a0[j] * xj;
                s1 += a1[j] * xj;
                s2 += a2[j] * xj;
                s3 += a3[j] * xj;
            }
            y[i] = s0;
            y[i + 1] = s1;
            y[i + 2] = s2;
            y[i + 3] = s3;
        } else {
            for (std::int64_t r = i; r < m; ++r) {  // the last one to three rows
                T sum = 0;
#pragma omp simd reduction(+ : sum)
                for (std::int64_t j = 0; j < n; ++j) sum += A[r * n + j] * x[j];
                y[r] = sum;
            }
        }
    }
    // END SOLUTION
}

template void gemv_omp_dynamic<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_dynamic<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
template void gemv_omp_static<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_static<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
template void gemv_omp_static_4rows<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_static_4rows<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
