// Generated from solutions/06_shared_reduction/gemv_shared_reduction.cuh by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.
#pragma once

#include <cstdint>

#include "device.hpp"

// Step 06: several threads per row of row-major A, their partial sums combined by a reduction
// (the textbook's cudaReduceMV and cudaLargeMV, then the warp shuffle, then Bainville's two
// kernels). The threads of a row walk it together, neighbouring threads on neighbouring
// elements, so every load of A is coalesced; what differs between the variants is where the
// partial sums meet: shared memory, registers of one warp, or global memory.

// reduce: one block per row; block_size threads stride over the row and sum their partials in a
// shared-memory tree. Any block size: the tree is guarded for sizes that are not powers of two.
template <class T>
gemv::Launch gemv_reduce_launch(std::int64_t m, std::int64_t n, int block_size);
template <class T>
void gemv_reduce(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                 cudaStream_t stream);

// large: rows_per_block (T) rows per block, threads_per_row (Z) threads on each, a shared-memory
// tree per row. T·Z ≤ 1024; neither has to be a power of two.
template <class T>
gemv::Launch gemv_large_launch(std::int64_t m, std::int64_t n, int rows_per_block, int threads_per_row);
template <class T>
void gemv_large(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                cudaStream_t stream);

// shuffle: the layout of large, the per-row sum by __shfl_down_sync inside a warp, no shared
// memory. threads_per_row must be a power of two ≤ 32 (UsageError otherwise), so that the
// threads of a row sit in one warp.
template <class T>
gemv::Launch gemv_shuffle_launch(std::int64_t m, std::int64_t n, int rows_per_block, int threads_per_row);
template <class T>
void gemv_shuffle(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                  cudaStream_t stream);

// two_pass (Bainville): p threads per row each write a partial sum to an m×p workspace in global
// memory; a second kernel adds each row's p partials. The launch returned is the first kernel's.
template <class T>
gemv::Launch gemv_two_pass_launch(std::int64_t m, std::int64_t n, int p);
// Elements of the workspace two_pass needs: m·p.
std::int64_t gemv_two_pass_workspace(std::int64_t m, int p);
template <class T>
void gemv_two_pass(const T* A, const T* x, T* y, T* partial, std::int64_t m, std::int64_t n, int p,
                   const gemv::Launch& launch, cudaStream_t stream);
