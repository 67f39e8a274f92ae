#include "gemv_naive.cuh"
#include "limits.hpp"

// BEGIN EXCERPT kernel
// One thread per row: thread `row` walks row `row` of A from left to right.
template <class T>
__global__ void gemv_naive_row_major(const T* A, const T* x, T* y, int m, int n) {
    // BEGIN SOLUTION give each thread one row of y, found from its block and thread index; the last block runs past m
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;  // the last block may run past the end of y
    T sum = 0;
    for (int j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
    y[row] = sum;
    // END SOLUTION
}
// END EXCERPT kernel

// BEGIN EXCERPT launch
template <class T>
gemv::Launch gemv_naive_launch(std::int64_t m, std::int64_t n, int block_size) {
    // row * n + j is an int: refuse what it cannot index instead of wrapping around.
    gemv::require_int32_indexing(static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n), "step 03's kernel");
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(gemv::div_up(m, block_size)));
    l.block = dim3(block_size);
    l.kernel = reinterpret_cast<const void*>(&gemv_naive_row_major<T>);
    return l;
}
// END EXCERPT launch

template <class T>
void gemv_naive(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                cudaStream_t stream) {
    gemv_naive_row_major<T><<<l.grid, l.block, 0, stream>>>(A, x, y, static_cast<int>(m), static_cast<int>(n));
    GEMV_CUDA_CHECK_LAUNCH();
}

template gemv::Launch gemv_naive_launch<float>(std::int64_t, std::int64_t, int);
template gemv::Launch gemv_naive_launch<double>(std::int64_t, std::int64_t, int);
template void gemv_naive<float>(const float*, const float*, float*, std::int64_t, std::int64_t, const gemv::Launch&,
                                cudaStream_t);
template void gemv_naive<double>(const double*, const double*, double*, std::int64_t, std::int64_t, const gemv::Launch&,
                                 cudaStream_t);
