// Which configurations can run an m×n problem, and the rows and blocks they make there.
#include <algorithm>
#include <climits>
#include <numeric>
#include <optional>

#include "integer.hpp"
#include "shape_rules.hpp"

namespace gemv {

Layout kernel_layout(Layout layout, std::int64_t m, std::int64_t n) {
    if (layout == Layout::col && m == 1) return Layout::row;
    if (layout == Layout::row && n == 1 && m > 1) return Layout::col;
    return layout;
}

bool short_rows(const VersatileConfig& c, Layout layout, std::int64_t n) {
    if (c.loads != Loads::aligned || c.blocks_per_row != 1) return false;
    if (layout == Layout::col) return c.threads_per_row == 1 && n <= c.unroll;
    return c.threads_per_row <= 32 && std::int64_t(c.threads_per_row) * c.vector >= n;
}

std::int64_t rows_per_block(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n) {
    const std::int64_t lanes = c.block / c.threads_per_row;                   // threads down a column, or rows a block
    const std::int64_t per_thread = short_rows(c, layout, n) ? c.unroll : 1;  // row groups (or rows) a thread
    if (layout == Layout::col && !in_place(c)) return m;
    // Staggered column-major: a block's loads start up to V - 1 rows before its first row, so its
    // lanes cover one row group more than it owns (the row blocks overlap by one row group).
    // (A staggered configuration with one lane is refused by versatile_invalid.)
    const std::int64_t owned = c.loads == Loads::staggered && lanes > 1 ? lanes - 1 : lanes;
    if (layout == Layout::col) return owned * c.vector * per_thread;
    if (c.loads == Loads::tiles) return std::int64_t(c.block) * c.vector * c.unroll;  // U tiles of V rows a thread
    return lanes * per_thread;
}

std::int64_t row_blocks(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n) {
    return div_up(m, rows_per_block(c, layout, m, n));
}

std::int64_t flat_grid_unit(std::int64_t m, int block, int vector) {
    return m / std::gcd(m, std::int64_t(block) * vector);
}

std::int64_t flat_row_tile_bytes(const VersatileConfig& c, std::int64_t n, std::size_t elem) {
    // The rows, plus up to V - 1 elements before the first and after the last aligned load, and
    // the word past the last that the narrow formats' 4-byte reads may touch (dot_shared_row).
    return (std::int64_t(c.block / c.threads_per_row) * n + 2 * c.vector) * std::int64_t(elem) + 4;
}

bool flat_row_suits(std::int64_t n, std::size_t elem) {
    return n * std::int64_t(elem) % 32 != 0;
}

std::int64_t col_fold_bytes(const VersatileConfig& c, std::size_t acc_size) {
    const std::int64_t lanes = c.block / c.threads_per_row;  // threads down a column
    // The fold buffer, rows x groups; none where one thread covers a column slice alone. Staggered
    // loads fold every thread's sums in shared memory (threads of a warp start at other rows).
    const std::int64_t groups = c.loads == Loads::staggered ? c.threads_per_row
                                : c.threads_per_row == 1    ? 0
                                : lanes < 32                ? c.block / 32
                                                            : c.threads_per_row;
    const std::int64_t cluster = c.combine == Combine::cluster ? lanes : 0;  // the cluster's row sums
    return (groups * lanes + cluster) * c.vector * std::int64_t(acc_size);
}

std::int64_t blocks_per_wave(GpuSize gpu, int block) {
    return std::int64_t(gpu.sms) * std::max(1, gpu.threads_per_sm / block);
}

int widest_vector(Layout layout, std::int64_t m, std::int64_t n, std::size_t elem) {
    const std::int64_t along = layout == Layout::col ? m : n;
    for (int v = widest_vector_of(elem); v > 1; v /= 2)
        if (along % v == 0) return v;
    return 1;
}

namespace {

// The fields' own ranges and how they fit together, whatever the loads.
std::string fields_invalid(const VersatileConfig& c, bool col, std::size_t elem) {
    if (c.block < 32 || c.block > 1024 || c.block % 32) return "block must be a multiple of 32 from 32 to 1024";
    if (!power_of_two(c.vector) || c.vector * elem > 16) return "vector must be a power of two, 16 bytes at most";
    if (!(c.unroll == 1 || c.unroll == 2 || c.unroll == 4 || c.unroll == 8 || c.unroll == 16))
        return "unroll must be 1, 2, 4, 8 or 16";
    if (c.unroll > 4 && c.vector * elem >= 16) return "unroll 8 and 16 are for loads narrower than 16 bytes";
    // The threads a warp-shuffle fold combines must be a power of two: those sharing a row in
    // row-major, those down a column (block / threads_per_row) in column-major.
    if (c.threads_per_row < 1 || c.block % c.threads_per_row ||
        !power_of_two(col ? c.block / c.threads_per_row : c.threads_per_row))
        return col ? "threads_per_row must divide block into a power of two"
                   : "threads_per_row must be a power of two that divides block";
    if (c.blocks_per_row < 1) return "blocks_per_row must be at least 1";
    if ((c.combine == Combine::store) != (c.blocks_per_row == 1))
        return "combine is store exactly when one block adds up each row (blocks_per_row 1)";
    if (c.combine == Combine::cluster && c.blocks_per_row > 8) return "a cluster combines 2 to 8 blocks";
    return "";
}

std::string in_place_invalid(const VersatileConfig& c, bool col, std::int64_t m, std::int64_t n, std::size_t elem) {
    if (c.loads == Loads::aligned && (col ? m : n) % c.vector)
        return "aligned loads need a vector that divides " + std::string(col ? "m" : "n");
    if (c.loads == Loads::realigned && c.vector != widest_vector_of(elem))
        return "realigned loads are 16 bytes: vector must be " + std::to_string(widest_vector_of(elem));
    if (c.loads == Loads::staggered) {
        if (c.vector != widest_vector_of(elem))
            return "staggered loads are 16 bytes: vector must be " + std::to_string(widest_vector_of(elem));
        if (col && c.block / c.threads_per_row < 2)
            return "staggered column-major needs 2 threads or more down a column (block / threads_per_row)";
        if (col && c.threads_per_row % staggered_threads_per_row(m, c.vector))
            return "staggered column-major needs threads_per_row x m to be a multiple of the vector (each "
                   "thread's columns start at one place in 16 bytes)";
    }
    // The sums are kept in double for double, in float for float and every narrower format.
    if (col && col_fold_bytes(c, elem == 8 ? 8 : 4) > kFlatTileBytes)
        return "column-major folds block x vector sums in shared memory: at most " +
               std::to_string(kFlatTileBytes / 1024) + " KiB";
    return "";
}

// Tiles and flat column-major make one row block on a grid of their own: for them a configuration
// that passes is valid outright (nothing), where the others go on to the grid's limits ("").
std::optional<std::string> tiles_invalid(const VersatileConfig& c, bool col, std::int64_t m, std::int64_t n,
                                         std::size_t elem) {
    if (c.vector != widest_vector_of(elem)) return "tiles are read with 16-byte loads";
    if (c.combine == Combine::cluster || c.combine == Combine::last_block)
        return "tiles add up their blocks atomically (combine atomic or atomic_last)";
    if (col) {
        if (m != 2 && m != 3) return "tiles of whole columns are for m of 2 or 3";
        if (c.threads_per_row != c.block) return "tiles of whole columns: every thread adds to every row";
        if (c.blocks_per_row > INT_MAX) return "at most 2^31 - 1 blocks";
        return std::nullopt;  // one row block
    }
    if (n != 2 && n != 3) return "tiles of whole rows are for n of 2 or 3";
    if (c.threads_per_row != 1 || c.blocks_per_row != 1)
        return "tiles of whole rows: one thread a tile, one block a row (threads_per_row and blocks_per_row 1)";
    return "";
}

std::optional<std::string> flat_invalid(const VersatileConfig& c, bool col, std::int64_t m, std::int64_t n,
                                        std::size_t elem) {
    if (c.combine == Combine::cluster || c.combine == Combine::last_block)
        return "flat adds up its blocks atomically (combine atomic or atomic_last)";
    if (col) {
        if (m > kFlatMaxRows) return "flat column-major takes at most " + std::to_string(kFlatMaxRows) + " rows";
        if (c.threads_per_row != c.block) return "flat column-major: every thread adds to every row";
        if (c.blocks_per_row > INT_MAX || c.blocks_per_row % flat_grid_unit(m, c.block, c.vector))
            return "flat column-major needs a multiple of " + std::to_string(flat_grid_unit(m, c.block, c.vector)) +
                   " blocks (block * vector * blocks a multiple of m)";
        return std::nullopt;  // one row block, on a grid of up to 2^31 - 1 blocks
    }
    if (c.vector != widest_vector_of(elem))  // the tile is copied in aligned 16-byte pieces
        return "flat row-major copies 16-byte pieces: vector must be " + std::to_string(widest_vector_of(elem));
    if (c.blocks_per_row != 1) return "flat row-major reads whole rows: blocks_per_row must be 1";
    if (c.threads_per_row > 32) return "flat row-major shares a row among at most 32 threads";
    if (flat_row_tile_bytes(c, n, elem) > kFlatTileBytes)
        return "flat row-major copies block / threads_per_row rows to shared memory: at most " +
               std::to_string(kFlatTileBytes / 1024) + " KiB";
    return "";
}

}  // namespace

std::string versatile_invalid(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n,
                              std::size_t elem) {
    const bool col = layout == Layout::col;
    if (m < 1 || n < 1) return "m and n must be positive";
    std::string why = fields_invalid(c, col, elem);
    if (!why.empty()) return why;
    const std::optional<std::string> loads = c.loads == Loads::tiles  ? tiles_invalid(c, col, m, n, elem)
                                             : c.loads == Loads::flat ? flat_invalid(c, col, m, n, elem)
                                                                      : in_place_invalid(c, col, m, n, elem);
    if (!loads) return "";
    if (!loads->empty()) return *loads;
    if (c.blocks_per_row > 65535 || c.blocks_per_row > n) return "blocks_per_row must be from 1 to min(n, 65535)";
    if (row_blocks(c, layout, m, n) > INT_MAX) return "too many blocks along the rows";
    return "";
}

}  // namespace gemv
