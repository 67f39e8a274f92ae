// Column-major rows of a few columns (n <= unroll), the tall shapes: a thread per row group would
// have fewer columns than loads it should keep in flight.
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// BEGIN EXCERPT col_short
// Each thread takes U row groups of V rows, a block's worth of rows apart (Sørensen's WORKSIZE_m),
// and loads all U of a column before using any; y, as many bytes as a column of A, is stored a
// vector at a time.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024) gemv_col_short(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    const std::int64_t m = a.m, stride = std::int64_t(blockDim.x) * V;
    const std::int64_t row0 = std::int64_t(blockIdx.x) * U * stride + std::int64_t(threadIdx.x) * V;
    Acc acc[U][V] = {};
    for (std::int64_t j = 0; j < a.n; ++j) {
        const Acc xj = gemv::widen(load_one_cached(a.x + j));
        T v[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (row0 + u * stride < m) {
                load_streaming<T, V>(a.A + j * m + row0 + u * stride, v[u]);
            } else {
#pragma unroll
                for (int k = 0; k < V; ++k) v[u][k] = T{};
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) gemv::add_scaled(acc[u], v[u], xj);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
        if (row0 + u * stride < m) store_streaming<Acc, V>(a.y + row0 + u * stride, acc[u]);  // V divides m
}
// END EXCERPT col_short

}  // namespace

template <class T>
const void* col_short_kernel(int vector, int unroll) {
    return instance_for<T>(vector, unroll, [&](auto v, auto u) -> const void* {
        return reinterpret_cast<const void*>(&gemv_col_short<T, decltype(v)::value, decltype(u)::value>);
    });
}

#define INSTANCE(T) template const void* col_short_kernel<T>(int, int);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
