// A tuned configuration fitted to a shape it was not tuned at: the table holds the fastest
// configuration at each mesh point, and a shape between the points runs its nearest point's
// configuration with the grid and the threads moved to the new shape.
#include <algorithm>
#include <cmath>

#include "integer.hpp"
#include "shape_rules.hpp"

namespace gemv {

namespace {

// The tuned point's configuration and shape, and the shape it is fitted to.
struct Fit {
    const VersatileConfig& tuned;
    std::int64_t tuned_m, tuned_n;
    GpuSize tuned_gpu;  // the GPU the table was tuned on
    Layout layout;
    std::int64_t m, n;
    std::size_t elem;
    GpuSize gpu;
    bool measured = true;  // `tuned` is the point's own pick (not one of its neighbours, never measured there)
    bool col() const { return layout == Layout::col; }
    std::int64_t along() const { return col() ? m : n; }  // the dimension the loads run along
    bool other_gpu() const { return tuned_gpu.sms != gpu.sms || tuned_gpu.threads_per_sm != gpu.threads_per_sm; }
    // The tuned grid held a number of waves of blocks (on the GPU it was tuned on); a shape with
    // another number of row blocks, or another GPU, keeps that number of whole waves, to the
    // nearest `unit`-sized step.
    std::int64_t units_keeping_waves(const VersatileConfig& c, std::int64_t tuned_blocks, std::int64_t unit) const {
        const double waves = double(tuned_blocks) / double(blocks_per_wave(tuned_gpu, c.block));
        const std::int64_t wave = blocks_per_wave(gpu, c.block);
        const double blocks = waves < 1 ? double(tuned_blocks) : double(std::llround(waves) * wave);
        return std::max<std::int64_t>(1, std::llround(blocks / double(unit)));
    }
};

// Row-major rows moved from flat to in place get 16-byte loads and this many threads a row (fewer
// where fewer cover the row: fit_threads).
constexpr int kInPlaceRowThreads = 8;

// Tiles hold whole columns of 2 or 3 rows (whole rows of 2 or 3 columns): elsewhere the same
// threads read flat, and the flat rules fit them to the shape.
void fit_flat(const Fit& f, VersatileConfig& c) {
    if (c.loads == Loads::tiles && f.along() != 2 && f.along() != 3) {
        c.loads = Loads::flat;
        if (!f.col()) c.threads_per_row = 1;
    }
    if (c.loads != Loads::flat) return;
    const std::int64_t m = f.m, lanes_for_m = m / c.vector;
    if (!f.col()) {
        // Flat row-major: fewer rows a block (more threads a row) until they fit in shared memory;
        // rows too long for that are read in place.
        while (c.threads_per_row < 32 && flat_row_tile_bytes(c, f.n, f.elem) > kFlatTileBytes) c.threads_per_row *= 2;
        if (flat_row_tile_bytes(c, f.n, f.elem) > kFlatTileBytes) c.loads = Loads::aligned;
        // Rows flat does not suit (a multiple of 32 bytes): 16-byte loads in place, 8 threads a row
        // (fewer where fewer cover it), a warp's loads on 4 rows at a time. Threads that cover a
        // longer row once measured slower on the H200: double 7409865 x 36, 32 threads at 66 % of
        // the ceiling, 8 at 85 %.
        if (c.loads == Loads::flat && !flat_row_suits(f.n, f.elem)) {
            c.loads = Loads::aligned;
            c.threads_per_row =
                static_cast<int>(std::min<std::int64_t>(kInPlaceRowThreads, pow2_at_least(f.n / c.vector)));
        }
        // A shorter row than the tuned one, of at most 16 bytes, that aligned loads of 4 bytes or
        // more follow: a block's tile shrinks with the row, too few bytes stay in flight, and the
        // row is a load or a few in place (fp8, 2^26 x 4 on a pick tuned at n = 12: 43 % of the
        // ceiling flat, 96 % in place).
        const int vector = widest_vector(f.layout, f.m, f.n, f.elem);
        if (f.n < f.tuned_n && f.n * std::int64_t(f.elem) <= 16 && vector * f.elem >= 4) {
            c.loads = Loads::aligned;
            c.vector = vector;
            c.threads_per_row = 1;
        }
    } else if (m != f.tuned_m && m % c.vector == 0 && lanes_for_m <= c.block && power_of_two(lanes_for_m)) {
        // A row group of m / V threads covers these rows exactly, and then it reads faster than
        // flat: the same threads, whole waves.
        c.loads = Loads::aligned;
        c.threads_per_row = static_cast<int>(c.block / lanes_for_m);
        c.blocks_per_row = std::min<std::int64_t>({f.units_keeping_waves(c, c.blocks_per_row, 1), f.n, 65535});
    } else if (m <= kFlatMaxRows) {
        const std::int64_t unit = flat_grid_unit(m, c.block, c.vector);  // the grid this m needs
        if (m != f.tuned_m || f.other_gpu()) c.blocks_per_row = f.units_keeping_waves(c, c.blocks_per_row, unit) * unit;
    } else {  // too many rows to read flat: a thread per row group
        c.loads = Loads::aligned;
        c.threads_per_row = 1;
        c.blocks_per_row = 1;
        c.combine = Combine::store;
    }
}

// Aligned loads whose vector does not divide this shape (only for a table without its vector
// class): a narrower vector that divides the dimension, the same bytes a row group covers per pass.
void fit_vector(const Fit& f, VersatileConfig& c) {
    if (c.loads != Loads::aligned || f.along() % c.vector == 0) return;
    const int vector = widest_vector(f.layout, f.m, f.n, f.elem);
    const std::int64_t lanes =
        std::int64_t(f.col() ? c.block / c.threads_per_row : c.threads_per_row) * c.vector / vector;
    const int clamped = static_cast<int>(std::clamp<std::int64_t>(lanes, 1, c.block));
    c.threads_per_row = f.col() ? c.block / clamped : clamped;
    c.vector = vector;
}

// In place: never more threads along a row group than it takes to cover it once (a configuration
// tuned at n = 12 would leave three of every four threads idle at n = 4).
void fit_threads(const Fit& f, VersatileConfig& c) {
    if (!in_place(c)) return;
    const std::int64_t cover = pow2_at_least((f.along() + c.vector - 1) / c.vector);
    if (f.col()) {
        const std::int64_t lanes = std::min<std::int64_t>(c.block / c.threads_per_row, cover);
        c.threads_per_row = static_cast<int>(c.block / lanes);
    } else {
        c.threads_per_row = static_cast<int>(std::min<std::int64_t>(c.threads_per_row, cover));
    }
    if (c.loads == Loads::staggered && f.col() && row_blocks(f.tuned, f.layout, f.tuned_m, f.tuned_n) == 1) {
        // Staggered blocks own one row group less than their lanes cover: where the tuned point fit
        // one block, keep one (127 rows on a configuration tuned at 91 would leave a second block of
        // 3 rows), with enough threads along the columns left for one start in 16 bytes.
        const std::int64_t lanes = pow2_at_least((f.m + c.vector - 1) / c.vector + 1);
        if (lanes > c.block / c.threads_per_row && lanes <= c.block / staggered_threads_per_row(f.m, c.vector))
            c.threads_per_row = static_cast<int>(c.block / lanes);
    }
}

// In place, split rows: as many waves of blocks as at the tuned point; then the combine that the
// number of blocks a row calls for.
void fit_split(const Fit& f, VersatileConfig& c) {
    if (in_place(c) && c.blocks_per_row > 1 && c.combine != Combine::cluster) {
        const std::int64_t tuned_rows = row_blocks(f.tuned, f.layout, f.tuned_m, f.tuned_n);
        const std::int64_t rows = row_blocks(c, f.layout, f.m, f.n);
        if (rows != tuned_rows || f.other_gpu())
            c.blocks_per_row =
                std::min<std::int64_t>(f.units_keeping_waves(c, tuned_rows * c.blocks_per_row, rows), 65535);
    }
    if (in_place(c)) c.blocks_per_row = std::min(c.blocks_per_row, f.n);
    if (c.blocks_per_row == 1) c.combine = Combine::store;
    if (c.blocks_per_row > 1 && c.combine == Combine::store)
        c.combine = in_place(c) ? Combine::last_block : Combine::atomic_last;
}

// In place, row-major: loads past a row's last whole pass of unrolled loads go one at a time, with
// less in flight. A row of another length than the tuned one can leave most of its loads there: a
// configuration tuned at n = 2193 bf16 (128 threads a row, 16 loads each, 2048 columns a pass) read
// 4919 x 1885 all in its remainder on the H100, at 0.56x cuBLAS. The unroll is halved, down to 2,
// until at most a quarter of the row (a block's slice of it) is left to the remainder, or no more
// than at the tuned point (1 load in flight measured slower than the remainder it saves). Short rows
// (a pass of the threads covers a row; the unroll counts rows a thread) have no remainder, and where
// the tuned point's were short, or its neighbour was never measured there, there is none to compare
// with.
void fit_unroll(const Fit& f, VersatileConfig& c) {
    if (!in_place(c) || f.col() || !in_place(f.tuned) || short_rows(c, f.layout, f.n)) return;
    const auto remainder = [](const VersatileConfig& k, std::int64_t n) {
        const std::int64_t slice = div_up(n, k.blocks_per_row);
        return double(slice % (std::int64_t(k.threads_per_row) * k.vector * k.unroll)) / double(slice);
    };
    const bool compare = f.measured && !short_rows(f.tuned, f.layout, f.tuned_n);
    const double allowed = compare ? std::max(0.25, remainder(f.tuned, f.tuned_n)) : 0.25;
    while (c.unroll > 2 && remainder(c, f.n) > allowed) c.unroll /= 2;
}

VersatileConfig fit(const Fit& f) {
    VersatileConfig c = f.tuned;
    fit_flat(f, c);
    fit_vector(f, c);
    if (c.vector * f.elem >= 16) c.unroll = std::min(c.unroll, 4);  // 8 and 16 in flight are for narrow loads
    fit_threads(f, c);
    fit_split(f, c);
    fit_unroll(f, c);
    return c;
}

}  // namespace

VersatileConfig fit_to_shape(const VersatileConfig& tuned, std::int64_t tuned_m, std::int64_t tuned_n,
                             GpuSize tuned_gpu, Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                             GpuSize gpu) {
    return fit({tuned, tuned_m, tuned_n, tuned_gpu, layout, m, n, elem, gpu});
}

// A table's points lie about a factor of two apart in n, and the best configuration for a shape
// between two points can be neither point's but one step from them along one of the tuner's axes:
// - threads a row (double 1210267 x 82 on the H100: both nearest points give 32 threads a row, 34 %
//   slower than 16);
// - the way of reading a row: another GPU's table can read in place where this GPU reads faster
//   flat (float 7409865 x 36 on the H200 with the H100's table: 0.74x its own), or take narrow
//   aligned loads where 16-byte staggered ones read faster (float 1 x 200962593 on the H200, 512
//   threads a row and 2112 blocks: 81 % of the ceiling with 4-byte loads, 83 % with 16-byte ones);
// - loads in flight (float 539 x 25553 row-major on the H200: the search's best has 16, the pick 4);
// - blocks a row, where a row is split: the tuner's grids are of one or four waves, and a long row
//   can want more (float 1 x 200962593 on the H200: 80 % of the ceiling at 2112 blocks, 94 % at
//   8448; slides/data/step11/NOTES.md).
std::vector<Neighbour> fitted_neighbours(const VersatileConfig& tuned, std::int64_t tuned_m, std::int64_t tuned_n,
                                         GpuSize tuned_gpu, Layout layout, std::int64_t m, std::int64_t n,
                                         std::size_t elem, GpuSize gpu) {
    std::vector<Neighbour> out;
    if (tuned.loads == Loads::tiles) return out;  // tiles are for 2 or 3 rows or columns alone
    // A configuration with one change, fitted: the tuned one, or for the threads a row the fitted one
    // (below). One past the fields' ranges (twice an unroll of 16, or of 4 with 16-byte loads) is
    // cut back by fit or refused by versatile_invalid.
    const auto step = [&](const VersatileConfig& from, const char* what, auto change) {
        VersatileConfig c = from;
        change(c);
        Fit f{c, tuned_m, tuned_n, tuned_gpu, layout, m, n, elem, gpu};
        f.measured = false;
        out.push_back({fit(f), what});
    };
    // Where the fit reads the shape another way than the tuned point did (a flat row moved in
    // place), the tuned threads a row meant something else: the threads step from the fitted
    // configuration (double 1566834 x 32 on the H200, tuned flat at n = 34: 8 threads a row in
    // place, 20 % slower than 16).
    const VersatileConfig fitted = fit({tuned, tuned_m, tuned_n, tuned_gpu, layout, m, n, elem, gpu});
    const VersatileConfig& threads_from = fitted.loads != tuned.loads ? fitted : tuned;
    if (threads_from.threads_per_row > 1)
        step(threads_from, "half its threads a row", [](VersatileConfig& c) { c.threads_per_row /= 2; });
    if (2 * threads_from.threads_per_row <= threads_from.block)
        step(threads_from, "twice its threads a row", [](VersatileConfig& c) { c.threads_per_row *= 2; });
    if (tuned.unroll > 2) step(tuned, "half its loads in flight", [](VersatileConfig& c) { c.unroll /= 2; });
    step(tuned, "twice its loads in flight", [](VersatileConfig& c) { c.unroll *= 2; });
    if (in_place(tuned) && tuned.blocks_per_row > 1 && tuned.combine != Combine::cluster)
        step(tuned, "four times its blocks a row", [](VersatileConfig& c) { c.blocks_per_row *= 4; });
    const int widest = widest_vector_of(elem);
    if (tuned.loads == Loads::aligned && tuned.vector < widest)
        step(tuned, "16-byte staggered loads", [&](VersatileConfig& c) {
            c.vector = widest;  // the same threads (fit_threads keeps no more than cover the row)
            c.loads = Loads::staggered;
        });
    if (tuned.loads == Loads::staggered || tuned.loads == Loads::realigned)
        step(tuned, "aligned loads", [](VersatileConfig& c) {
            c.loads = Loads::aligned;  // fit_vector narrows the vector to one that divides the loads' dimension
        });
    if (layout == Layout::row && in_place(tuned))
        step(tuned, "read flat", [&](VersatileConfig& c) {
            c = NamedConfig().block(c.block).vector(widest).unroll(c.unroll).loads(Loads::flat);  // a thread a row
        });
    if (layout == Layout::row && !in_place(tuned))
        step(tuned, "read in place", [](VersatileConfig& c) {
            c.loads = Loads::aligned;
            c.threads_per_row = std::min(kInPlaceRowThreads, c.block);
        });
    return out;
}

}  // namespace gemv
