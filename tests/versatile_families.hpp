// The configurations of step 11's versatile kernel a test runs on one shape: one of each family
// the tuner explores, in the widest vector the shape allows. Steps 11 and 15 check them all.
#pragma once

#include <cstdint>
#include <vector>

#include "shape_rules.hpp"

namespace gemv_test {

inline void add(std::vector<gemv::VersatileConfig>& out, const gemv::VersatileConfig& c, gemv::Layout layout,
                std::int64_t m, std::int64_t n, std::size_t elem) {
    if (gemv::versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
}

// The families the tuner explores: one thread per row group, threads along the columns or along
// a row, whole blocks per row, rows split across blocks (each way of combining), flat loads,
// tiles of whole columns or rows, and the heuristic.
inline std::vector<gemv::VersatileConfig> families(gemv::Layout problem_layout, std::int64_t m, std::int64_t n,
                                                   std::size_t elem) {
    const gemv::Layout layout = gemv::kernel_layout(problem_layout, m, n);
    const bool col = layout == gemv::Layout::col;
    const int widest = gemv::widest_vector_of(elem);
    std::vector<gemv::VersatileConfig> out;
    for (int block : {96, 256})
        for (int along : {1, 4, 32, 64, block})  // threads down a column (column-major) or along a row
            for (int unroll : {1, 4, 16})        // 16: only for loads narrower than 16 bytes
                for (std::int64_t splits : {1, 3})
                    for (int vector = widest; vector >= 1; vector /= 2) {
                        if (block % along) break;
                        const gemv::Combine combine = splits == 1 ? gemv::Combine::store : gemv::Combine::last_block;
                        gemv::VersatileConfig c{block, vector, unroll, col ? block / along : along, splits, combine};
                        if (gemv::versatile_invalid(c, layout, m, n, elem).empty()) {
                            out.push_back(c);
                            if (splits > 1 && unroll == 1)
                                for (gemv::Combine other : {gemv::Combine::atomic, gemv::Combine::atomic_last})
                                    add(out, {c.block, vector, 1, c.threads_per_row, splits, other}, layout, m, n,
                                        elem);
                            break;  // the widest vector this shape allows
                        }
                    }
    // Realigned 16-byte loads, in place whatever m (n) is: a thread per row group, threads along
    // the columns or a row, rows split across blocks (each way of combining).
    for (int along : {1, 32, 256})
        for (int unroll : {1, 4})
            for (std::int64_t splits : {1, 3})
                for (gemv::Combine combine : {gemv::Combine::store, gemv::Combine::last_block, gemv::Combine::atomic,
                                              gemv::Combine::atomic_last, gemv::Combine::cluster})
                    if ((combine == gemv::Combine::store) == (splits == 1))
                        add(out,
                            {256, widest, unroll, col ? 256 / along : along, splits, combine, gemv::Loads::realigned},
                            layout, m, n, elem);
    // Staggered 16-byte loads, aligned whatever m (n) is: threads along the columns (4 and 8, so
    // that each thread's columns start at one place in 16 bytes) or along a row, rows split across
    // blocks (each way of combining).
    for (int along : {4, 8, 32, 256})
        for (int unroll : {1, 4})
            for (std::int64_t splits : {1, 3})
                for (gemv::Combine combine : {gemv::Combine::store, gemv::Combine::last_block, gemv::Combine::atomic,
                                              gemv::Combine::atomic_last, gemv::Combine::cluster})
                    if ((combine == gemv::Combine::store) == (splits == 1))
                        add(out, {256, widest, unroll, along, splits, combine, gemv::Loads::staggered}, layout, m, n,
                            elem);
    for (std::int64_t splits : {2, 3, 8})  // clusters of blocks adding in shared memory
        add(out, {256, 1, 4, col ? 8 : 64, splits, gemv::Combine::cluster}, layout, m, n, elem);
    // Flat. Column-major: on the smallest grid and a larger one, each way of adding atomically. Row-major:
    // a block's rows through shared memory, with 1, 4 or 32 threads a row.
    for (int block : {96, 256}) {
        const std::int64_t unit = gemv::flat_grid_unit(m, block, widest);
        if (col)
            for (std::int64_t grid : {unit, 7 * unit})
                for (gemv::Combine combine : {gemv::Combine::atomic, gemv::Combine::atomic_last})
                    add(out,
                        {block, widest, 2, block, grid, grid == 1 ? gemv::Combine::store : combine, gemv::Loads::flat},
                        layout, m, n, elem);
        else
            for (int along : {1, 4, 32})
                add(out, {block, widest, 4, along, 1, gemv::Combine::store, gemv::Loads::flat}, layout, m, n, elem);
    }
    for (int unroll : {1, 4}) {  // tiles: m (column-major) or n (row-major) of 2 or 3
        add(out, {256, widest, unroll, 1, 1, gemv::Combine::store, gemv::Loads::tiles}, layout, m, n, elem);
        for (std::int64_t grid : {1, 5})
            for (gemv::Combine combine : {gemv::Combine::atomic, gemv::Combine::atomic_last})
                add(out, {96, widest, unroll, 96, grid, grid == 1 ? gemv::Combine::store : combine, gemv::Loads::tiles},
                    layout, m, n, elem);
    }
    out.push_back(gemv::versatile_heuristic(layout, m, n, elem, {132, 2048}));  // an H100
    return out;
}

}  // namespace gemv_test
