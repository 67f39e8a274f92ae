// Row-major rows read flat: rows 16-byte loads cannot follow (n = 43), and short ones (n = 10).
#include "async_copy.cuh"
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// BEGIN EXCERPT row_flat
// A row 16-byte loads cannot follow, or a short one: a block's rows lie back to back. Copy them
// to shared memory as one flat array of aligned 16-byte pieces, every piece in flight at once:
// cp.async copies global to shared memory without registers, so no thread waits on one load before
// it issues the next. Then the G <= 32 threads of each row add it up from there (dot_shared_row,
// narrow formats 4 bytes at a time), U steps at a time.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024) gemv_row_flat(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    T* tile = gemv::dynamic_shared<T>();  // the block's rows, from the aligned piece they start in
    const int G = a.threads_per_row, rows = blockDim.x / G, r = threadIdx.x / G, g = threadIdx.x % G;
    const std::int64_t n = a.n, row0 = std::int64_t(blockIdx.x) * rows;
    const std::int64_t begin = row0 * n, end = min(a.m, row0 + rows) * n, first = begin / V * V;
    Acc acc = 0;
    // BEGIN SOLUTION copy A[first, end) to the tile in pieces of V (copy16_async), wait; acc = dot_shared_row of row r
    for (std::int64_t e = first + std::int64_t(threadIdx.x) * V; e < end; e += std::int64_t(blockDim.x) * V)
        copy16_async(tile + (e - first), a.A + e, unsigned(min(std::int64_t(V), end - e) * sizeof(T)));
    commit_copies();
    wait_copies<0>();
    __syncthreads();
    const T* row = tile + (begin - first) + std::int64_t(r) * n;  // flat_row_suits: a warp's rows on other banks
    if (row0 + r < a.m) acc = dot_shared_row<T, U>(row, a.x, int(n), g, G);
    // END SOLUTION
    for (int offset = G / 2; offset >= 1; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (g == 0 && row0 + r < a.m) a.y[row0 + r] = acc;
}
// END EXCERPT row_flat

}  // namespace

template <class T>
const void* row_flat_kernel(int vector, int unroll) {
    return instance_for<T>(vector, unroll, [&](auto v, auto u) -> const void* {
        return reinterpret_cast<const void*>(&gemv_row_flat<T, decltype(v)::value, decltype(u)::value>);
    });
}

#define INSTANCE(T) template const void* row_flat_kernel<T>(int, int);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
