// Generated from solutions/06_shared_reduction/gemv_shared_reduction.cu by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 06
#include <algorithm>
#include <string>

#include "gemv_shared_reduction.cuh"
#include "limits.hpp"
#include "shared_memory.cuh"

namespace {

// The block's partial sums: dynamic shared memory, sized at launch.
template <class T>
__device__ T* shared_partials() {
    return gemv::dynamic_shared<T>();
}

// BEGIN EXCERPT tree_sum
// Sums q[0..count) into q[0]; thread k of the group owns q[k]. Every thread of the block must
// call it, with the same count (it holds barriers). count need not be a power of two: the first
// stride is the largest power of two below count, and the guard skips partners past the end.
template <class T>
__device__ void block_tree_sum(T* q, int k, int count) {
    // TODO: stride from the largest power of two < count down to 1: sync, then add q[k + stride] if < count
}
// END EXCERPT tree_sum

// BEGIN EXCERPT reduce
// reduce (the textbook's cudaReduceMV, for any n): block `row` owns row `row`; its threads stride
// over the row, neighbours on neighbouring elements, then meet in shared memory.
template <class T>
__global__ void gemv_reduce_kernel(const T* A, const T* x, T* y, int n) {
    T* q = shared_partials<T>();
    const int row = blockIdx.x;
    T sum = 0;
    for (int j = threadIdx.x; j < n; j += blockDim.x) sum += A[row * n + j] * x[j];
    q[threadIdx.x] = sum;
    // TODO: add the blockDim.x partials with block_tree_sum, then thread 0 stores y[row]
}
// END EXCERPT reduce

// large (the textbook's cudaLargeMV, one group of T rows per block): thread (z, t) of a Z×T block
// works on row blockIdx.x·T + t, columns z, z+Z, ...; each row's Z partials meet in its own
// stretch of shared memory.
template <class T>
__global__ void gemv_large_kernel(const T* A, const T* x, T* y, int m, int n) {
    const int z = threadIdx.x, Z = blockDim.x;
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    T* q = shared_partials<T>() + threadIdx.y * Z;
    T sum = 0;
    // Past the last row a thread has nothing to load, but it stays for the barriers of the sum.
    if (row < m)
        for (int j = z; j < n; j += Z) sum += A[row * n + j] * x[j];
    q[z] = sum;
    // TODO: block_tree_sum of the row's Z partials (every thread calls it); z == 0 stores y[row] if row < m
}

// BEGIN EXCERPT shuffle
// shuffle: the layout of large with Z a power of two ≤ 32, so a row's Z threads are Z
// neighbouring lanes of one warp and add their partials in registers, without shared memory or
// block-wide barriers.
template <class T>
__global__ void gemv_shuffle_kernel(const T* A, const T* x, T* y, int m, int n) {
    const int z = threadIdx.x, Z = blockDim.x;
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    T sum = 0;
    if (row < m)  // threads past the last row still take part in the shuffles
        for (int j = z; j < n; j += Z) sum += A[row * n + j] * x[j];
    // The block's last warp is partial when T·Z is not a multiple of 32: the mask names only the
    // lanes it has (lane 0 of this warp is thread (threadIdx.y·Z + z) & ~31 of the block).
    // TODO: add the Z sums by __shfl_down_sync (mask: this warp's lanes, offset Z/2..1); z == 0 stores y[row].
}
// END EXCERPT shuffle

// BEGIN EXCERPT pass1
// two_pass, pass 1 (Bainville's gemv3): thread s of row `row` sums its slice of the row, columns
// s, s+p, s+2p, ... (on row-major A the p threads of a row then read p neighbouring elements
// together), and writes the partial to column s of the column-major m×p workspace.
template <class T>
__global__ void gemv_two_pass_partials(const T* A, const T* x, T* partial, int m, int n) {
    const int s = threadIdx.x, p = blockDim.x;
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= m) return;  // no barriers here: spare threads may leave
    T sum = 0;
    for (int j = s; j < n; j += p) sum += A[row * n + j] * x[j];
    // TODO: store the partial in column s of the workspace: partial[s * m + row]
}
// END EXCERPT pass1

