// Generated from solutions/02_cpu_openmp/gemv_cpu_openmp.hpp by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.
#pragma once

#include <cstdint>

// y = A·x for row-major A (m×n) with OpenMP threads over the rows.
// dynamic: rows handed out one at a time as threads come free (GRNET's first version).
template <class T>
void gemv_omp_dynamic(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n);
// static: thread t always takes the same block of rows, the block it first touched when A was
// filled, so its rows sit in its own socket's memory and cache.
template <class T>
void gemv_omp_static(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n);
// static, four rows a pass: each x[j] loaded once serves four rows, and the four sums are four
// independent streams of A for the prefetchers and four independent chains of adds.
template <class T>
void gemv_omp_static_4rows(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n);
