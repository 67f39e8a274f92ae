#include "versatile_config.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <sstream>

namespace {

bool power_of_two(std::int64_t v) {
    return v > 0 && (v & (v - 1)) == 0;
}

std::int64_t div_up(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

std::int64_t pow2_at_least(std::int64_t v) {
    std::int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

// A whole number from text, or why not.
std::string parse_whole(const std::string& text, std::int64_t& out) {
    std::size_t used = 0;
    try {
        out = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    return used == text.size() && !text.empty() ? "" : "takes a whole number, not '" + text + "'";
}

template <class Field>
ConfigField whole_field(const char* name, const char* help, Field VersatileConfig::*field) {
    return {name, help, [field](const VersatileConfig& c) { return std::to_string(c.*field); },
            [field](VersatileConfig& c, const std::string& text) {
                std::int64_t v = 0;
                std::string why = parse_whole(text, v);
                if (why.empty()) c.*field = static_cast<Field>(v);
                return why;
            }};
}

template <class Enum>
ConfigField enum_field(const char* name, const char* help, Enum VersatileConfig::*field,
                       std::initializer_list<Enum> values) {
    const std::vector<Enum> all(values);
    return {name, help, [field](const VersatileConfig& c) { return std::string(to_string(c.*field)); },
            [field, all](VersatileConfig& c, const std::string& text) {
                std::string names;
                for (Enum e : all) {
                    if (text == to_string(e)) {
                        c.*field = e;
                        return std::string();
                    }
                    names += (names.empty() ? "" : ", ") + std::string(to_string(e));
                }
                return "is one of " + names + ", not '" + text + "'";
            }};
}

}  // namespace

const char* to_string(Combine c) {
    switch (c) {
        case Combine::store:
            return "store";
        case Combine::atomic:
            return "atomic";
        case Combine::atomic_last:
            return "atomic_last";
        case Combine::cluster:
            return "cluster";
        case Combine::last_block:
            return "last_block";
    }
    return "?";
}

const char* to_string(Loads l) {
    switch (l) {
        case Loads::aligned:
            return "aligned";
        case Loads::realigned:
            return "realigned";
        case Loads::staggered:
            return "staggered";
        case Loads::tiles:
            return "tiles";
        case Loads::flat:
            return "flat";
    }
    return "?";
}

const std::vector<ConfigField>& config_fields() {
    static const std::vector<ConfigField> fields = {
        whole_field("block", "BLOCKSIZE, threads per block", &VersatileConfig::block),
        whole_field("vector", "elements per load, 16 bytes at most", &VersatileConfig::vector),
        whole_field("unroll", "loads in flight per thread: 1, 2, 4, 8 or 16", &VersatileConfig::unroll),
        whole_field("threads_per_row", "threads of a block adding up parts of one row",
                    &VersatileConfig::threads_per_row),
        whole_field("blocks_per_row", "blocks adding up parts of one row", &VersatileConfig::blocks_per_row),
        enum_field("combine", "how those blocks add up", &VersatileConfig::combine,
                   {Combine::store, Combine::atomic, Combine::atomic_last, Combine::cluster, Combine::last_block}),
        enum_field("loads", "how A is read", &VersatileConfig::loads,
                   {Loads::aligned, Loads::realigned, Loads::staggered, Loads::flat, Loads::tiles}),
    };
    return fields;
}

std::string describe(const VersatileConfig& c) {
    std::ostringstream s;
    for (const ConfigField& f : config_fields())
        s << (&f == &config_fields().front() ? "" : ", ") << f.name << " " << f.get(c);
    return s.str();
}

gemv::Layout kernel_layout(gemv::Layout layout, std::int64_t m, std::int64_t n) {
    if (layout == gemv::Layout::col && m == 1) return gemv::Layout::row;
    if (layout == gemv::Layout::row && n == 1 && m > 1) return gemv::Layout::col;
    return layout;
}

bool short_rows(const VersatileConfig& c, gemv::Layout layout, std::int64_t n) {
    if (c.loads != Loads::aligned || c.blocks_per_row != 1) return false;
    if (layout == gemv::Layout::col) return c.threads_per_row == 1 && n <= c.unroll;
    return c.threads_per_row <= 32 && std::int64_t(c.threads_per_row) * c.vector >= n;
}

std::int64_t rows_per_block(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n) {
    const std::int64_t lanes = c.block / c.threads_per_row;                   // threads down a column, or rows a block
    const std::int64_t per_thread = short_rows(c, layout, n) ? c.unroll : 1;  // row groups (or rows) a thread
    if (layout == gemv::Layout::col && !in_place(c)) return m;
    // Staggered column-major: a block's loads start up to V - 1 rows before its first row, so its
    // lanes cover one row group more than it owns (the row blocks overlap by one row group).
    // (A staggered configuration with one lane is refused by versatile_invalid.)
    const std::int64_t owned = c.loads == Loads::staggered && lanes > 1 ? lanes - 1 : lanes;
    if (layout == gemv::Layout::col) return owned * c.vector * per_thread;
    if (c.loads == Loads::tiles) return std::int64_t(c.block) * c.vector * c.unroll;  // U tiles of V rows a thread
    return lanes * per_thread;
}

std::int64_t row_blocks(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n) {
    return div_up(m, rows_per_block(c, layout, m, n));
}

std::int64_t flat_grid_unit(std::int64_t m, int block, int vector) {
    return m / std::gcd(m, std::int64_t(block) * vector);
}

std::int64_t flat_row_tile_bytes(const VersatileConfig& c, std::int64_t n, std::size_t elem) {
    // The rows, plus up to V - 1 elements before the first and after the last aligned load.
    return (std::int64_t(c.block / c.threads_per_row) * n + 2 * c.vector) * std::int64_t(elem);
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

std::int64_t blocks_per_wave(int sm_count, int block) {
    return std::int64_t(sm_count) * (2048 / block);  // Hopper: 2048 threads per SM
}

int widest_vector(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem) {
    const std::int64_t along = layout == gemv::Layout::col ? m : n;
    for (int v = widest_vector_of(elem); v > 1; v /= 2)
        if (along % v == 0) return v;
    return 1;
}

std::string versatile_invalid(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n,
                              std::size_t elem) {
    const bool col = layout == gemv::Layout::col;
    if (m < 1 || n < 1) return "m and n must be positive";
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
    switch (c.loads) {
        case Loads::aligned:
        case Loads::realigned:
        case Loads::staggered:
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
            break;
        case Loads::tiles:
            if (c.vector != widest_vector_of(elem)) return "tiles are read with 16-byte loads";
            if (c.combine == Combine::cluster || c.combine == Combine::last_block)
                return "tiles add up their blocks atomically (combine atomic or atomic_last)";
            if (col) {
                if (m != 2 && m != 3) return "tiles of whole columns are for m of 2 or 3";
                if (c.threads_per_row != c.block) return "tiles of whole columns: every thread adds to every row";
                if (c.blocks_per_row > INT_MAX) return "at most 2^31 - 1 blocks";
                return "";  // one row block
            }
            if (n != 2 && n != 3) return "tiles of whole rows are for n of 2 or 3";
            if (c.threads_per_row != 1 || c.blocks_per_row != 1)
                return "tiles of whole rows: one thread a tile, one block a row (threads_per_row and blocks_per_row 1)";
            break;
        case Loads::flat:
            if (c.combine == Combine::cluster || c.combine == Combine::last_block)
                return "flat adds up its blocks atomically (combine atomic or atomic_last)";
            if (col) {
                if (m > kFlatMaxRows)
                    return "flat column-major takes at most " + std::to_string(kFlatMaxRows) + " rows";
                if (c.threads_per_row != c.block) return "flat column-major: every thread adds to every row";
                if (c.blocks_per_row > INT_MAX || c.blocks_per_row % flat_grid_unit(m, c.block, c.vector))
                    return "flat column-major needs a multiple of " +
                           std::to_string(flat_grid_unit(m, c.block, c.vector)) +
                           " blocks (block * vector * blocks a multiple of m)";
                return "";  // one row block, on a grid of up to 2^31 - 1 blocks
            }
            if (c.blocks_per_row != 1) return "flat row-major reads whole rows: blocks_per_row must be 1";
            if (c.threads_per_row > 32) return "flat row-major shares a row among at most 32 threads";
            if (flat_row_tile_bytes(c, n, elem) > kFlatTileBytes)
                return "flat row-major copies block / threads_per_row rows to shared memory: at most " +
                       std::to_string(kFlatTileBytes / 1024) + " KiB";
            break;
    }
    if (c.blocks_per_row > 65535 || c.blocks_per_row > n) return "blocks_per_row must be from 1 to min(n, 65535)";
    if (row_blocks(c, layout, m, n) > INT_MAX) return "too many blocks along the rows";
    return "";
}

VersatileConfig versatile_heuristic(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                                    int sm_count) {
    const bool col = layout == gemv::Layout::col;
    const std::int64_t along = col ? m : n;
    VersatileConfig c;
    c.block = 256;
    c.vector = widest_vector(layout, m, n, elem);
    // Column-major with an m that 16-byte loads do not divide, of 8 row groups or more: staggered
    // 16-byte loads (faster than narrow aligned ones at every such shape step11_bench searched on
    // the H100, slides/data/step11/h100_step11_staggered_shapes_*.csv).
    const int widest = widest_vector_of(elem);
    const bool staggered = col && c.vector < widest && m >= 8 * widest;
    if (staggered) {
        c.vector = widest;
        c.loads = Loads::staggered;
    }
    c.unroll = static_cast<int>(std::min<std::size_t>(16, 64 / (c.vector * elem)));  // 64 bytes in flight a thread
    const std::int64_t lanes_needed = div_up(along, c.vector);  // threads that cover a column (or a row) once
    // Threads down a column (column-major) or along a row (row-major, about eight loads each).
    const std::int64_t along_threads =
        std::min<std::int64_t>(c.block, pow2_at_least(col ? lanes_needed : div_up(lanes_needed, 8)));
    c.threads_per_row = static_cast<int>(col ? c.block / along_threads : along_threads);
    // Staggered: enough threads along the columns that each thread's columns start at one place in
    // 16 bytes (threads_per_row x m a multiple of the vector).
    if (staggered) c.threads_per_row = std::max(c.threads_per_row, staggered_threads_per_row(m, widest));
    const std::int64_t blocks = row_blocks(c, layout, m, n);
    const std::int64_t wanted = blocks_per_wave(sm_count, c.block);  // one full wave
    // Each thread keeps at least 16 loads' worth of its slice of the columns.
    const std::int64_t per_slice = 16 * std::int64_t(c.threads_per_row) * (col ? 1 : c.vector);
    const std::int64_t max_splits = std::max<std::int64_t>(1, n / per_slice);
    c.blocks_per_row = std::min<std::int64_t>({std::max<std::int64_t>(1, div_up(wanted, blocks)), max_splits, 65535});
    c.combine = c.blocks_per_row > 1 ? Combine::last_block : Combine::store;
    return c;
}
