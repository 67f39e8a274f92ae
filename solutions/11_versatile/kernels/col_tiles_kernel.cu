// Column-major A with 2 or 3 rows, read in tiles of whole columns.
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// BEGIN EXCERPT col_tiles
// A column of M = 2 or 3 elements is shorter than a 16-byte load, but V whole columns are M
// vectors that start at a multiple of 16 bytes when the first column is a multiple of V: a thread
// reads such a tile with M aligned loads, and V elements of x with one, and keeps M sums.
// Tile t: columns t·V to t·V + V - 1, elements t·M·V on; column c's row i is element c·M + i.
template <class T, int V, int M>
__device__ __forceinline__ void load_tile(const GemvArgs<T>& a, std::int64_t t, T (&v)[M][V], T (&xv)[V]) {
#pragma unroll
    for (int r = 0; r < M; ++r) load_streaming<T, V>(a.A + t * M * V + r * V, v[r]);
    load_cached<T, V>(a.x + t * V, xv);
}

template <class T, int V, int M, class Acc>
__device__ __forceinline__ void add_tile(const T (&v)[M][V], const T (&xv)[V], Acc (&acc)[M]) {
#pragma unroll
    for (int c = 0; c < V; ++c)
#pragma unroll
        for (int i = 0; i < M; ++i) acc[i] += gemv::widen(v[(c * M + i) / V][(c * M + i) % V]) * gemv::widen(xv[c]);
}

template <class T, int V, int U, int M>
__global__ void __launch_bounds__(1024) gemv_col_tiles(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    __shared__ Acc block_y[M];
    const std::int64_t tiles = a.n / V, stride = std::int64_t(gridDim.x) * blockDim.x;
    std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    Acc acc[M] = {};
    for (; t + (U - 1) * stride < tiles; t += U * stride) {  // U tiles in flight
        T v[U][M][V], xv[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) load_tile<T, V, M>(a, t + u * stride, v[u], xv[u]);
#pragma unroll
        for (int u = 0; u < U; ++u) add_tile<T, V, M>(v[u], xv[u], acc);
    }
    for (; t < tiles; t += stride) {
        T v[M][V], xv[V];
        load_tile<T, V, M>(a, t, v, xv);
        add_tile<T, V, M>(v, xv, acc);
    }
    if (blockIdx.x == 0 && threadIdx.x < a.n % V) {  // the last n mod V columns, a thread each
        const std::int64_t j = tiles * V + threadIdx.x;
#pragma unroll
        for (int i = 0; i < M; ++i) acc[i] += gemv::widen(a.A[j * M + i]) * gemv::widen(load_one_cached(a.x + j));
    }
    // END EXCERPT col_tiles
    // The block's M sums: shuffles inside each warp, then the warps' sums added in shared memory.
#pragma unroll
    for (int i = 0; i < M; ++i)
        for (int offset = 16; offset >= 1; offset >>= 1) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], offset);
    if (threadIdx.x < M) block_y[threadIdx.x] = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
#pragma unroll
        for (int i = 0; i < M; ++i) atomicAdd(block_y + i, acc[i]);
    __syncthreads();
    add_block_to_y(a, block_y);
}

}  // namespace

template <class T>
const void* col_tiles_kernel(int m, int unroll) {
    return tile_instance_for(m, unroll, [&](auto elements, auto u) -> const void* {
        return reinterpret_cast<const void*>(
            &gemv_col_tiles<T, 16 / sizeof(T), decltype(u)::value, decltype(elements)::value>);
    });
}

#define INSTANCE(T) template const void* col_tiles_kernel<T>(int, int);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
