// Generated from solutions/09_rows_per_thread/gemv_rows_per_thread.cuh by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.
#pragma once

#include <cstdint>

#include "device.hpp"
#include "problem.hpp"

// Step 09: several rows per thread of column-major A (Sørensen 3.3), for very tall matrices. Each
// thread of a block of BLOCKSIZE sums WORKSIZE_m rows, BLOCKSIZE rows apart, so at each column the
// block still reads BLOCKSIZE neighbouring elements per row step (coalesced) and one read of x
// from shared memory serves WORKSIZE_m rows. A 1-D grid of
// GRIDSIZE_m = ceil(m / (BLOCKSIZE * WORKSIZE_m)) blocks; 64-bit indices.

constexpr int kMaxWorksizeM = 8;  // the kernel is a template on WORKSIZE_m: 1 .. 8 are compiled

template <class T>
gemv::Launch gemv_rows_per_thread_launch(std::int64_t m, std::int64_t n, int block_size, int worksize_m);
template <class T>
void gemv_rows_per_thread(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, int worksize_m,
                          const gemv::Launch& launch, cudaStream_t stream);

// What the kernel loads and stores: A once, x once per block (fewer blocks than step 05 by a
// factor WORKSIZE_m), y once.
gemv::Traffic gemv_rows_per_thread_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& launch);
