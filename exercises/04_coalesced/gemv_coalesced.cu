// Generated from solutions/04_coalesced/gemv_coalesced.cu by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 04
#include <algorithm>
#include <string>

#include "gemv_coalesced.cuh"
#include "limits.hpp"

// BEGIN EXCERPT kernel
// One thread per row, as in step 03; only the layout of A changed. Column j of A is contiguous,
// so while every thread of a warp works on column j, their loads of A fall side by side.
template <class T>
__global__ void gemv_coalesced_col_major(const T* A, const T* x, T* y, int m, int n) {
    // TODO: one row per thread as in step 03, but A is column-major: where is element (row, j)?
}
// END EXCERPT kernel

template <class T>
gemv::Launch gemv_coalesced_launch(std::int64_t m, std::int64_t n, int block_size) {
    if (block_size < 1 || block_size > 1024)
        throw gemv::UsageError("step 04 takes 1 to 1024 threads per block, not " + std::to_string(block_size));
    // j * m + row, and the index of the last block's last thread, are ints: refuse what they
    // cannot reach instead of wrapping around.
    const std::int64_t blocks = gemv::div_up(m, block_size);
    const std::uint64_t reach = std::max(static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n),
                                         static_cast<std::uint64_t>(blocks) * static_cast<std::uint64_t>(block_size));
    gemv::require_int32_indexing(reach, "step 04's kernel");
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(blocks));
    l.block = dim3(block_size);
    l.kernel = reinterpret_cast<const void*>(&gemv_coalesced_col_major<T>);
    return l;
}

template <class T>
void gemv_coalesced(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& l,
                    cudaStream_t stream) {
    gemv_coalesced_col_major<T><<<l.grid, l.block, 0, stream>>>(A, x, y, static_cast<int>(m), static_cast<int>(n));
    GEMV_CUDA_CHECK_LAUNCH();
}

template gemv::Launch gemv_coalesced_launch<float>(std::int64_t, std::int64_t, int);
template gemv::Launch gemv_coalesced_launch<double>(std::int64_t, std::int64_t, int);
template void gemv_coalesced<float>(const float*, const float*, float*, std::int64_t, std::int64_t, const gemv::Launch&,
                                    cudaStream_t);
template void gemv_coalesced<double>(const double*, const double*, double*, std::int64_t, std::int64_t,
                                     const gemv::Launch&, cudaStream_t);
