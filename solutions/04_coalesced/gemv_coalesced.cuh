#pragma once

#include <cstdint>

#include "device.hpp"

// Step 04: one thread per row of column-major A (GRNET coalesced). At column j, thread `row`
// reads A[j*m + row]: the 32 threads of a warp read 32 neighbouring elements, one coalesced load.
template <class T>
gemv::Launch gemv_coalesced_launch(std::int64_t m, std::int64_t n, int block_size);
template <class T>
void gemv_coalesced(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                    cudaStream_t stream);
