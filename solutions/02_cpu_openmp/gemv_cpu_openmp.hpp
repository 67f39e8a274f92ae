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
