#include <climits>
#include <string>

#include "errors.hpp"
#include "gemv_threads_cols.cuh"
#include "shared_memory.cuh"

namespace {

// Thread t works on row t % rows and, in each chunk of x, on columns lane, lane + lanes, ... The
// block owns BLOCKSIZE * WORKSIZE_n columns (and those gridDim.y spans further on when the grid
// folds), taken one BLOCKSIZE chunk of x at a time. The threads past lanes * rows have no row: they
// only help load x. Loop bounds depend on the block alone, so every thread meets every barrier.
// BEGIN EXCERPT kernel
template <class T>
__global__ void gemv_threads_along_columns(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, int rows,
                                           int lanes, int worksize_n) {
    const int t = threadIdx.x, block_size = blockDim.x;
    const int lane = t / rows;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * rows + t % rows;
    const bool working = lane < lanes && row < m;
    const std::int64_t span = static_cast<std::int64_t>(block_size) * worksize_n;
    T* chunk = gemv::dynamic_shared<T>();  // the block's chunk of x, as in step 05
    T sum = 0;
    for (std::int64_t first = blockIdx.y * span; first < n; first += gridDim.y * span) {
        const std::int64_t last = min(first + span, n);  // the right-most block column may be partial
        for (std::int64_t base = first; base < last; base += block_size) {
            const int width = static_cast<int>(min(static_cast<std::int64_t>(block_size), last - base));
            if (t < width) chunk[t] = x[base + t];
            __syncthreads();  // the chunk is complete before anyone reads it
            // BEGIN SOLUTION working threads: add A(row, base + k) * chunk[k] for k = lane, lane + lanes, ... < width
            if (working)
                for (int k = lane; k < width; k += lanes) sum += A[(base + k) * m + row] * chunk[k];
            // END SOLUTION
            __syncthreads();  // everyone is done with the chunk before the next load overwrites it
        }
    }
    if (working) atomicAdd(&y[row], sum);  // the other lanes and block columns add to y[row] too
}
// END EXCERPT kernel

}  // namespace

// BEGIN EXCERPT lanes
ColumnLanes gemv_threads_cols_lanes(std::int64_t m, int block_size) {
    const int rows = m < block_size ? static_cast<int>(m) : block_size;
    return {rows, block_size / rows};
}
// END EXCERPT lanes

template <class T>
gemv::Launch gemv_threads_cols_launch(std::int64_t m, std::int64_t n, int block_size, int worksize_n) {
    if (block_size < 1 || block_size > 1024)
        throw gemv::UsageError("step 10 takes a BLOCKSIZE of 1 to 1024 threads, not " + std::to_string(block_size));
    if (worksize_n < 1)
        throw gemv::UsageError("step 10 takes a WORKSIZE_n of at least 1 chunk, not " + std::to_string(worksize_n));
    const ColumnLanes c = gemv_threads_cols_lanes(m, block_size);
    const std::int64_t gridsize_m = gemv::div_up(m, c.rows);
    const std::int64_t gridsize_n = gemv::div_up(n, static_cast<std::int64_t>(block_size) * worksize_n);
    if (gridsize_m > INT_MAX)
        throw gemv::UsageError("step 10 cannot take m = " + std::to_string(m) + " rows in BLOCKSIZE " +
                               std::to_string(block_size) + ": its grid.x would pass CUDA's limit of 2^31 - 1 blocks");
    gemv::Launch l;
    // Past grid.y's limit the grid folds: the kernel walks the column ranges with stride gridDim.y.
    l.grid = dim3(static_cast<unsigned>(gridsize_m),
                  static_cast<unsigned>(gridsize_n < kMaxGridYCols ? gridsize_n : kMaxGridYCols));
    l.block = dim3(block_size);
    l.dynamic_shared = static_cast<std::size_t>(block_size) * sizeof(T);  // one chunk of x
    l.kernel = reinterpret_cast<const void*>(&gemv_threads_along_columns<T>);
    return l;
}

template <class T>
void gemv_threads_cols(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, int worksize_n,
                       const gemv::Launch& l, cudaStream_t stream) {
    const ColumnLanes c = gemv_threads_cols_lanes(m, static_cast<int>(l.block.x));
    // BEGIN SOLUTION zero y first (cudaMemsetAsync on the stream): atomicAdd adds to whatever y holds
    GEMV_CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(m) * sizeof(T), stream));
    // END SOLUTION
    gemv_threads_along_columns<T>
        <<<l.grid, l.block, l.dynamic_shared, stream>>>(A, x, y, m, n, c.rows, c.lanes, worksize_n);
    GEMV_CUDA_CHECK_LAUNCH();
}

gemv::Traffic gemv_threads_cols_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& l) {
    const ColumnLanes c = gemv_threads_cols_lanes(m, static_cast<int>(l.block.x));
    const double rows = static_cast<double>(m);
    const double parts = rows * c.lanes * static_cast<double>(l.grid.y);  // one atomicAdd per working thread
    return {rows * static_cast<double>(n), static_cast<double>(n) * static_cast<double>(l.grid.x), rows + 2.0 * parts};
}

#define GEMV_INSTANTIATE(T)                                                                                          \
    template gemv::Launch gemv_threads_cols_launch<T>(std::int64_t, std::int64_t, int, int);                         \
    template void gemv_threads_cols<T>(const T*, const T*, T*, std::int64_t, std::int64_t, int, const gemv::Launch&, \
                                       cudaStream_t);
GEMV_INSTANTIATE(float)
GEMV_INSTANTIATE(double)
