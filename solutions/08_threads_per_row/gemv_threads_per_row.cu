#include <climits>
#include <string>

#include "errors.hpp"
#include "gemv_threads_per_row.cuh"
#include "shared_memory.cuh"

namespace {

// This thread's part of row `row`: the block owns span = BLOCKSIZE * WORKSIZE_n columns starting
// at blockIdx.y * span (and, when the grid folds, those gridDim.y spans further on, and so on).
// x comes through shared memory (gemv::dynamic_shared<T>(), BLOCKSIZE elements) one chunk at a
// time, as in step 05. The loop bounds depend on the block alone, so every thread, rows past m
// included, meets every barrier.
// BEGIN EXCERPT partial
template <class T>
__device__ T partial_row_sum(const T* A, const T* x, std::int64_t m, std::int64_t n, int worksize_n) {
    T sum = 0;
    // BEGIN SOLUTION add this thread's row of A times x over the block's spans (above) into sum, as step 05 does.
    const int t = threadIdx.x, block_size = blockDim.x;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * block_size + t;
    const std::int64_t span = static_cast<std::int64_t>(block_size) * worksize_n;
    T* chunk = gemv::dynamic_shared<T>();  // the block's chunk of x, as in step 05
    for (std::int64_t first = blockIdx.y * span; first < n; first += gridDim.y * span) {
        const std::int64_t last = min(first + span, n);  // the right-most block column may be partial
        for (std::int64_t base = first; base < last; base += block_size) {
            const int width = static_cast<int>(min(static_cast<std::int64_t>(block_size), last - base));
            if (t < width) chunk[t] = x[base + t];
            __syncthreads();  // the chunk is complete before anyone reads it
            if (row < m)
                for (int k = 0; k < width; ++k) sum += A[(base + k) * m + row] * chunk[k];
            __syncthreads();  // everyone is done with the chunk before the next load overwrites it
        }
    }
    // END SOLUTION
    return sum;
}
// END EXCERPT partial

// BEGIN EXCERPT atomic
// Sørensen 3.2: every block column adds its part of each row straight into y.
template <class T>
__global__ void gemv_threads_per_row_atomic_col_major(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n,
                                                      int worksize_n) {
    const T sum = partial_row_sum(A, x, m, n, worksize_n);
    // BEGIN SOLUTION atomicAdd sum into y at this thread's row, if that row is below m: other blocks add there too.
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row < m) atomicAdd(&y[row], sum);
    // END SOLUTION
}
// END EXCERPT atomic

// Two-pass, pass 1 (Bainville's gemv3): block column blockIdx.y stores its parts of the rows in
// column blockIdx.y of the m x gridDim.y workspace; neighbouring rows are neighbours there.
template <class T>
__global__ void gemv_threads_per_row_partials_col_major(const T* A, const T* x, T* partial, std::int64_t m,
                                                        std::int64_t n, int worksize_n) {
    const T sum = partial_row_sum(A, x, m, n, worksize_n);
    // BEGIN SOLUTION store sum at this thread's row (if below m) of column blockIdx.y of partial, m rows a column.
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row < m) partial[blockIdx.y * m + row] = sum;
    // END SOLUTION
}

// BEGIN EXCERPT second_pass
// Two-pass, pass 2 (Bainville's reduce_rows): one thread per row adds its partials, always in the
// same order, so the same inputs give the same y bit for bit on every run.
template <class T>
__global__ void gemv_sum_partials(const T* partial, T* y, std::int64_t m, int columns) {
    // BEGIN SOLUTION each thread's row (if below m) of y is the sum of its columns c < columns of partial, in order.
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= m) return;
    T sum = 0;
    for (int c = 0; c < columns; ++c) sum += partial[c * m + row];
    y[row] = sum;
    // END SOLUTION
}
// END EXCERPT second_pass

constexpr int kSumBlock = 256;  // pass 2: one thread per row

}  // namespace

