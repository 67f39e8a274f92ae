#pragma once

#include <cstdint>

#include "device.hpp"
#include "scales.hpp"
#include "storage.hpp"

// Step 15: A and x stored in bf16, fp16 or fp8 (e4m3), added up in float, y in float: the decode
// step of a language model, one token's y = W·x. A 16-byte load now carries 16 / sizeof(T)
// elements (8 in bf16 and fp16, 16 in fp8): the same bytes a float4 load moves, twice or four
// times the elements. GEMV stays bound by the bytes of A, so halving them halves the time.
// fp8 weights carry scales (scales.hpp): per tensor or per row, the kernel multiplies a row's sum once; per block
// of 128 columns, each lane's 16 elements lie in one block and take its scale.

// A warp per row of row-major A: each lane loads 16 bytes of the row and of x at a time, widens
// each element to float and adds the products; the warp's 32 sums are folded with shuffles.
// Scales other than none are fp8's (UsageError for bf16 and fp16); the launch is made for their mode.
template <class T>
gemv::Launch gemv_warp_per_row_launch(std::int64_t m, int block_size, gemv::Scales scales = gemv::Scales::none);
template <class T>
void gemv_warp_per_row(const T* A, const T* x, float* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                       cudaStream_t stream, const gemv::DeviceScales& scales = {});
// A once, x once a row, y once, and each row's scales: the tensor's one, the row's, or its ceil(n/128).
gemv::Traffic gemv_warp_per_row_traffic(std::int64_t m, std::int64_t n, gemv::Scales scales);
