// Step 11's rules of shape: which configurations can run an m×n problem (the one check the
// launcher, the tuner and the table share), how many blocks and rows a configuration makes there,
// and the three ways a configuration is made for a shape: the heuristic (no table), a tuned one
// fitted to another shape, and the tuner's candidates.
#pragma once

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "config.hpp"
#include "problem.hpp"

namespace gemv {

// Why a configuration cannot run on an m×n problem, or "" when it can: the one check shared by
// the launcher (which refuses), the tuner (which skips) and the table (which rejects an entry).
std::string versatile_invalid(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n,
                              std::size_t elem_size);

// The widest load (elements, at most 16 bytes) that divides the dimension a layout loads along.
int widest_vector(Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size);
inline int widest_vector_of(std::size_t elem_size) {
    return static_cast<int>(16 / elem_size);
}

// The layout the kernels read an m×n matrix in: a 1×n column-major matrix is the same bytes as a
// 1×n row-major one, and an m×1 row-major matrix the same as an m×1 column-major one; each is
// read as the other layout's easy case.
Layout kernel_layout(Layout layout, std::int64_t m, std::int64_t n);

// Staggered column-major loads: the fewest threads along the columns (threads_per_row divides by
// it) for which each thread's columns start at one place in 16 bytes, threads_per_row x m a
// multiple of the vector: 1 where the vector divides m, the vector where m is odd.
inline int staggered_threads_per_row(std::int64_t m, int vector) {
    return vector / static_cast<int>(std::gcd(m, std::int64_t(vector)));
}

// Aligned, realigned or staggered: A read in place, a row group (column-major) or a row's slice at
// a time.
inline bool in_place(const VersatileConfig& c) {
    return c.loads == Loads::aligned || c.loads == Loads::realigned || c.loads == Loads::staggered;
}

// Rows one block covers (column-major flat: all of them) and blocks along the rows (grid.x).
std::int64_t rows_per_block(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n);
std::int64_t row_blocks(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n);

// Rows too short for the loads a thread should have in flight, so that each thread takes `unroll`
// rows (row-major: one pass of its threads covers a row) or row groups (column-major: one thread
// a row group, no more columns than `unroll`).
bool short_rows(const VersatileConfig& c, Layout layout, std::int64_t n);

// Flat column-major: the grid must be a multiple of this many blocks, so that its stride covers
// whole columns; at most kFlatMaxRows rows (the block's row sums live in shared memory).
std::int64_t flat_grid_unit(std::int64_t m, int block, int vector);
constexpr std::int64_t kFlatMaxRows = 4096;

// Flat row-major: the shared memory a block's rows take; at most kFlatTileBytes.
std::int64_t flat_row_tile_bytes(const VersatileConfig& c, std::int64_t n, std::size_t elem_size);
constexpr std::int64_t kFlatTileBytes = 48 * 1024;

// Flat row-major suits rows that are not a multiple of 32 bytes. The tile holds a block's rows back
// to back, a row a thread or a few: rows a multiple of 32 bytes apart start a warp's rows on the same
// few of shared memory's 32 banks, and its reads queue (double 16777216 x 16 on the H200: 42 % of
// the ceiling flat, 96 % in place); such rows take 16-byte loads in place.
bool flat_row_suits(std::int64_t n, std::size_t elem_size);

// Column-major with several threads down a column: the shared memory a block folds its sums in
// (rows x groups accumulators, and the cluster's row sums). A kernel launched without asking for
// more gets at most kFlatTileBytes; fp8's 16-element loads at block 1024 would need 64 KiB.
std::int64_t col_fold_bytes(const VersatileConfig& c, std::size_t acc_size);

// What the shape rules need of a GPU: how many blocks it holds at once. Hopper and Ampere's
// datacenter parts hold 2,048 threads an SM, an L40S or an RTX card 1,536 (DeviceFacts has both).
struct GpuSize {
    int sms = 0;
    int threads_per_sm = 0;
};

// Blocks the GPU holds at once at full occupancy: a grid of a whole number of these waves leaves
// no block to run alone at the end.
std::int64_t blocks_per_wave(GpuSize gpu, int block);

// A configuration that is valid for any shape (the fallback when there is no tuning table).
VersatileConfig versatile_heuristic(Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size, GpuSize gpu);

// A tuned configuration moved from the mesh point (tuned_m x tuned_n) it was tuned at, on the GPU
// tuned_gpu, to m×n on this one (gpu): the same threads and loads where they fit, the grid kept at
// the same number of waves. The result may still fail versatile_invalid (resolve then falls back
// to the heuristic).
VersatileConfig fit_to_shape(const VersatileConfig& tuned, std::int64_t tuned_m, std::int64_t tuned_n,
                             GpuSize tuned_gpu, Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size,
                             GpuSize gpu);

// A tuned configuration's neighbours, which pick_timed (pick_timed.cuh) times beside the nearest
// points' picks, one step along each of the tuner's axes: half and twice its threads a row (of
// the fitted configuration where the fit reads the shape another way than the tuned point), half
// and twice its loads in flight, four times its blocks a row where a row is split, 16-byte
// staggered loads where it takes narrow aligned ones (aligned where it takes 16-byte loads that do
// not divide the row or column) and, row-major, the other way of reading (flat with a thread a row
// where it reads in place, in place where it reads flat), each fitted to m×n as fit_to_shape fits
// the configuration itself (arguments as there). `what` says which neighbour it is. The results
// may fail versatile_invalid.
struct Neighbour {
    VersatileConfig config;
    std::string what;
};
std::vector<Neighbour> fitted_neighbours(const VersatileConfig& tuned, std::int64_t tuned_m, std::int64_t tuned_n,
                                         GpuSize tuned_gpu, Layout layout, std::int64_t m, std::int64_t n,
                                         std::size_t elem_size, GpuSize gpu);

// Every candidate the tuner tries at m×n (layout: the layout the kernels read it in): the
// candidates' axes, each filtered by versatile_invalid.
std::vector<VersatileConfig> candidate_configs(Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size,
                                               GpuSize gpu);

}  // namespace gemv
