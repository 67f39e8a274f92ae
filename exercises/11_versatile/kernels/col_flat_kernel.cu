// Generated from solutions/11_versatile/kernels/col_flat_kernel.cu by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 11
// Column-major A with few rows, read flat: its columns lie back to back, so A is one array that
// V aligned elements a load can follow whatever m is.
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// BEGIN EXCERPT col_flat
// The grid's stride S = gridDim.x · blockDim.x · V is a multiple of m: a thread meets the same V
// rows, (e + k) mod m, at every step and keeps their sums in registers, while its columns,
// (e + k) / m, move on by S / m.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024) gemv_col_flat(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    Acc* block_y = gemv::dynamic_shared<Acc>();  // the block's sum per row
    const std::int64_t m = a.m;
    for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) block_y[i] = 0;
    const std::int64_t total = m * a.n, stride = std::int64_t(gridDim.x) * blockDim.x * V, col_step = stride / m;
    std::int64_t e = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * V;
    std::int64_t col[V];
    Acc acc[V] = {};
    // TODO: walk e, e + stride, ...: acc[k] += A[e + k] * x[col[k]], keeping col[k] = (e + k) / m as e moves.
    __syncthreads();  // block_y is zeroed
    const std::int64_t first_row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * V % m;
#pragma unroll
    for (int k = 0; k < V; ++k) atomicAdd(block_y + (first_row + k) % m, acc[k]);
    __syncthreads();
    add_block_to_y(a, block_y);
}
// END EXCERPT col_flat

}  // namespace

template <class T>
const void* col_flat_kernel(int vector, int unroll) {
    return instance_for<T>(vector, unroll, [&](auto v, auto u) -> const void* {
        return reinterpret_cast<const void*>(&gemv_col_flat<T, decltype(v)::value, decltype(u)::value>);
    });
}

#define INSTANCE(T) template const void* col_flat_kernel<T>(int, int);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