// BEGIN EXCERPT pass2
// two_pass, pass 2 (Bainville's reduce_rows): one thread per row adds the row's p partials.
// Neighbouring rows are neighbours in every column of the workspace, so these loads coalesce.
template <class T>
__global__ void gemv_two_pass_sum(const T* partial, T* y, int m, int p) {
    // TODO: one thread per row (skip row >= m): y[row] = sum over s < p of partial[s * m + row]
}
// END EXCERPT pass2

// row * n + j is an int, and so is j one stride past the end of a row: refuse what does not fit.
void require_indexing(std::int64_t m, std::int64_t n, int stride, const std::string& kernel) {
    // Each side clamped to 2^31 (already too many): the product cannot wrap around 64 bits.
    const auto u = [](std::int64_t v) { return std::min<std::uint64_t>(static_cast<std::uint64_t>(v), 1ull << 31); };
    gemv::require_int32_indexing(u(m) * u(n) + static_cast<std::uint64_t>(stride), kernel);
}

void require_block(std::int64_t threads, const std::string& what) {
    if (threads < 1 || threads > 1024)
        throw gemv::UsageError(what + " gives " + std::to_string(threads) +
                               " threads per block; a block has 1 to 1024 threads");
}

constexpr int kSumBlock = 256;  // pass 2: one thread per row

}  // namespace

template <class T>
gemv::Launch gemv_reduce_launch(std::int64_t m, std::int64_t n, int block_size) {
    require_block(block_size, "--block-size " + std::to_string(block_size));
    require_indexing(m, n, block_size, "step 06's reduce kernel");
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(m));  // one block per row (m < 2^31 after the check above)
    l.block = dim3(block_size);
    l.dynamic_shared = block_size * sizeof(T);
    l.kernel = reinterpret_cast<const void*>(&gemv_reduce_kernel<T>);
    return l;
}

template <class T>
void gemv_reduce(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                 cudaStream_t stream) {
    (void)m;  // the grid is m blocks
    gemv_reduce_kernel<T><<<l.grid, l.block, l.dynamic_shared, stream>>>(A, x, y, static_cast<int>(n));
    GEMV_CUDA_CHECK_LAUNCH();
}

namespace {

// The block large and shuffle share: T rows (--rows-per-block), Z threads on each (--threads-per-row).
gemv::Launch rows_and_threads_launch(std::int64_t m, std::int64_t n, int rows_per_block, int threads_per_row,
                                     const std::string& kernel) {
    require_block(static_cast<std::int64_t>(rows_per_block) * threads_per_row,
                  "--rows-per-block " + std::to_string(rows_per_block) + " x --threads-per-row " +
                      std::to_string(threads_per_row));
    require_indexing(m, n, threads_per_row, kernel);
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(gemv::div_up(m, rows_per_block)));
    l.block = dim3(threads_per_row, rows_per_block);  // x: the threads of a row, y: the rows
    return l;
}

}  // namespace

template <class T>
gemv::Launch gemv_large_launch(std::int64_t m, std::int64_t n, int rows_per_block, int threads_per_row) {
    gemv::Launch l = rows_and_threads_launch(m, n, rows_per_block, threads_per_row, "step 06's large kernel");
    l.dynamic_shared = static_cast<std::size_t>(rows_per_block) * threads_per_row * sizeof(T);
    l.kernel = reinterpret_cast<const void*>(&gemv_large_kernel<T>);
    return l;
}

template <class T>
void gemv_large(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                cudaStream_t stream) {
    gemv_large_kernel<T>
        <<<l.grid, l.block, l.dynamic_shared, stream>>>(A, x, y, static_cast<int>(m), static_cast<int>(n));
    GEMV_CUDA_CHECK_LAUNCH();
}

