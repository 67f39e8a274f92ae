// Generated from solutions/02_cpu_openmp/gemv_cpu_openmp.cpp by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 02
#include "gemv_cpu_openmp.hpp"

template <class T>
void gemv_omp_dynamic(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // TODO: split the rows over threads with schedule(dynamic); vectorise each row's sum
}

template <class T>
void gemv_omp_static(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // TODO: the same loop with schedule(static): each thread keeps the rows it first touched
}

template <class T>
void gemv_omp_static_4rows(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    // TODO: rows in blocks of four with schedule(static): four sums, x[j] loaded once for all four
}

template void gemv_omp_dynamic<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_dynamic<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
template void gemv_omp_static<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_static<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
template void gemv_omp_static_4rows<float>(const float*, const float*, float*, std::int64_t, std::int64_t);
template void gemv_omp_static_4rows<double>(const double*, const double*, double*, std::int64_t, std::int64_t);
