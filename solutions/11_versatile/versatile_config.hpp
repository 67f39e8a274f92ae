// Step 11's configuration: the parameters of Sørensen's versatile kernel and those a Hopper GPU
// needs, with one meaning each in both layouts, and the one check of which shapes it can run.
#pragma once

#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "problem.hpp"

// How the blocks that share a row add up their partial sums.
enum class Combine {
    store,        // one block a row: it stores y
    atomic,       // atomicAdd into y, zeroed by a memset first: two launches, bits vary run to run
    atomic_last,  // atomicAdd into a workspace kept at zero; the last block of the row group to
                  // finish moves the sums to y and zeroes them: one launch, bits vary run to run
    cluster,      // up to 8 blocks of a thread-block cluster add through distributed shared memory
    last_block,   // partial sums to a workspace; the last block of the row group to finish adds
                  // them in order: one launch, the same bits every run (in place only)
};

// How a thread reads A.
enum class Loads {
    aligned,    // in place, V elements a load: V divides the dimension the loads run along
    realigned,  // in place, 16-byte loads whatever m (column-major) or n (row-major) is: the two
                // aligned 16 bytes around V elements, shifted into place
    staggered,  // in place, 16-byte loads whatever m or n is, each at an aligned address: a thread's
                // loads start up to V - 1 elements early, and its sums are put in their rows once,
                // at the end (column-major: overlapping row blocks; row-major: x realigned)
    tiles,      // m (column-major) or n (row-major) of 2 or 3, shorter than a 16-byte load: V whole
                // columns or rows at a time, 2 or 3 aligned 16-byte loads
    flat,       // A as one flat array: column-major, few rows (sums per row in shared memory);
                // row-major, a block's whole rows copied to shared memory
};

// BEGIN EXCERPT config
struct VersatileConfig {
    int block = 256;                   // BLOCKSIZE: threads per block, a multiple of 32
    int vector = 4;                    // elements per load, 16 bytes at most (WORKSIZE_m)
    int unroll = 4;                    // loads a thread issues before it uses any
    int threads_per_row = 1;           // threads of a block that share a row
    std::int64_t blocks_per_row = 1;   // blocks that share a row (GRIDSIZE_n)
    Combine combine = Combine::store;  // how those blocks add up (store: there is one)
    Loads loads = Loads::aligned;      // how a thread's loads meet A's 16-byte alignment
};
// END EXCERPT config

// A configuration written by name, where a list of candidates would otherwise be a row of bare
// numbers: NamedConfig().block(256).vector(4).threads_per_row(256).loads(Loads::flat). Fields not
// named keep VersatileConfig's defaults.
class NamedConfig {
public:
    NamedConfig& block(int v) { return set(&VersatileConfig::block, v); }
    NamedConfig& vector(int v) { return set(&VersatileConfig::vector, v); }
    NamedConfig& unroll(int v) { return set(&VersatileConfig::unroll, v); }
    NamedConfig& threads_per_row(int v) { return set(&VersatileConfig::threads_per_row, v); }
    NamedConfig& blocks_per_row(std::int64_t v) { return set(&VersatileConfig::blocks_per_row, v); }
    NamedConfig& combine(Combine v) { return set(&VersatileConfig::combine, v); }
    NamedConfig& loads(Loads v) { return set(&VersatileConfig::loads, v); }
    operator VersatileConfig() const { return c_; }

private:
    template <class Field, class Value>
    NamedConfig& set(Field VersatileConfig::*field, Value v) {
        c_.*field = v;
        return *this;
    }
    VersatileConfig c_;
};

const char* to_string(Combine c);
const char* to_string(Loads l);

// The configuration's fields by name: what the tuning table's columns, the tuner's resume file
// and step 11's command line are all made from, so that a new field is added in one place.
struct ConfigField {
    const char* name;  // "threads_per_row"; on the command line --threads-per-row
    const char* help;
    std::function<std::string(const VersatileConfig&)> get;
    // Sets the field from text; returns what is wrong with the text, or "" when it was taken.
    std::function<std::string(VersatileConfig&, const std::string&)> set;
};
const std::vector<ConfigField>& config_fields();
std::string describe(const VersatileConfig& c);  // "block 256, vector 4, ..., loads aligned"

// Why a configuration cannot run on an m×n problem, or "" when it can: the one check shared by
// the launcher (which refuses), the tuner (which skips) and the table (which rejects an entry).
std::string versatile_invalid(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n,
                              std::size_t elem_size);

// The widest load (elements, at most 16 bytes) that divides the dimension a layout loads along.
int widest_vector(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size);
inline int widest_vector_of(std::size_t elem_size) {
    return static_cast<int>(16 / elem_size);
}

// The layout the kernels read an m×n matrix in: a 1×n column-major matrix is the same bytes as a
// 1×n row-major one, and an m×1 row-major matrix the same as an m×1 column-major one; each is
// read as the other layout's easy case.
gemv::Layout kernel_layout(gemv::Layout layout, std::int64_t m, std::int64_t n);

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
std::int64_t rows_per_block(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n);
std::int64_t row_blocks(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n);

// Rows too short for the loads a thread should have in flight, so that each thread takes `unroll`
// rows (row-major: one pass of its threads covers a row) or row groups (column-major: one thread
// a row group, no more columns than `unroll`).
bool short_rows(const VersatileConfig& c, gemv::Layout layout, std::int64_t n);

// Flat column-major: the grid must be a multiple of this many blocks, so that its stride covers
// whole columns; at most kFlatMaxRows rows (the block's row sums live in shared memory).
std::int64_t flat_grid_unit(std::int64_t m, int block, int vector);
constexpr std::int64_t kFlatMaxRows = 4096;

// Flat row-major: the shared memory a block's rows take; at most kFlatTileBytes.
std::int64_t flat_row_tile_bytes(const VersatileConfig& c, std::int64_t n, std::size_t elem_size);
constexpr std::int64_t kFlatTileBytes = 48 * 1024;

// Column-major with several threads down a column: the shared memory a block folds its sums in
// (rows x groups accumulators, and the cluster's row sums). A kernel launched without asking for
// more gets at most kFlatTileBytes; fp8's 16-element loads at block 1024 would need 64 KiB.
std::int64_t col_fold_bytes(const VersatileConfig& c, std::size_t acc_size);

// Blocks the GPU holds at once at full occupancy: a grid of a whole number of these waves leaves
// no block to run alone at the end.
std::int64_t blocks_per_wave(int sm_count, int block);

// A configuration that is valid for any shape (the fallback when there is no tuning table).
VersatileConfig versatile_heuristic(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem_size,
                                    int sm_count);