template <class T>
gemv::Launch gemv_shuffle_launch(std::int64_t m, std::int64_t n, int rows_per_block, int threads_per_row) {
    // A row's lanes must form an aligned segment of one warp for __shfl_down_sync(..., width Z).
    if (threads_per_row < 1 || threads_per_row > 32 || (threads_per_row & (threads_per_row - 1)) != 0)
        throw gemv::UsageError("the shuffle variant needs --threads-per-row a power of two from 1 to 32, not " +
                               std::to_string(threads_per_row) + " (the large variant takes any)");
    gemv::Launch l = rows_and_threads_launch(m, n, rows_per_block, threads_per_row, "step 06's shuffle kernel");
    l.kernel = reinterpret_cast<const void*>(&gemv_shuffle_kernel<T>);
    return l;
}

template <class T>
void gemv_shuffle(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                  cudaStream_t stream) {
    gemv_shuffle_kernel<T><<<l.grid, l.block, 0, stream>>>(A, x, y, static_cast<int>(m), static_cast<int>(n));
    GEMV_CUDA_CHECK_LAUNCH();
}

std::int64_t gemv_two_pass_workspace(std::int64_t m, int p) {
    return m * p;
}

template <class T>
gemv::Launch gemv_two_pass_launch(std::int64_t m, std::int64_t n, int p) {
    require_block(p, "--p " + std::to_string(p));
    require_indexing(m, n, p, "step 06's two_pass kernel");
    // s * m + row indexes the workspace with ints too.
    gemv::require_int32_indexing(static_cast<std::uint64_t>(gemv_two_pass_workspace(m, p)),
                                 "step 06's two_pass workspace");
    const int rows = std::max(1, kSumBlock / p);  // about 256 threads a block: rows × p
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(gemv::div_up(m, rows)));
    l.block = dim3(p, rows);
    l.kernel = reinterpret_cast<const void*>(&gemv_two_pass_partials<T>);
    return l;
}

template <class T>
void gemv_two_pass(const T* A, const T* x, T* y, T* partial, std::int64_t m, std::int64_t n, int p,
                   const gemv::Launch& l, cudaStream_t stream) {
    gemv_two_pass_partials<T><<<l.grid, l.block, 0, stream>>>(A, x, partial, static_cast<int>(m), static_cast<int>(n));
    GEMV_CUDA_CHECK_LAUNCH();
    // Same stream: pass 2 starts after every partial of pass 1 is written.
    const dim3 grid(static_cast<unsigned>(gemv::div_up(m, kSumBlock)));
    gemv_two_pass_sum<T><<<grid, kSumBlock, 0, stream>>>(partial, y, static_cast<int>(m), p);
    GEMV_CUDA_CHECK_LAUNCH();
}

#define GEMV_STEP06_INSTANTIATE(T)                                                                                   \
    template gemv::Launch gemv_reduce_launch<T>(std::int64_t, std::int64_t, int);                                    \
    template void gemv_reduce<T>(const T*, const T*, T*, std::int64_t, std::int64_t, const gemv::Launch&,            \
                                 cudaStream_t);                                                                      \
    template gemv::Launch gemv_large_launch<T>(std::int64_t, std::int64_t, int, int);                                \
    template void gemv_large<T>(const T*, const T*, T*, std::int64_t, std::int64_t, const gemv::Launch&,             \
                                cudaStream_t);                                                                       \
    template gemv::Launch gemv_shuffle_launch<T>(std::int64_t, std::int64_t, int, int);                              \
    template void gemv_shuffle<T>(const T*, const T*, T*, std::int64_t, std::int64_t, const gemv::Launch&,           \
                                  cudaStream_t);                                                                     \
    template gemv::Launch gemv_two_pass_launch<T>(std::int64_t, std::int64_t, int);                                  \
    template void gemv_two_pass<T>(const T*, const T*, T*, T*, std::int64_t, std::int64_t, int, const gemv::Launch&, \
                                   cudaStream_t);

GEMV_STEP06_INSTANTIATE(float)
GEMV_STEP06_INSTANTIATE(double)
