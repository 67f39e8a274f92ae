#include "several_vectors.hpp"

#include <algorithm>
#include <climits>
#include <iterator>
#include <stdexcept>

#include "errors.hpp"

namespace gemv::several {

double model_intensity(std::int64_t m, std::int64_t n, std::int64_t k, gemv::Precision precision) {
    return static_cast<double>(gemv::model_flops(m, n, k)) / static_cast<double>(gemv::model_bytes(m, n, precision, k));
}

double fp32_lanes_per_sm(int cc_major, int cc_minor) {
    if (cc_major < 8 || (cc_major == 8 && cc_minor == 0)) return 64;
    return 128;
}

double fma_peak_gflops(int sm_count, int clock_khz, int cc_major, int cc_minor) {
    return 2.0 * fp32_lanes_per_sm(cc_major, cc_minor) * sm_count * (clock_khz * 1e3) / 1e9;
}

double roof_gflops(double ceiling_gbps, double intensity, double peak_gflops) {
    return std::min(ceiling_gbps * intensity, peak_gflops);
}

double ridge_intensity(double ceiling_gbps, double peak_gflops) {
    return peak_gflops / ceiling_gbps;
}

const char* to_string(FmaChunks chunks) {
    switch (chunks) {
        case FmaChunks::wide:
            return "wide chunks";
        case FmaChunks::few_rows:
            return "chunks of few rows";
        default:
            return "narrow chunks";
    }
}

const char* to_string(Kernel kernel) {
    switch (kernel) {
        case Kernel::tensor_cores:
            return "tensor cores";
        case Kernel::tensor_staged:
            return "tensor cores, staged";
        case Kernel::fma_staged:
            return "FMA, staged";
        case Kernel::tensor_bulk:
            return "tensor cores, bulk copies";
        default:
            return "register-blocked";
    }
}

void require_k(int k) {
    if (k < 1 || k > kMaxVectors)
        throw gemv::UsageError("k must be between 1 and " + std::to_string(kMaxVectors) + ", not " + std::to_string(k));
}

void require_grid(std::int64_t blocks) {
    if (blocks > INT_MAX)
        throw gemv::UsageError("steps 16 and 17 take at most " + std::to_string(INT_MAX) + " blocks of rows");
}

void slice_columns(Plan& p, std::int64_t n, int sm_count, std::int64_t warps, std::int64_t least, std::int64_t align) {
    const std::int64_t want = 32LL * std::max(1, sm_count);
    const std::int64_t have = warps * p.groups;
    std::int64_t slices = 1;
    if (have < want) slices = std::min<std::int64_t>(div_up(want, have), std::max<std::int64_t>(1, n / least));
    slices = std::min<std::int64_t>(slices, 65535);
    p.per = div_up(div_up(n, slices), align) * align;
    p.slices = static_cast<int>(div_up(n, p.per));
}

Plan plan_register_blocked(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count) {
    require_k(k);
    if (!RegisterGroups::has(group))
        throw gemv::UsageError("the register-blocked kernel keeps 1, 2, 4, 8 or 16 vectors, not " +
                               std::to_string(group));
    Plan p;
    p.kernel = Kernel::register_blocked;
    p.group = group;
    p.threads = 256;
    p.groups = static_cast<int>(div_up(k, group));
    p.rows_per_warp = layout == gemv::Layout::col ? rows_per_lane_col(group) : rows_per_warp_for(group);
    if (layout == gemv::Layout::col)  // a warp 32·R rows, R a lane
        p.blocks = div_up(m, std::int64_t(p.threads) * p.rows_per_warp);
    else  // a warp R rows
        p.blocks = div_up(div_up(m, p.rows_per_warp), p.threads / 32);
    require_grid(p.blocks);
    const std::int64_t warps =
        layout == gemv::Layout::col ? div_up(m, 32 * p.rows_per_warp) : div_up(m, p.rows_per_warp);
    slice_columns(p, n, sm_count, warps, 1024, 32);
    return p;
}

int register_group_for(int k) {
    for (int g : kRegisterGroups)
        if (g >= k) return g;
    return kRegisterGroups[std::size(kRegisterGroups) - 1];
}

gemv::Traffic traffic_of(const Plan& p, std::int64_t m, std::int64_t n, int k, gemv::Layout layout) {
    if (p.kernel != Kernel::register_blocked) throw std::logic_error("traffic_of takes a register-blocked plan");
    const double nk = double(n) * double(k);
    gemv::Traffic t;
    t.a_elems = double(m) * double(n) * p.groups;
    if (layout == gemv::Layout::col)
        t.x_elems = double(div_up(m, 32 * p.rows_per_warp)) * nk;
    else
        t.x_elems = double(div_up(m, p.rows_per_warp)) * nk;
    t.y_elems = double(m) * double(k) * p.slices;
    return t;
}

}  // namespace gemv::several
