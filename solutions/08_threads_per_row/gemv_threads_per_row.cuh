#pragma once

#include <cstdint>

#include "device.hpp"
#include "problem.hpp"

// Step 08: several threads per row of column-major A (Sørensen 3.2). A 2-D grid of
// (GRIDSIZE_m, GRIDSIZE_n) blocks of BLOCKSIZE threads: block (bx, by) owns BLOCKSIZE rows and
// WORKSIZE_n chunks of BLOCKSIZE columns, so each thread sums only part of its row. The parts of
// a row, one per block column, are combined either with atomicAdd into a zeroed y (the paper), or
// written to an m x GRIDSIZE_n workspace that a second kernel adds up in a fixed order (Bainville):
// deterministic, at the price of a second pass.
//
// GRIDSIZE_n is capped at grid.y's limit (65535); past it, block column by also takes the column
// ranges by + 65535, by + 2*65535, ... (the grid folds), so every shape is taken.
// Indices are 64-bit: any matrix that fits in memory is addressed.

enum class Combine { atomic, two_pass };

constexpr unsigned kMaxGridY = 65535;  // CUDA's limit on grid.y

template <class T>
gemv::Launch gemv_threads_per_row_launch(std::int64_t m, std::int64_t n, int block_size, int worksize_n,
                                         Combine combine);

// Zeroes y (atomicAdd adds to what is there), then one launch: the whole product, timed together.
template <class T>
void gemv_threads_per_row_atomic(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, int worksize_n,
                                 const gemv::Launch& launch, cudaStream_t stream);

// Elements of the two-pass workspace: m x grid.y partial sums, column-major.
std::int64_t gemv_threads_per_row_workspace(std::int64_t m, const gemv::Launch& launch);

// Pass 1 writes every partial sum to the workspace, pass 2 adds each row's partials in column order.
template <class T>
void gemv_threads_per_row_two_pass(const T* A, const T* x, T* y, T* partial, std::int64_t m, std::int64_t n,
                                   int worksize_n, const gemv::Launch& launch, cudaStream_t stream);

// What the product loads and stores: A once, x once per block row of the grid (shared memory),
// and for y m + 2 m grid.y: the zeroing plus m x grid.y atomicAdds (each a load and a store), or
// the workspace stored and loaded once plus y stored once.
gemv::Traffic gemv_threads_per_row_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& launch);
