#include <climits>
#include <string>

#include "errors.hpp"
#include "gemv_rows_per_thread.cuh"
#include "shared_memory.cuh"

namespace {

// WORKSIZE_m rows per thread: rows first, first + BLOCKSIZE, ..., first + (WORKSIZE_m - 1) * BLOCKSIZE.
// A compile-time WORKSIZE_m keeps the WORKSIZE_m sums in registers (an array indexed by run-time
// values would live in local memory). Every thread, rows past m included, loads x and meets every
// barrier; only the bottom block has rows past m.
// BEGIN EXCERPT kernel
template <class T, int WORKSIZE_m>
__global__ void gemv_rows_per_thread_col_major(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n) {
    const int t = threadIdx.x, block_size = blockDim.x;
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * block_size * WORKSIZE_m + t;
    T* chunk = gemv::dynamic_shared<T>();  // the block's chunk of x, as in step 05
    T sum[WORKSIZE_m];
#pragma unroll
    for (int r = 0; r < WORKSIZE_m; ++r) sum[r] = 0;
    for (std::int64_t base = 0; base < n; base += block_size) {
        const int width = static_cast<int>(min(static_cast<std::int64_t>(block_size), n - base));
        if (t < width) chunk[t] = x[base + t];
        __syncthreads();  // the chunk is complete before anyone reads it
        // BEGIN SOLUTION for k < width: xk = chunk[k]; sum[r] += A(first + r * block_size, base + k) * xk, rows < m
        for (int k = 0; k < width; ++k) {
            const T xk = chunk[k];  // one shared-memory read for WORKSIZE_m rows
            const T* column = A + (base + k) * m;
#pragma unroll
            for (int r = 0; r < WORKSIZE_m; ++r) {
                const std::int64_t row = first + static_cast<std::int64_t>(r) * block_size;
                if (row < m) sum[r] += column[row] * xk;
            }
        }
        // END SOLUTION
        __syncthreads();  // everyone is done with the chunk before the next load overwrites it
    }
#pragma unroll
    for (int r = 0; r < WORKSIZE_m; ++r) {
        const std::int64_t row = first + static_cast<std::int64_t>(r) * block_size;
        if (row < m) y[row] = sum[r];
    }
}
// END EXCERPT kernel

template <class T>
using RowsKernel = void (*)(const T*, const T*, T*, std::int64_t, std::int64_t);

// The run-time WORKSIZE_m picks one of the compiled kernels.
template <class T>
RowsKernel<T> kernel_for(int worksize_m) {
    static const RowsKernel<T> compiled[] = {
        gemv_rows_per_thread_col_major<T, 1>, gemv_rows_per_thread_col_major<T, 2>,
        gemv_rows_per_thread_col_major<T, 3>, gemv_rows_per_thread_col_major<T, 4>,
        gemv_rows_per_thread_col_major<T, 5>, gemv_rows_per_thread_col_major<T, 6>,
        gemv_rows_per_thread_col_major<T, 7>, gemv_rows_per_thread_col_major<T, 8>};
    static_assert(sizeof(compiled) / sizeof(compiled[0]) == kMaxWorksizeM, "one kernel per WORKSIZE_m");
    if (worksize_m < 1 || worksize_m > kMaxWorksizeM)
        throw gemv::UsageError("step 09 takes a WORKSIZE_m of 1 to " + std::to_string(kMaxWorksizeM) + ", not " +
                               std::to_string(worksize_m));
    return compiled[worksize_m - 1];
}

}  // namespace

template <class T>
gemv::Launch gemv_rows_per_thread_launch(std::int64_t m, std::int64_t /* n: every block walks all of x */,
                                         int block_size, int worksize_m) {
    if (block_size < 1 || block_size > 1024)
        throw gemv::UsageError("step 09 takes a BLOCKSIZE of 1 to 1024 threads, not " + std::to_string(block_size));
    gemv::Launch l;
    l.kernel = reinterpret_cast<const void*>(kernel_for<T>(worksize_m));  // refuses WORKSIZE_m out of 1 .. 8
    const std::int64_t gridsize_m = gemv::div_up(m, static_cast<std::int64_t>(block_size) * worksize_m);
    if (gridsize_m > INT_MAX)
        throw gemv::UsageError("step 09 cannot take m = " + std::to_string(m) +
                               " rows: GRIDSIZE_m = " + std::to_string(gridsize_m) +
                               " passes CUDA's grid.x limit of 2^31 - 1 blocks; raise --block-size or --worksize-m");
    l.grid = dim3(static_cast<unsigned>(gridsize_m));
    l.block = dim3(block_size);
    l.dynamic_shared = static_cast<std::size_t>(block_size) * sizeof(T);  // one chunk of x
    return l;
}

template <class T>
void gemv_rows_per_thread(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, int worksize_m,
                          const gemv::Launch& l, cudaStream_t stream) {
    kernel_for<T>(worksize_m)<<<l.grid, l.block, l.dynamic_shared, stream>>>(A, x, y, m, n);
    GEMV_CUDA_CHECK_LAUNCH();
}

gemv::Traffic gemv_rows_per_thread_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& l) {
    return {static_cast<double>(m) * static_cast<double>(n), static_cast<double>(n) * static_cast<double>(l.grid.x),
            static_cast<double>(m)};
}

#define GEMV_INSTANTIATE(T)                                                                        \
    template gemv::Launch gemv_rows_per_thread_launch<T>(std::int64_t, std::int64_t, int, int);    \
    template void gemv_rows_per_thread<T>(const T*, const T*, T*, std::int64_t, std::int64_t, int, \
                                          const gemv::Launch&, cudaStream_t);
GEMV_INSTANTIATE(float)
GEMV_INSTANTIATE(double)
