#pragma once

#include <cstdint>

#include "device.hpp"

// Step 03: one thread per row of row-major A (GRNET naive, the textbook's cudaSimpleMV).
// Neighbouring threads read addresses n elements apart, so a warp's 32 loads touch 32 different
// memory sectors: the loads are not coalesced.
template <class T>
gemv::Launch gemv_naive_launch(std::int64_t m, std::int64_t n, int block_size);
template <class T>
void gemv_naive(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                cudaStream_t stream);
