// Row-major A with 2 or 3 columns, read in tiles of whole rows.
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// BEGIN EXCERPT row_tiles
// A row of N = 2 or 3 elements is shorter than a 16-byte load, but V whole rows are N vectors
// that start at a multiple of 16 bytes when the first row is a multiple of V: a thread reads such
// a tile with N aligned loads and stores its V sums as one vector. Each thread takes U tiles, a
// block's worth apart, and loads them all before using any.
template <class T, int V, int U, int N>
__global__ void __launch_bounds__(1024) gemv_row_tiles(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    const std::int64_t tiles = a.m / V, first = std::int64_t(blockIdx.x) * U * blockDim.x + threadIdx.x;
    Acc x[N];
#pragma unroll
    for (int k = 0; k < N; ++k) x[k] = gemv::widen(load_one_cached(a.x + k));
    T v[U][N][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
        if (first + u * blockDim.x < tiles)
#pragma unroll
            for (int r = 0; r < N; ++r) load_streaming<T, V>(a.A + (first + u * blockDim.x) * N * V + r * V, v[u][r]);
#pragma unroll
    for (int u = 0; u < U; ++u) {
        if (first + u * blockDim.x >= tiles) continue;
        Acc out[V] = {};
#pragma unroll
        for (int e = 0; e < N * V; ++e)
            out[e / N] += gemv::widen(v[u][e / V][e % V]) * x[e % N];  // row e / N, column e % N
        store_streaming<Acc, V>(a.y + (first + u * blockDim.x) * V, out);
    }
    if (blockIdx.x == 0 && threadIdx.x < a.m % V) {  // the last m mod V rows, a thread each
        const std::int64_t i = tiles * V + threadIdx.x;
        Acc sum = 0;
#pragma unroll
        for (int k = 0; k < N; ++k) sum += gemv::widen(a.A[i * N + k]) * x[k];
        a.y[i] = sum;
    }
}
// END EXCERPT row_tiles

}  // namespace

template <class T>
const void* row_tiles_kernel(int n, int unroll) {
    return tile_instance_for(n, unroll, [&](auto elements, auto u) -> const void* {
        return reinterpret_cast<const void*>(
            &gemv_row_tiles<T, 16 / sizeof(T), decltype(u)::value, decltype(elements)::value>);
    });
}

#define INSTANCE(T) template const void* row_tiles_kernel<T>(int, int);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
