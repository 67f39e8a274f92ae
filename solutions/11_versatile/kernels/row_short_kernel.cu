// Row-major rows short enough for one pass of their G <= 32 threads (G·V >= n), the tall shapes.
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// BEGIN EXCERPT row_short
// Each thread takes U rows, a block's worth of rows apart, and issues all U loads before using
// any, so that bytes stay in flight where a row alone is one load (Sørensen's WORKSIZE_m).
template <class T, int V, int U>
__global__ void __launch_bounds__(1024) gemv_row_short(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    const int G = a.threads_per_row, tid = threadIdx.x, g = tid % G, rows = blockDim.x / G;
    const std::int64_t first = std::int64_t(blockIdx.x) * rows * U + tid / G;
    const std::int64_t j = std::int64_t(g) * V;
    T xv[V] = {}, v[U][V];  // {}: zero in every format
    if (j < a.n) load_cached<T, V>(a.x + j, xv);
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const std::int64_t row = first + std::int64_t(u) * rows;
        if (row < a.m && j < a.n) {
            load_streaming<T, V>(a.A + row * a.n + j, v[u]);
        } else {
#pragma unroll
            for (int k = 0; k < V; ++k) v[u][k] = T{};
        }
    }
    Acc x_wide[V];  // x widened once for the U rows
    gemv::widen_all(xv, x_wide);
#pragma unroll
    for (int u = 0; u < U; ++u) {
        Acc acc = 0;
        gemv::add_products_wide_x(acc, v[u], x_wide);
        for (int offset = G / 2; offset >= 1; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
        const std::int64_t row = first + std::int64_t(u) * rows;
        if (g == 0 && row < a.m) a.y[row] = acc;
    }
}
// END EXCERPT row_short

}  // namespace

template <class T>
const void* row_short_kernel(int vector, int unroll) {
    return instance_for<T>(vector, unroll, [&](auto v, auto u) -> const void* {
        return reinterpret_cast<const void*>(&gemv_row_short<T, decltype(v)::value, decltype(u)::value>);
    });
}

#define INSTANCE(T) template const void* row_short_kernel<T>(int, int);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