template <class T>
gemv::Launch gemv_threads_per_row_launch(std::int64_t m, std::int64_t n, int block_size, int worksize_n,
                                         Combine combine) {
    if (block_size < 1 || block_size > 1024)
        throw gemv::UsageError("step 08 takes a BLOCKSIZE of 1 to 1024 threads, not " + std::to_string(block_size));
    if (worksize_n < 1)
        throw gemv::UsageError("step 08 takes a WORKSIZE_n of at least 1 chunk, not " + std::to_string(worksize_n));
    const std::int64_t gridsize_m = gemv::div_up(m, block_size);
    const std::int64_t gridsize_n = gemv::div_up(n, static_cast<std::int64_t>(block_size) * worksize_n);
    if (gridsize_m > INT_MAX || (combine == Combine::two_pass && gemv::div_up(m, kSumBlock) > INT_MAX))
        throw gemv::UsageError("step 08 cannot take m = " + std::to_string(m) + " rows in BLOCKSIZE " +
                               std::to_string(block_size) + ": its grid.x would pass CUDA's limit of 2^31 - 1 blocks");
    gemv::Launch l;
    // Past grid.y's limit the grid folds: the kernel walks the column ranges with stride gridDim.y.
    l.grid =
        dim3(static_cast<unsigned>(gridsize_m), static_cast<unsigned>(gridsize_n < kMaxGridY ? gridsize_n : kMaxGridY));
    l.block = dim3(block_size);
    l.dynamic_shared = static_cast<std::size_t>(block_size) * sizeof(T);  // one chunk of x
    l.kernel = combine == Combine::atomic ? reinterpret_cast<const void*>(&gemv_threads_per_row_atomic_col_major<T>)
                                          : reinterpret_cast<const void*>(&gemv_threads_per_row_partials_col_major<T>);
    return l;
}

template <class T>
void gemv_threads_per_row_atomic(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, int worksize_n,
                                 const gemv::Launch& l, cudaStream_t stream) {
    // BEGIN SOLUTION zero y first (cudaMemsetAsync on the stream): atomicAdd adds to whatever y holds
    GEMV_CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(m) * sizeof(T), stream));
    // END SOLUTION
    gemv_threads_per_row_atomic_col_major<T><<<l.grid, l.block, l.dynamic_shared, stream>>>(A, x, y, m, n, worksize_n);
    GEMV_CUDA_CHECK_LAUNCH();
}

std::int64_t gemv_threads_per_row_workspace(std::int64_t m, const gemv::Launch& l) {
    return m * static_cast<std::int64_t>(l.grid.y);
}

template <class T>
void gemv_threads_per_row_two_pass(const T* A, const T* x, T* y, T* partial, std::int64_t m, std::int64_t n,
                                   int worksize_n, const gemv::Launch& l, cudaStream_t stream) {
    gemv_threads_per_row_partials_col_major<T>
        <<<l.grid, l.block, l.dynamic_shared, stream>>>(A, x, partial, m, n, worksize_n);
    GEMV_CUDA_CHECK_LAUNCH();
    const auto sum_blocks = static_cast<unsigned>(gemv::div_up(m, kSumBlock));
    gemv_sum_partials<T><<<sum_blocks, kSumBlock, 0, stream>>>(partial, y, m, static_cast<int>(l.grid.y));
    GEMV_CUDA_CHECK_LAUNCH();
}

gemv::Traffic gemv_threads_per_row_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& l) {
    const double rows = static_cast<double>(m), parts = rows * static_cast<double>(l.grid.y);
    gemv::Traffic t;
    t.a_elems = rows * static_cast<double>(n);
    t.x_elems = static_cast<double>(n) * static_cast<double>(l.grid.x);
    // The same count for both, for different reasons. atomic: y zeroed (m stores), then each part
    // a load and a store of y[row] at the L2. two-pass: each part stored and loaded once, y stored once.
    t.y_elems = rows + 2.0 * parts;
    return t;
}

#define GEMV_INSTANTIATE(T)                                                                                     \
    template gemv::Launch gemv_threads_per_row_launch<T>(std::int64_t, std::int64_t, int, int, Combine);        \
    template void gemv_threads_per_row_atomic<T>(const T*, const T*, T*, std::int64_t, std::int64_t, int,       \
                                                 const gemv::Launch&, cudaStream_t);                            \
    template void gemv_threads_per_row_two_pass<T>(const T*, const T*, T*, T*, std::int64_t, std::int64_t, int, \
                                                   const gemv::Launch&, cudaStream_t);
GEMV_INSTANTIATE(float)
GEMV_INSTANTIATE(double)
