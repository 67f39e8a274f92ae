#include "gemv_low_precision.cuh"

#include <climits>
#include <cstring>
#include <string>

#include "errors.hpp"

namespace {

// BEGIN EXCERPT kernel
template <class T>
__global__ void gemv_warp_per_row_kernel(const T* A, const T* x, float* y, std::int64_t m, std::int64_t n) {
    constexpr int V = 16 / sizeof(T);  // elements in one 16-byte load: 8 in bf16 and fp16, 16 in fp8
    const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= m) return;  // the whole warp: a row belongs to one warp
    const T* a = A + row * n;
    float acc = 0;  // never T: a bf16 sum of a long row loses every product smaller than its last bit
    // BEGIN SOLUTION add up a[j]·x[j] in float: 16-byte loads of V elements where rows start 16-byte aligned
    if (n % V == 0) {  // every row starts on a multiple of 16 bytes
        for (std::int64_t j = std::int64_t(lane) * V; j < n; j += 32 * V) {
            const uint4 a_bits = __ldcs(reinterpret_cast<const uint4*>(a + j));  // A is read once: evict first
            const uint4 x_bits = __ldg(reinterpret_cast<const uint4*>(x + j));   // x is reused by every row
            T av[V], xv[V];
            memcpy(av, &a_bits, 16);
            memcpy(xv, &x_bits, 16);
#pragma unroll
            for (int k = 0; k < V; ++k) acc += gemv::widen(av[k]) * gemv::widen(xv[k]);
        }
    } else {  // rows start anywhere: an element at a time, still coalesced across the warp
        for (std::int64_t j = lane; j < n; j += 32) acc += gemv::widen(a[j]) * gemv::widen(x[j]);
    }
    // END SOLUTION
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0) y[row] = acc;
}
// END EXCERPT kernel

}  // namespace

template <class T>
gemv::Launch gemv_warp_per_row_launch(std::int64_t m, int block_size) {
    const std::int64_t blocks = gemv::div_up(m, block_size / 32);  // a warp a row
    if (block_size % 32) throw gemv::UsageError("--block-size must be a multiple of 32 (a warp a row)");
    if (blocks > INT_MAX)
        throw gemv::UsageError("step 15 takes at most " + std::to_string(INT_MAX) + " blocks of rows");
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(blocks));
    l.block = dim3(static_cast<unsigned>(block_size));
    l.kernel = reinterpret_cast<const void*>(&gemv_warp_per_row_kernel<T>);
    return l;
}

template <class T>
void gemv_warp_per_row(const T* A, const T* x, float* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                       cudaStream_t stream) {
    gemv_warp_per_row_kernel<T><<<l.grid, l.block, 0, stream>>>(A, x, y, m, n);
    GEMV_CUDA_CHECK_LAUNCH();
}

#define GEMV_STEP15_INSTANCE(T)                                                                                     \
    template gemv::Launch gemv_warp_per_row_launch<T>(std::int64_t, int);                                           \
    template void gemv_warp_per_row<T>(const T*, const T*, float*, std::int64_t, std::int64_t, const gemv::Launch&, \
                                       cudaStream_t);
GEMV_STEP15_INSTANCE(__nv_bfloat16)
GEMV_STEP15_INSTANCE(__half)
GEMV_STEP15_INSTANCE(__nv_fp8_e4m3)
