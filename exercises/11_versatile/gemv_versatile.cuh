// Generated from solutions/11_versatile/gemv_versatile.cuh by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.
#pragma once

#include <cstdint>
#include <string>

#include "device.hpp"
#include "problem.hpp"

// Step 11: one kernel per layout whose parameters span Sørensen's designs and Hopper's needs.
//
// Column-major A (Sørensen's layout): a block owns BLOCKSIZE/threads_along * vector rows
// (WORKSIZE_m = vector rows per thread) and a slice of the columns; its threads walk the columns
// (WORKSIZE_n = columns per thread). threads_along = BLOCKSIZE, splits = 1 is 05/09 (one thread per
// row, several rows per thread); splits > 1 is 08 (several threads per row across blocks);
// threads_along < BLOCKSIZE is 10 (threads laid along the columns).
// Row-major A: threads_along threads share each row (1 = one thread per row, 32 = a warp per row,
// BLOCKSIZE = a block per row); splits > 1 cuts the row across blocks.
// Both: 16-byte loads where the shape allows (vector), unroll independent loads in flight, and
// per-block partial sums combined by a warp-shuffle and shared-memory reduction, then stored
// (splits = 1), added atomically into a y zeroed first (splits > 1), or, on Hopper, added inside a
// thread-block cluster of up to 8 blocks through distributed shared memory (one launch, no zeroing,
// the same bits on every run).
// Column-major with few rows, flat: the columns lie back to back, so A is read as one array with
// aligned 16-byte loads whatever m is, and every thread keeps the sums of the same V rows.
// Row-major, flat: a block's rows lie back to back too; it copies them to shared memory with
// aligned 16-byte loads whatever n is, then adds each row up from there.
// BEGIN EXCERPT config
struct VersatileConfig {
    int block = 256;          // BLOCKSIZE: threads per block, a multiple of 32
    int vector = 4;           // elements per load: 1, 2, 4 (float) or 1, 2 (double); 16 bytes at most
    int unroll = 4;           // independent loads a thread issues before it uses them: 1, 2, 4
    int threads_along = 256;  // col: threads along the rows of a block; row: threads sharing a row
    std::int64_t splits = 1;  // blocks sharing each row's sum (grid.y)
    bool cluster = false;     // splits > 1: add in a thread-block cluster (one launch) instead of atomicAdd
    bool flat = false;        // read A as one flat array. col, m <= 4096: splits = blocks in the grid;
                              // row: whole rows copied to shared memory, threads_along <= 32 per row
    std::string describe() const;
};
// END EXCERPT config

// Why a configuration cannot run on an m×n problem, or "" when it can: the one check shared by
// the launcher (which refuses) and the tuner (which skips).
std::string versatile_invalid(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n,
                              std::size_t elem_size);

// Flat mode: the grid must be a multiple of this many blocks, so that its stride covers whole columns.
std::int64_t flat_grid_unit(std::int64_t m, int block, int vector);
constexpr std::int64_t kFlatMaxRows = 4096;  // the block's row sums live in shared memory

// Flat row-major: the shared memory a block's rows take; at most kFlatTileBytes (the default limit).
std::int64_t flat_row_tile_bytes(const VersatileConfig& c, std::int64_t n, std::size_t elem_size);
constexpr std::int64_t kFlatTileBytes = 48 * 1024;

// Blocks along the rows (grid.x) of a configuration that is not column-major flat.
std::int64_t versatile_row_blocks(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n);

// Blocks the GPU holds at once at full occupancy: a grid of a whole number of these waves leaves
// no block to run alone at the end.
std::int64_t blocks_per_wave(int sm_count, int block);

// The widest load (elements, at most 16 bytes) that divides the dimension a layout loads along.
int widest_vector(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size);

// A configuration that is valid for any shape (the fallback when there is no tuning table).
VersatileConfig versatile_heuristic(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size,
                                    int sm_count);

template <class T>
gemv::Launch versatile_launch(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n);

// y = A·x. Zeroes y first when the configuration splits rows across blocks with atomics.
template <class T>
void gemv_versatile(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, gemv::Layout layout,
                    const VersatileConfig& c, const gemv::Launch& launch, cudaStream_t stream);

// What the configuration loads and stores, in elements, for the CGMA report.
gemv::Traffic versatile_traffic(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n);
