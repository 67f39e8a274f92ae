#include "chooser.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "errors.hpp"

namespace gemv::several {

double tensor_bf16_flops_per_clock_per_sm(int cc_major, int cc_minor) {
    if (cc_major < 8) return 0;
    if (cc_major == 8) return cc_minor == 0 ? 2048 : 1024;
    if (cc_major == 9) return 4096;
    return 8192;
}

double tensor_peak_gflops(int sm_count, int clock_khz, int cc_major, int cc_minor) {
    return tensor_bf16_flops_per_clock_per_sm(cc_major, cc_minor) * sm_count * (clock_khz * 1e3) / 1e9;
}

namespace {

// f(groups) with the groups a kernel that keeps 8·T vectors is compiled for: the staged FMA
// kernel's own, the tensor-core kernels' for both of them.
template <class F>
decltype(auto) with_groups_of(Kernel kernel, F&& f) {
    if (kernel == Kernel::fma_staged) return f(FmaGroups{});
    if (kernel == Kernel::tensor_bulk) return f(BulkGroups{});
    return f(TensorGroups{});
}

// The start of the plans that keep 8·T vectors (both tensor-core kernels and the staged FMA one):
// k and the group checked, the groups of vectors counted.
Plan tile_plan(Kernel kernel, int k, int group, const char* name, const char* per) {
    require_k(k);
    with_groups_of(kernel, [&](auto groups) {
        if (!groups.has(group))
            throw gemv::UsageError(std::string("the ") + name + " kernel keeps " + groups.list() + " vectors a " + per +
                                   ", not " + std::to_string(group));
    });
    Plan p;
    p.kernel = kernel;
    p.group = group;
    p.threads = kTensorThreads;
    p.groups = static_cast<int>(div_up(k, group));
    return p;
}

}  // namespace

Plan plan_tensor_cores(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count) {
    Plan p = tile_plan(Kernel::tensor_cores, k, group, "tensor-core", "warp");
    const bool row = layout == gemv::Layout::row;
    while (p.shared * 2 <= std::min(p.groups, 8)) p.shared *= 2;
    // Row-major: a block holds 128 / shared rows of a span of 128 (see the kernel); column-major:
    // 8 / shared warps of 64 rows.
    p.blocks = row ? div_up(m, kTensorRowsRow) * p.shared : div_up(m, 64 * (8 / p.shared));
    require_grid(p.blocks * div_up(p.groups, p.shared));
    const std::int64_t step = row ? kTensorStepRow : kTensorStepCol;
    slice_columns(p, n, sm_count, div_up(m, row ? 16 : 64), 256, step);
    return p;
}

namespace {

// The slices of a staged kernel's plan: the count whose waves of blocks take the least time, a
// block costing its chunks plus two for filling its pipeline, so that the last wave is not mostly
// empty. A last wave with fewer blocks than the SMs hold counts as a full one, or, where its blocks
// are held back by DRAM alone, as its share of one, down to `busy_enough` (kBusyEnough).
void slice_by_waves(Plan& p, std::int64_t n, int chunk_cols, int sm_count, int blocks_per_sm,
                    double busy_enough = 1.0) {
    const std::int64_t chunks = div_up(n, chunk_cols);
    const std::int64_t slots = std::int64_t(std::max(1, sm_count)) * std::max(1, blocks_per_sm);
    std::int64_t slices = 1;
    double best = 0;
    for (std::int64_t s = 1; s <= std::min<std::int64_t>(chunks, 1024); ++s) {
        const std::int64_t blocks = p.blocks * p.groups * s, last = blocks % slots;
        const double waves = double(blocks / slots) + (last ? std::max(double(last) / slots, busy_enough) : 0.0);
        const double cost = waves * double(div_up(chunks, s) + 2);
        if (s == 1 || cost < best * 0.999) best = cost, slices = s;
    }
    p.per = div_up(chunks, slices) * chunk_cols;
    p.slices = static_cast<int>(div_up(n, p.per));
}

}  // namespace

Plan plan_tensor_staged(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count,
                        int blocks_per_sm) {
    Plan p = tile_plan(Kernel::tensor_staged, k, group, "staged tensor-core", "block");
    p.blocks = div_up(m, kStagedRows);
    require_grid(p.blocks * p.groups);  // grid.x: the blocks of rows of every group side by side
    p.pack_x = staged_packs_x(m, n, k, group);
    p.whole_lines = staged_whole_lines(layout, m, n, p.pack_x);
    const int cols = staged_cols(p.whole_lines, group);
    slice_by_waves(p, n, cols, sm_count, blocks_per_sm, cols == kStagedWideCols ? kBusyEnough : 1.0);
    return p;
}

Plan plan_tensor_bulk(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count,
                      int cluster) {
    if (!bulk_fits(layout, m, n))
        throw gemv::UsageError("the bulk tensor-core kernel needs n >= " + std::to_string(kBulkLeastCols) +
                               " and every line of A and X on 16 bytes (n, and m for column-major A, multiples of 8)");
    if (!BulkClusters::has(cluster))
        throw gemv::UsageError("the bulk tensor-core kernel runs in clusters of " + BulkClusters::list() +
                               " blocks, not " + std::to_string(cluster));
    Plan p = tile_plan(Kernel::tensor_bulk, k, group, "bulk tensor-core", "block");
    p.threads = kBulkThreads;
    p.cluster = cluster;
    p.blocks = div_up(div_up(m, kBulkRows), cluster) * cluster;
    require_grid(p.blocks * p.groups);
    p.whole_lines = true;
    const std::int64_t chunks = div_up(n, kBulkCols);
    const std::int64_t busy = std::int64_t(bulk_busy_share(group) * std::max(1, sm_count));
    const std::int64_t slices = std::clamp<std::int64_t>(busy / (p.blocks * p.groups), 1, chunks);
    p.per = div_up(chunks, slices) * kBulkCols;
    p.slices = static_cast<int>(div_up(n, p.per));
    return p;
}

Plan plan_fma_staged(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count,
                     int blocks_per_sm, FmaChunks chunks) {
    Plan p = tile_plan(Kernel::fma_staged, k, group, "staged FMA", "block");
    if (chunks == FmaChunks::wide && !fma_wide_compiled(layout, group))
        throw gemv::UsageError("wide chunks are for row-major A and at most 32 vectors a block");
    p.chunks = chunks;
    p.threads = kFmaThreads;
    p.blocks = div_up(m, fma_rows(chunks));
    require_grid(p.blocks * p.groups);
    slice_by_waves(p, n, fma_cols(chunks), sm_count, blocks_per_sm);
    p.pack_x = n % 4 != 0 && m >= 16 * std::int64_t(k);
    return p;
}

int group_for(Kernel kernel, int k) {
    if (kernel == Kernel::register_blocked) return register_group_for(k);
    return with_groups_of(kernel, [k](auto groups) {
        const int most = groups.values[std::size(groups.values) - 1];
        const int fewest = int(div_up(k, most));  // groups of k: one where a group holds k
        for (int g : groups.values)
            if (div_up(k, g) == fewest) return g;
        return most;
    });
}

bool bulk_timed(int group, int k) {
    return group == group_for(Kernel::tensor_bulk, k) ||
           (k > 64 && group == group_for(Kernel::tensor_bulk, std::max(64, int(div_up(k, 2)))));
}

bool bulk_clustered(int group, int k) {
    return group >= kBulkClusteredFrom && group == group_for(Kernel::tensor_bulk, k);
}

std::vector<Candidate> candidates(gemv::Precision precision, int k, gemv::Layout layout, int cc_major, std::int64_t m,
                                  std::int64_t n, bool bulk_runs) {
    require_k(k);
    std::vector<Candidate> out = {{Kernel::register_blocked, group_for(Kernel::register_blocked, k)}};
    if (cc_major < 8) return out;  // the others need cp.async, and bf16 mma
    if (precision == gemv::Precision::f32) {
        out.push_back({Kernel::fma_staged, group_for(Kernel::fma_staged, k)});
    } else if (precision == gemv::Precision::bf16) {
        const int most = layout == gemv::Layout::row ? kTensorMostRow : kTensorMostCol;
        out.push_back({Kernel::tensor_cores, std::min(group_for(Kernel::tensor_cores, k), most)});
        out.push_back({Kernel::tensor_staged, group_for(Kernel::tensor_staged, k)});
        if (bulk_runs && bulk_fits(layout, m, n))
            for (int g : kBulkGroups)
                if (bulk_timed(g, k))
                    for (int c : kBulkClusters)
                        if (c == 1 || bulk_clustered(g, k)) out.push_back({Kernel::tensor_bulk, g, c});
    }
    return out;
}

gemv::Traffic planned_traffic(const Plan& p, std::int64_t m, std::int64_t n, int k, gemv::Layout layout) {
    if (p.kernel == Kernel::register_blocked) return traffic_of(p, m, n, k, layout);
    const double nk = double(n) * double(k);
    gemv::Traffic t;
    t.a_elems = double(m) * double(n) * p.groups;
    if (p.kernel == Kernel::tensor_cores) {
        t.x_elems = double(div_up(m, layout == gemv::Layout::row ? 16 : 64)) * nk;
    } else {
        const int rows = p.kernel == Kernel::tensor_staged ? kStagedRows
                         : p.kernel == Kernel::tensor_bulk ? kBulkRows
                                                           : fma_rows(p.chunks);
        t.x_elems = (double(div_up(m, rows)) + (p.pack_x ? 2 : 0)) * nk;
    }
    t.y_elems = double(m) * double(k) * p.slices;
    return t;
}

}  // namespace gemv::several
