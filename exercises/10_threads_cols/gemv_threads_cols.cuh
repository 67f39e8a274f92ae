// Generated from solutions/10_threads_cols/gemv_threads_cols.cuh by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.
#pragma once

#include <cstdint>

#include "device.hpp"
#include "problem.hpp"

// Step 10: several threads, several columns (Sørensen 3.4), for wide and fat column-major A with
// fewer rows than BLOCKSIZE. One thread per row would leave BLOCKSIZE - m threads of every block
// idle; instead the block's threads are laid along the columns: thread t takes row t % R and
// column lane t / R, where R = min(m, BLOCKSIZE) rows per block and L = BLOCKSIZE / R lanes. The L
// lanes walk neighbouring columns together, so the block reads L·R neighbouring elements of A at
// each step. A 2-D grid (GRIDSIZE_m = ceil(m / R), GRIDSIZE_n = ceil(n / (BLOCKSIZE·WORKSIZE_n)))
// as in step 08; every part of a row, L per block, is added into y with atomicAdd.
//
// For m >= BLOCKSIZE, R = BLOCKSIZE and L = 1: the layout of step 08, so every shape is taken.
// GRIDSIZE_n past grid.y's limit folds as in step 08. 64-bit indices.

constexpr unsigned kMaxGridYCols = 65535;  // CUDA's limit on grid.y

// The layout of a block's threads over the matrix.
struct ColumnLanes {
    int rows;   // R: rows per block, min(m, BLOCKSIZE)
    int lanes;  // L: threads per row in the block, BLOCKSIZE / R
};
ColumnLanes gemv_threads_cols_lanes(std::int64_t m, int block_size);

template <class T>
gemv::Launch gemv_threads_cols_launch(std::int64_t m, std::int64_t n, int block_size, int worksize_n);

// Zeroes y (atomicAdd adds to what is there), then one launch: the whole product, timed together.
template <class T>
void gemv_threads_cols(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, int worksize_n,
                       const gemv::Launch& launch, cudaStream_t stream);

// What the product loads and stores: A once, x once per block row of the grid (shared memory),
// y zeroed, then m·L·grid.y atomicAdds, each a load and a store.
gemv::Traffic gemv_threads_cols_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& launch);
