// Generated from solutions/15_low_precision/gemv_low_precision.cu by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 15
#include "gemv_low_precision.cuh"

#include <climits>
#include <cstring>
#include <string>
#include <type_traits>

#include "errors.hpp"

namespace {

// BEGIN EXCERPT kernel
// BEGIN EXCERPT kernel_head
// At most 32 registers a thread (2 blocks of 1024 an SM), so that an SM holds 64 warps, 64 rows in flight;
// the loop along a row, unrolled twice (#pragma unroll 2), keeps two 16-byte loads in flight a lane.
template <class T, gemv::Scales S>
__global__ void __launch_bounds__(1024, 2)
    gemv_warp_per_row_kernel(const T* A, const T* x, const float* scales, float* y, std::int64_t m, std::int64_t n) {
    constexpr int V = 16 / sizeof(T);  // elements in one 16-byte load: 8 in bf16 and fp16, 16 in fp8
    static_assert(gemv::kScaleBlock % V == 0, "an aligned load of V elements lies in one block of 128 columns");
    const std::int64_t row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= m) return;  // the whole warp: a row belongs to one warp
    const T* a = A + row * n;
    // The scale of column j's block of 128 (a row's ceil(n/128) scales follow one another); 1 in the other modes.
    const float* row_scales = scales + (S == gemv::Scales::block128 ? row * gemv::scale_blocks(n) : 0);
    const auto block_scale = [&](std::int64_t j) {
        return S == gemv::Scales::block128 ? row_scales[j / gemv::kScaleBlock] : 1.0f;
    };
    float acc = 0;  // never T: a bf16 sum of a long row loses every product smaller than its last bit
    // END EXCERPT kernel_head
    // BEGIN EXCERPT kernel_sum
    // TODO: add up block_scale(j)·a[j]·x[j] in float: 16-byte loads of V elements where rows start aligned
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane != 0) return;
    if constexpr (S == gemv::Scales::tensor) acc *= scales[0];  // a scale of the tensor or of the row multiplies
    if constexpr (S == gemv::Scales::row) acc *= scales[row];   // the row's sum once
    y[row] = acc;
}
// END EXCERPT kernel_sum
// END EXCERPT kernel

template <class T>
using Kernel = void (*)(const T*, const T*, const float*, float*, std::int64_t, std::int64_t);

// The kernel of a mode of scales. They are fp8's: bf16 and fp16 weights are stored without.
template <class T>
Kernel<T> kernel_for(gemv::Scales mode) {
    using gemv::Scales;
    if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {
        switch (mode) {
            case Scales::tensor:
                return gemv_warp_per_row_kernel<T, Scales::tensor>;
            case Scales::row:
                return gemv_warp_per_row_kernel<T, Scales::row>;
            case Scales::block128:
                return gemv_warp_per_row_kernel<T, Scales::block128>;
            case Scales::none:
                break;
        }
    } else if (mode != Scales::none) {
        throw gemv::UsageError(std::string("step 15 scales fp8 weights only, not ") + gemv::Storage<T>::name);
    }
    return gemv_warp_per_row_kernel<T, Scales::none>;
}

}  // namespace

template <class T>
gemv::Launch gemv_warp_per_row_launch(std::int64_t m, int block_size, gemv::Scales scales) {
    const std::int64_t blocks = gemv::div_up(m, block_size / 32);  // a warp a row
    if (block_size % 32) throw gemv::UsageError("--block-size must be a multiple of 32 (a warp a row)");
    if (blocks > INT_MAX)
        throw gemv::UsageError("step 15 takes at most " + std::to_string(INT_MAX) + " blocks of rows");
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(blocks));
    l.block = dim3(static_cast<unsigned>(block_size));
    l.kernel = reinterpret_cast<const void*>(kernel_for<T>(scales));
    return l;
}

template <class T>
void gemv_warp_per_row(const T* A, const T* x, float* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                       cudaStream_t stream, const gemv::DeviceScales& scales) {
    if (scales.mode != gemv::Scales::none && !scales.values)
        throw gemv::UsageError(std::string("--scales ") + to_string(scales.mode) + " without the scales' values");
    kernel_for<T>(scales.mode)<<<l.grid, l.block, 0, stream>>>(A, x, scales.values, y, m, n);
    GEMV_CUDA_CHECK_LAUNCH();
}

gemv::Traffic gemv_warp_per_row_traffic(std::int64_t m, std::int64_t n, gemv::Scales scales) {
    gemv::Traffic t = gemv::traffic_x_per_row(m, n);
    // A warp loads its row's scales: the one of the tensor, the row's own, or its ceil(n/128) of blocks.
    t.scale_elems = scales == gemv::Scales::tensor ? double(m) : double(gemv::scale_count(scales, m, n));
    return t;
}

#define GEMV_STEP15_INSTANCE(T)                                                                                     \
    template gemv::Launch gemv_warp_per_row_launch<T>(std::int64_t, int, gemv::Scales);                             \
    template void gemv_warp_per_row<T>(const T*, const T*, float*, std::int64_t, std::int64_t, const gemv::Launch&, \
                                       cudaStream_t, const gemv::DeviceScales&);
GEMV_STEP15_INSTANCE(__nv_bfloat16)
GEMV_STEP15_INSTANCE(__half)
GEMV_STEP15_INSTANCE(__nv_fp8_e4m3)
