// Generated from solutions/05_shared_x/gemv_shared_x.cu by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 05
#include <algorithm>
#include <string>

#include "gemv_shared_x.cuh"
#include "limits.hpp"
#include "shared_memory.cuh"

// The block's chunk of x: BLOCKSIZE elements of dynamic shared memory (sized at launch).
template <class T>
__device__ T* x_chunk() {
    return gemv::dynamic_shared<T>();
}

// BEGIN EXCERPT kernel
// One thread per row of column-major A, x read chunk by chunk into shared memory. Every thread
// of the block, rows past m included, takes part in each load and each barrier: a thread that
// returned early would leave its element of the chunk unloaded and its barrier never reached.
template <class T>
__global__ void gemv_shared_x_col_major(const T* A, const T* x, T* y, int m, int n) {
    const int t = threadIdx.x, block_size = blockDim.x;
    const int row = blockIdx.x * block_size + t;
    T sum = 0;
    // TODO: per chunk of x in x_chunk<T>(): all threads load it, sync, rows < m accumulate, sync
    if (row < m) y[row] = sum;
}
// END EXCERPT kernel

template <class T>
gemv::Launch gemv_shared_x_launch(std::int64_t m, std::int64_t n, int block_size) {
    if (block_size < 1 || block_size > 1024)
        throw gemv::UsageError("step 05 takes 1 to 1024 threads per block, not " + std::to_string(block_size));
    // (base + k) * m + row, the last block's thread index and the last chunk's base + threadIdx.x
    // are ints: refuse what they cannot reach instead of wrapping around.
    const std::int64_t blocks = gemv::div_up(m, block_size);
    const auto padded_m = static_cast<std::uint64_t>(blocks) * static_cast<std::uint64_t>(block_size);
    const auto padded_n =
        static_cast<std::uint64_t>(gemv::div_up(n, block_size)) * static_cast<std::uint64_t>(block_size);
    const auto elements = static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n);
    gemv::require_int32_indexing(std::max({elements, padded_m, padded_n}), "step 05's kernel");
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(blocks));
    l.block = dim3(block_size);
    l.dynamic_shared = static_cast<std::size_t>(block_size) * sizeof(T);  // one chunk of x
    l.kernel = reinterpret_cast<const void*>(&gemv_shared_x_col_major<T>);
    return l;
}

template <class T>
void gemv_shared_x(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                   cudaStream_t stream) {
    gemv_shared_x_col_major<T>
        <<<l.grid, l.block, l.dynamic_shared, stream>>>(A, x, y, static_cast<int>(m), static_cast<int>(n));
    GEMV_CUDA_CHECK_LAUNCH();
}

gemv::Traffic gemv_shared_x_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& l) {
    const double blocks = static_cast<double>(l.grid.x);
    return {static_cast<double>(m) * static_cast<double>(n), static_cast<double>(n) * blocks, static_cast<double>(m)};
}

template gemv::Launch gemv_shared_x_launch<float>(std::int64_t, std::int64_t, int);
template gemv::Launch gemv_shared_x_launch<double>(std::int64_t, std::int64_t, int);
template void gemv_shared_x<float>(const float*, const float*, float*, std::int64_t, std::int64_t, const gemv::Launch&,
                                   cudaStream_t);
template void gemv_shared_x<double>(const double*, const double*, double*, std::int64_t, std::int64_t,
                                    const gemv::Launch&, cudaStream_t);
