#include "search.cuh"

#include <algorithm>
#include <cmath>

namespace {

std::int64_t pow2_at_least(std::int64_t v) {
    std::int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

template <class V>
void sort_unique(std::vector<V>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

void add_if_valid(std::vector<VersatileConfig>& out, const VersatileConfig& c, gemv::Layout layout, std::int64_t m,
                  std::int64_t n, std::size_t elem) {
    if (versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
}

// In place: threads down a column (column-major) or along a row, blocks a row, unroll, combine.
void in_place_candidates(std::vector<VersatileConfig>& out, gemv::Layout layout, std::int64_t m, std::int64_t n,
                         std::size_t elem, int sm_count, int vector, Loads loads) {
    const bool col = layout == gemv::Layout::col;
    const std::int64_t need = ((col ? m : n) + vector - 1) / vector;  // threads that cover a column / a row once
    // Loads in flight: 16-byte loads need 2 or 4 a thread; narrower ones (an odd m or n), more;
    // realigned loads, two a vector, 4.
    const std::vector<int> unrolls = loads == Loads::realigned ? std::vector<int>{4}
                                     : vector * elem < 16      ? std::vector<int>{4, 8, 16}
                                                               : std::vector<int>{2, 4};
    for (int block : {128, 256, 512}) {
        std::vector<std::int64_t> alongs;
        if (col) {  // from one thread a row group (p) to 32 threads along the columns (p / 32)
            const std::int64_t p = std::min<std::int64_t>(block, pow2_at_least(need));
            alongs = {p, p / 2, p / 8, p / 32};
            // Staggered loads with an odd m need 4 threads along the columns or more (float).
            if (loads == Loads::staggered) alongs.push_back(p / 4);
        } else {  // one vector per thread per row pass, up to eight: a warp's loads stay contiguous
            const std::int64_t p = std::min<std::int64_t>(block, pow2_at_least((need + 7) / 8));
            alongs = {p / 4, p, 2 * p, 4 * p, pow2_at_least(need)};
        }
        for (auto& a : alongs) a = std::clamp<std::int64_t>(a, 1, block);
        sort_unique(alongs);
        const std::int64_t wave = blocks_per_wave(sm_count, block);
        for (std::int64_t along : alongs) {
            VersatileConfig c = NamedConfig()
                                    .block(block)
                                    .vector(vector)
                                    .threads_per_row(int(col ? block / along : along))
                                    .loads(loads);
            const std::int64_t blocks = row_blocks(c, layout, m, n);
            // Each thread keeps at least four loads' worth of columns of its slice.
            const std::int64_t sharing = col ? c.threads_per_row : std::int64_t(c.threads_per_row) * vector;
            const std::int64_t max_splits = std::max<std::int64_t>(1, n / (4 * sharing));
            std::vector<std::int64_t> splits = {1};
            for (std::int64_t waves : {1, 4})
                splits.push_back(std::min<std::int64_t>(
                    {std::max<std::int64_t>(1, (waves * wave + blocks - 1) / blocks), max_splits, 65535}));
            sort_unique(splits);
            for (int unroll : unrolls)
                for (std::int64_t s : splits) {
                    // Too few blocks to fill the GPU when more splits were possible: never faster,
                    // and on a wide matrix a single block would take seconds.
                    if (blocks * s < std::min(wave, blocks * max_splits) / 2) continue;
                    // Split rows are added atomically into y zeroed first. Adding them in order
                    // in the last block won few points of a first float tuning
                    // (slides/data/step11/h100_step11_first_tuning_float_col.csv); atomics into a
                    // workspace moved by the last block (atomic_last, one launch) won at one
                    // mid-size point and lost at two others (slides/data/step11/
                    // h100_step11_experiments.csv).
                    c.unroll = unroll;
                    c.blocks_per_row = s;
                    c.combine = s == 1 ? Combine::store : Combine::atomic;
                    add_if_valid(out, c, layout, m, n, elem);
                }
            // Clusters of 2, 4 or 8 blocks add their sums in distributed shared memory.
            for (int unroll : unrolls)
                for (std::int64_t s : {2, 4, 8}) {
                    if (blocks * s < std::min(wave, blocks * max_splits) / 2 || s > max_splits) continue;
                    c.unroll = unroll;
                    c.blocks_per_row = s;
                    c.combine = Combine::cluster;
                    add_if_valid(out, c, layout, m, n, elem);
                }
        }
    }
}

}  // namespace

std::vector<VersatileConfig> candidate_configs(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                                               int sm_count) {
    std::vector<VersatileConfig> out;
    const bool col = layout == gemv::Layout::col;
    const int widest = widest_vector_of(elem), vector = widest_vector(layout, m, n, elem);
    // 16-byte loads that do not divide m (n): in place, staggered (first: a fast candidate early
    // stops the slower ones sooner), and in the 16- and 8-bit formats (where the alternative is a
    // 2- or 1-byte load) realigned. In float and double, realigned loads (two a vector) lost to 4-
    // and 8-byte ones (the experiments file), and staggered ones read the same 16 bytes
    // with one load.
    if (vector < widest) in_place_candidates(out, layout, m, n, elem, sm_count, widest, Loads::staggered);
    in_place_candidates(out, layout, m, n, elem, sm_count, vector, Loads::aligned);
    if (vector < widest && elem < 4) in_place_candidates(out, layout, m, n, elem, sm_count, widest, Loads::realigned);
    // Column-major with few rows, flat: 16-byte loads whatever m is, about one or four waves.
    if (col && m <= kFlatMaxRows)
        for (int block : {256, 512}) {
            const std::int64_t unit = flat_grid_unit(m, block, widest);
            const std::int64_t wave = blocks_per_wave(sm_count, block);
            std::vector<std::int64_t> grids;
            for (std::int64_t waves : {1, 4})
                grids.push_back(std::max<std::int64_t>(1, (waves * wave + unit / 2) / unit) * unit);
            sort_unique(grids);
            for (int unroll : {2, 4})
                for (std::int64_t g : grids) {
                    if (g > unit && g * block * widest * unroll > m * n) continue;  // a whole step for every thread
                    for (Combine combine : {Combine::atomic_last, Combine::atomic}) {
                        const VersatileConfig c = NamedConfig()
                                                      .block(block)
                                                      .vector(widest)
                                                      .unroll(unroll)
                                                      .threads_per_row(block)
                                                      .blocks_per_row(g)
                                                      .combine(g == 1 ? Combine::store : combine)
                                                      .loads(Loads::flat);
                        add_if_valid(out, c, layout, m, n, elem);
                        if (g == 1) break;
                    }
                }
        }
    // Row-major rows 16-byte loads cannot follow, flat: a block's rows copied to shared memory
    // with 16-byte loads, 1 or 4 threads a row.
    if (!col && vector < widest)
        for (int block : {128, 256})
            for (int tpr : {1, 4})
                for (int unroll : {2, 4}) {
                    const VersatileConfig c =
                        NamedConfig().block(block).vector(widest).unroll(unroll).threads_per_row(tpr).loads(
                            Loads::flat);
                    add_if_valid(out, c, layout, m, n, elem);
                }
    // Columns (rows) of 2 or 3 elements, shorter than a 16-byte load: tiles of V whole columns
    // (rows). Column-major: every block adds to all rows, about one or four waves of blocks.
    if ((col ? m : n) == 2 || (col ? m : n) == 3)
        for (int block : {128, 256, 512})
            for (int unroll : {1, 2, 4}) {
                const NamedConfig tiles = NamedConfig().block(block).vector(widest).unroll(unroll).loads(Loads::tiles);
                if (!col) {
                    add_if_valid(out, tiles, layout, m, n, elem);
                    continue;
                }
                for (std::int64_t waves : {1, 4}) {
                    const std::int64_t grid =
                        std::min<std::int64_t>(waves * blocks_per_wave(sm_count, block),
                                               std::max<std::int64_t>(1, n / (std::int64_t(widest) * block * unroll)));
                    for (Combine combine : {Combine::atomic_last, Combine::atomic}) {
                        NamedConfig c = tiles;
                        c.threads_per_row(block).blocks_per_row(grid).combine(grid == 1 ? Combine::store : combine);
                        add_if_valid(out, c, layout, m, n, elem);
                        if (grid == 1) break;
                    }
                }
            }
    return out;
}

template <class T>
double time_config(gemv::DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                   std::int64_t n, const VersatileConfig& c, int reps, bool verify) {
    const VersatileGemv<T> gemv(c, layout, m, n);
    return p.verified_median_ms(
        f, [&](cudaStream_t s) { gemv(p.A(), p.x(), p.y(), s); }, 1, reps, "step 11 (" + describe(c) + ")", verify);
}

template <class T>
Candidate search_best(gemv::DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                      std::int64_t n, int reps, std::map<Loads, Candidate>* by_loads) {
    Candidate best;
    best.ms = INFINITY;
    for (const VersatileConfig& c : candidate_configs(kernel_layout(layout, m, n), m, n, sizeof(T), f.sm_count)) {
        const double first = time_config(p, f, layout, m, n, c, 1, true);  // verified before it is timed
        if (first > 1.15 * best.ms) continue;  // clearly slower: not worth the full measurement
        const double ms = time_config(p, f, layout, m, n, c, reps, false);
        if (ms < best.ms) best = {c, ms};
        if (by_loads && (!by_loads->count(c.loads) || ms < (*by_loads)[c.loads].ms)) (*by_loads)[c.loads] = {c, ms};
    }
    return best;
}

#define GEMV_SEARCH_INSTANCES(T)                                                                                     \
    template double time_config<T>(gemv::DeviceProblem<T>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,    \
                                   std::int64_t, const VersatileConfig&, int, bool);                                 \
    template Candidate search_best<T>(gemv::DeviceProblem<T>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t, \
                                      std::int64_t, int, std::map<Loads, Candidate>*);
GEMV_SEARCH_INSTANCES(float)
GEMV_SEARCH_INSTANCES(double)
GEMV_SEARCH_INSTANCES(__nv_bfloat16)  // step 15's formats
GEMV_SEARCH_INSTANCES(__half)
GEMV_SEARCH_INSTANCES(__nv_fp8_e4m3)
