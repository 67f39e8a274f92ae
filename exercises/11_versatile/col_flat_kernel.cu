// Generated from solutions/11_versatile/col_flat_kernel.cu by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 11
// Column-major A with few rows, read flat: its columns lie back to back, so A is one array that
// V aligned elements a load can follow whatever m is.
#include "versatile_device.cuh"
#include "versatile_kernels.cuh"

namespace {

// The block's sums of all m rows, in shared memory, to y: stored (a grid of one block), added
// atomically into y (zeroed first), or added atomically into a.partial, which the last block to
// finish moves to y and zeroes for the next launch (one launch, no memset).
template <class T>
__device__ void add_block_to_y(const GemvArgs<T>& a, const T* block_y) {
    const std::int64_t m = a.m;
    if (a.combine == Combine::store) {
        for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) a.y[i] = block_y[i];
        return;
    }
    if (a.combine == Combine::atomic) {
        for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) atomicAdd(a.y + i, block_y[i]);
        return;
    }
    for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) atomicAdd(a.partial + i, block_y[i]);
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(a.arrived, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) {
        a.y[i] = __ldcg(a.partial + i);
        a.partial[i] = 0;
    }
    if (threadIdx.x == 0) *a.arrived = 0;
}

// BEGIN EXCERPT col_flat
// The grid's stride S = gridDim.x · blockDim.x · V is a multiple of m: a thread meets the same V
// rows, (e + k) mod m, at every step and keeps their sums in registers, while its columns,
// (e + k) / m, move on by S / m.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024) gemv_col_flat(const GemvArgs<T> a) {
    T* block_y = gemv::dynamic_shared<T>();  // the block's sum per row
    const std::int64_t m = a.m;
    for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) block_y[i] = 0;
    const std::int64_t total = m * a.n, stride = std::int64_t(gridDim.x) * blockDim.x * V, col_step = stride / m;
    std::int64_t e = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * V;
    std::int64_t col[V];
    T acc[V] = {};
    // TODO: walk e, e + S, ...: acc[k] += A[e + k] * x[col[k]], col[k] = (e + k) / m moving by S / m a step
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

template const void* col_flat_kernel<float>(int, int);
template const void* col_flat_kernel<double>(int, int);
