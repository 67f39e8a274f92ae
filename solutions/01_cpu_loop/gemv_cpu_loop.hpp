#pragma once

#include <cstdint>

// y = A·x for row-major A (m×n), one row after another, one element at a time.
template <class T>
void gemv_cpu_loop(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n);
