#pragma once

#include <cstdint>

#include "device.hpp"
#include "storage.hpp"

// Step 15: A and x stored in bf16, fp16 or fp8 (e4m3), added up in float, y in float: the decode
// step of a language model, one token's y = W·x. A 16-byte load now carries 16 / sizeof(T)
// elements (8 in bf16 and fp16, 16 in fp8): the same bytes a float4 load moves, twice or four
// times the elements. GEMV stays bound by the bytes of A, so halving them halves the time.

// A warp per row of row-major A: each lane loads 16 bytes of the row and of x at a time, widens
// each element to float and adds the products; the warp's 32 sums are folded with shuffles.
template <class T>
gemv::Launch gemv_warp_per_row_launch(std::int64_t m, int block_size);
template <class T>
void gemv_warp_per_row(const T* A, const T* x, float* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                       cudaStream_t stream);
