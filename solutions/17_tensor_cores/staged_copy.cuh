#pragma once

#include <cstdint>

#include "async_copy.cuh"

// The copies of step 17's staged kernels (gemv_tensor_staged.cu, gemv_fma_staged.cu): chunks of A
// and X into shared memory with cp.async, ahead of the multiplies, as a GEMM feeds its tiles.
namespace gemv::staged {

// The copies themselves (cp.async: global to shared memory without registers), as step 11 uses them.
using gemv::commit_copies;
using gemv::copy16_async;
using gemv::wait_copies;

// Elements of E in a 16-byte granule (8 bf16, 4 float). A line in shared memory (a row of a
// row-major chunk, a column of a column-major one, a vector of X) holds the aligned granules that
// cover it: a granule more than the line, since it may start anywhere in its first granule.
template <class E>
constexpr int kGranule = 16 / int(sizeof(E));
template <class E, int length>
constexpr int kPitch = length + kGranule<E>;

// BEGIN EXCERPT staged-copy
// The granule of `base` that starts at element e (a multiple of kGranule), into shared memory; by
// hand at the end of the array, zero past it.
template <class E>
__device__ __forceinline__ void copy_granule(E* to, const E* base, std::int64_t e, std::int64_t total) {
    if (e + kGranule<E> <= total) {
        copy16_async(to, base + e);
        return;
    }
#pragma unroll
    for (int u = 0; u < kGranule<E>; ++u) to[u] = e + u < total ? base[e + u] : static_cast<E>(0.0f);
}

// One chunk: `cols` columns from jc of the `rows` rows from i0, and of the `vectors` vectors from
// v0. Each line (a row or a column of A, a vector of X) is copied as the aligned granules that
// cover it, and starts (first element) mod kGranule elements into them. Consecutive threads take
// consecutive granules, so a warp's copies are contiguous along each line. Lines outside the
// matrix are left as they are: a row past m only sums into rows that are not stored, a column or
// vector past the end is masked by the multiply.
template <class E, bool row, int rows, int cols, int vectors, int threads>
__device__ __forceinline__ void copy_chunk(E* sA, E* sX, const E* A, const E* X, std::int64_t m, std::int64_t n, int k,
                                           std::int64_t ldx, std::int64_t i0, std::int64_t jc, int v0) {
    constexpr int g = kGranule<E>, lines = row ? rows : cols, pitch = kPitch < E, row ? cols : rows > ;
#pragma unroll
    for (int idx = threadIdx.x; idx < lines * (pitch / g); idx += threads) {
        const int l = idx / (pitch / g), q = idx % (pitch / g);
        if (row ? i0 + l >= m : jc + l >= n) continue;
        const std::int64_t first = row ? (i0 + l) * n + jc : (jc + l) * m + i0;
        copy_granule(sA + l * pitch + g * q, A, first / g * g + g * q, m * n);
    }
    constexpr int x_pitch = kPitch<E, cols>;
    for (int idx = threadIdx.x; idx < vectors * (x_pitch / g); idx += threads) {
        const int v = idx / (x_pitch / g), q = idx % (x_pitch / g);
        if (v0 + v >= k) continue;
        const std::int64_t first = std::int64_t(v0 + v) * ldx + jc;
        copy_granule(sX + v * x_pitch + g * q, X, first / g * g + g * q, ldx * k);
    }
}
// END EXCERPT staged-copy

}  // namespace gemv::staged
