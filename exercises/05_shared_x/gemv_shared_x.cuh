// Generated from solutions/05_shared_x/gemv_shared_x.cuh by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.
#pragma once

#include <cstdint>

#include "device.hpp"
#include "problem.hpp"

// Step 05: one thread per row of column-major A, with x staged through shared memory
// (Sørensen 3.1, GRNET shmem). The threads of a block load x in chunks of BLOCKSIZE (their own
// count) together, one coalesced load per chunk, and every thread then reads the chunk from
// shared memory: x comes from global memory once per block instead of once per row.
template <class T>
gemv::Launch gemv_shared_x_launch(std::int64_t m, std::int64_t n, int block_size);
template <class T>
void gemv_shared_x(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, const gemv::Launch& launch,
                   cudaStream_t stream);

// What the kernel loads and stores: A once, x once per block, y once.
gemv::Traffic gemv_shared_x_traffic(std::int64_t m, std::int64_t n, const gemv::Launch& launch);
