// The tuner's candidates at one shape: each way of loading with its axes (threads per block,
// threads along a row, blocks a row, loads in flight, how the blocks add up), every combination
// kept that versatile_invalid accepts. The order matters: the search times the first candidates
// in full and stops a later one early when its first run is clearly slower.
#include <algorithm>

#include "integer.hpp"
#include "shape_rules.hpp"

namespace gemv {

namespace {

// The axes, as data.
constexpr int kInPlaceBlocks[] = {128, 256, 512};
constexpr std::int64_t kWaves[] = {1, 4};             // grids of about one or four waves of blocks
constexpr std::int64_t kClusterBlocks[] = {2, 4, 8};  // blocks a cluster adds up
constexpr int kFlatColBlocks[] = {256, 512};
constexpr int kFlatRowBlocks[] = {128, 256};
constexpr int kFlatRowThreads[] = {1, 4, 16};  // threads a row, flat row-major (16: rows of up to 1536 floats)
constexpr int kTileBlocks[] = {128, 256, 512};
constexpr int kWideUnrolls[] = {2, 4};                                         // 16-byte loads in flight a thread
constexpr Combine kSplitCombines[] = {Combine::atomic_last, Combine::atomic};  // flat and tiles

template <class V>
void sort_unique(std::vector<V>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

struct Target {  // the problem and GPU the candidates are for
    Layout layout;
    std::int64_t m, n;
    std::size_t elem;
    GpuSize gpu;
    bool col() const { return layout == Layout::col; }
};

void add_if_valid(std::vector<VersatileConfig>& out, const VersatileConfig& c, const Target& s) {
    if (versatile_invalid(c, s.layout, s.m, s.n, s.elem).empty()) out.push_back(c);
}

// Loads in flight: 16-byte loads need 2 or 4 a thread; narrower ones (an odd m or n), more;
// realigned loads, two a vector, 4.
std::vector<int> in_place_unrolls(Loads loads, int vector, std::size_t elem) {
    if (loads == Loads::realigned) return {4};
    if (vector * elem < 16) return {4, 8, 16};
    return {2, 4};
}

// Threads along the loads: column-major, from one thread a row group (p) to 32 threads along the
// columns (p / 32); row-major, one vector per thread per row pass, up to eight, so that a warp's
// loads stay contiguous.
std::vector<std::int64_t> threads_along(const Target& s, int block, int vector, Loads loads) {
    const std::int64_t need = ((s.col() ? s.m : s.n) + vector - 1) / vector;  // threads that cover it once
    std::vector<std::int64_t> alongs;
    if (s.col()) {
        const std::int64_t p = std::min<std::int64_t>(block, pow2_at_least(need));
        alongs = {p, p / 2, p / 8, p / 32};
        // Staggered loads with an odd m need 4 threads along the columns or more (float).
        if (loads == Loads::staggered) alongs.push_back(p / 4);
    } else {
        const std::int64_t p = std::min<std::int64_t>(block, pow2_at_least((need + 7) / 8));
        alongs = {p / 4, p, 2 * p, 4 * p, pow2_at_least(need)};
    }
    for (auto& a : alongs) a = std::clamp<std::int64_t>(a, 1, block);
    sort_unique(alongs);
    return alongs;
}

// One configuration of threads (block, along) with each unroll and each number of blocks a row:
// 1, or about one or four waves added atomically into y zeroed first; then clusters of 2, 4 or 8
// blocks adding up in distributed shared memory. (Adding split rows in order in the last block won
// few points of a first float tuning, slides/data/step11/h100_step11_first_tuning_float_col.csv;
// atomics into a workspace moved by the last block, atomic_last, won at one mid-size point and
// lost at two others, slides/data/step11/h100_step11_experiments.csv.)
void add_splits(std::vector<VersatileConfig>& out, VersatileConfig c, const Target& s, int vector,
                const std::vector<int>& unrolls) {
    const std::int64_t blocks = row_blocks(c, s.layout, s.m, s.n);
    const std::int64_t wave = blocks_per_wave(s.gpu, c.block);
    // Each thread keeps at least four loads' worth of columns of its slice.
    const std::int64_t sharing = s.col() ? c.threads_per_row : std::int64_t(c.threads_per_row) * vector;
    const std::int64_t max_splits = std::max<std::int64_t>(1, s.n / (4 * sharing));
    // Too few blocks to fill the GPU when more splits were possible: never faster, and on a wide
    // matrix a single block would take seconds.
    const auto too_few = [&](std::int64_t split) { return blocks * split < std::min(wave, blocks * max_splits) / 2; };
    std::vector<std::int64_t> splits = {1};
    for (std::int64_t waves : kWaves)
        splits.push_back(std::min<std::int64_t>(
            {std::max<std::int64_t>(1, (waves * wave + blocks - 1) / blocks), max_splits, 65535}));
    sort_unique(splits);
    for (int unroll : unrolls)
        for (std::int64_t split : splits) {
            if (too_few(split)) continue;
            c.unroll = unroll;
            c.blocks_per_row = split;
            c.combine = split == 1 ? Combine::store : Combine::atomic;
            add_if_valid(out, c, s);
        }
    for (int unroll : unrolls)
        for (std::int64_t split : kClusterBlocks) {
            if (too_few(split) || split > max_splits) continue;
            c.unroll = unroll;
            c.blocks_per_row = split;
            c.combine = Combine::cluster;
            add_if_valid(out, c, s);
        }
}

// In place: threads down a column (column-major) or along a row, blocks a row, unroll, combine.
void add_in_place(std::vector<VersatileConfig>& out, const Target& s, int vector, Loads loads) {
    const std::vector<int> unrolls = in_place_unrolls(loads, vector, s.elem);
    for (int block : kInPlaceBlocks)
        for (std::int64_t along : threads_along(s, block, vector, loads)) {
            const VersatileConfig c = NamedConfig()
                                          .block(block)
                                          .vector(vector)
                                          .threads_per_row(int(s.col() ? block / along : along))
                                          .loads(loads);
            add_splits(out, c, s, vector, unrolls);
        }
}

// A grid of `grid` blocks that all add to every row: one block stores, more add up atomically.
void add_each_combine(std::vector<VersatileConfig>& out, NamedConfig c, std::int64_t grid, const Target& s) {
    for (Combine combine : kSplitCombines) {
        c.blocks_per_row(grid).combine(grid == 1 ? Combine::store : combine);
        add_if_valid(out, c, s);
        if (grid == 1) break;
    }
}

// Column-major with few rows, flat: 16-byte loads whatever m is, about one or four waves.
void add_flat_col(std::vector<VersatileConfig>& out, const Target& s, int widest) {
    for (int block : kFlatColBlocks) {
        const std::int64_t unit = flat_grid_unit(s.m, block, widest);
        const std::int64_t wave = blocks_per_wave(s.gpu, block);
        std::vector<std::int64_t> grids;
        for (std::int64_t waves : kWaves)
            grids.push_back(std::max<std::int64_t>(1, (waves * wave + unit / 2) / unit) * unit);
        sort_unique(grids);
        for (int unroll : kWideUnrolls)
            for (std::int64_t g : grids) {
                if (g > unit && g * block * widest * unroll > s.m * s.n) continue;  // a whole step for every thread
                add_each_combine(
                    out,
                    NamedConfig().block(block).vector(widest).unroll(unroll).threads_per_row(block).loads(Loads::flat),
                    g, s);
            }
    }
}

// Row-major rows short enough that a block's rows fit in shared memory, flat: the rows copied in
// 16-byte pieces, 1, 4 or 16 threads a row (unroll: the products a thread adds a step).
void add_flat_row(std::vector<VersatileConfig>& out, const Target& s, int widest) {
    for (int block : kFlatRowBlocks)
        for (int tpr : kFlatRowThreads)
            for (int unroll : kWideUnrolls)
                add_if_valid(
                    out,
                    NamedConfig().block(block).vector(widest).unroll(unroll).threads_per_row(tpr).loads(Loads::flat),
                    s);
}

// Columns (rows) of 2 or 3 elements, shorter than a 16-byte load: tiles of V whole columns (rows).
// Column-major: every block adds to all rows, about one or four waves of blocks.
void add_tiles(std::vector<VersatileConfig>& out, const Target& s, int widest) {
    for (int block : kTileBlocks)
        for (int unroll : {1, 2, 4}) {
            const NamedConfig tiles = NamedConfig().block(block).vector(widest).unroll(unroll).loads(Loads::tiles);
            if (!s.col()) {
                add_if_valid(out, tiles, s);
                continue;
            }
            for (std::int64_t waves : kWaves) {
                const std::int64_t grid =
                    std::min<std::int64_t>(waves * blocks_per_wave(s.gpu, block),
                                           std::max<std::int64_t>(1, s.n / (std::int64_t(widest) * block * unroll)));
                add_each_combine(out, NamedConfig(tiles).threads_per_row(block), grid, s);
            }
        }
}

}  // namespace

std::vector<VersatileConfig> candidate_configs(Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                                               GpuSize gpu) {
    const Target s{layout, m, n, elem, gpu};
    std::vector<VersatileConfig> out;
    const int widest = widest_vector_of(elem), vector = widest_vector(layout, m, n, elem);
    // 16-byte loads that do not divide m (n): in place, staggered (first: a fast candidate early
    // stops the slower ones sooner), and in the 16- and 8-bit formats (where the alternative is a
    // 2- or 1-byte load) realigned. In float and double, realigned loads (two a vector) lost to 4-
    // and 8-byte ones (the experiments file), and staggered ones read the same 16 bytes with one
    // load.
    if (vector < widest) add_in_place(out, s, widest, Loads::staggered);
    add_in_place(out, s, vector, Loads::aligned);
    if (vector < widest && elem < 4) add_in_place(out, s, widest, Loads::realigned);
    if (s.col() && m <= kFlatMaxRows) add_flat_col(out, s, widest);
    // Row-major flat where it suits the rows (versatile_invalid keeps those that fit in shared
    // memory): every row 16-byte loads cannot follow, and short rows they can.
    if (!s.col() && flat_row_suits(n, s.elem)) add_flat_row(out, s, widest);
    if ((s.col() ? m : n) == 2 || (s.col() ? m : n) == 3) add_tiles(out, s, widest);
    return out;
}

}  // namespace gemv
