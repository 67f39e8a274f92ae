// The configuration for a shape when there is no tuning table.
#include <algorithm>

#include "integer.hpp"
#include "shape_rules.hpp"

namespace gemv {

VersatileConfig versatile_heuristic(Layout layout, std::int64_t m, std::int64_t n, std::size_t elem, GpuSize gpu) {
    const bool col = layout == Layout::col;
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
    const std::int64_t wanted = blocks_per_wave(gpu, c.block);  // one full wave
    // Each thread keeps at least 16 loads' worth of its slice of the columns.
    const std::int64_t per_slice = 16 * std::int64_t(c.threads_per_row) * (col ? 1 : c.vector);
    const std::int64_t max_splits = std::max<std::int64_t>(1, n / per_slice);
    c.blocks_per_row = std::min<std::int64_t>({std::max<std::int64_t>(1, div_up(wanted, blocks)), max_splits, 65535});
    c.combine = c.blocks_per_row > 1 ? Combine::last_block : Combine::store;
    return c;
}

}  // namespace gemv
