// The plan of a configuration, and the one way every plan is launched.
#include "gemv_versatile.cuh"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "errors.hpp"
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"
#include "shape_rules.hpp"

namespace gemv {

namespace {

// The workspace of atomic_last and last_block: the partial sums (atomic_last: m running sums;
// last_block: one row of m a block along the row), then one arrival counter per row block, 16-byte
// aligned.
std::size_t partial_bytes(const VersatilePlan& p, std::size_t elem) {
    const std::int64_t rows = p.config.combine == Combine::last_block ? p.config.blocks_per_row : 1;
    return (std::size_t(rows * p.m) * elem + 15) / 16 * 16;
}

Family family_of(const VersatileConfig& c, Layout layout, std::int64_t n) {
    const bool col = layout == Layout::col;
    if (c.loads == Loads::flat) return col ? Family::col_flat : Family::row_flat;
    if (c.loads == Loads::tiles) return col ? Family::col_tiles : Family::row_tiles;
    if (short_rows(c, layout, n)) return col ? Family::col_short : Family::row_short;
    return col ? Family::col : Family::row;
}

template <class T>
const void* kernel_of(const VersatilePlan& p) {
    const VersatileConfig& c = p.config;
    switch (p.family) {
        case Family::col:
            return col_kernel<T>(c.vector, c.unroll, c.loads);
        case Family::col_short:
            return col_short_kernel<T>(c.vector, c.unroll);
        case Family::col_flat:
            return col_flat_kernel<T>(c.vector, c.unroll);
        case Family::col_tiles:
            return col_tiles_kernel<T>(int(p.m), c.unroll);
        case Family::row:
            return row_kernel<T>(c.vector, c.unroll, c.loads);
        case Family::row_short:
            return row_short_kernel<T>(c.vector, c.unroll);
        case Family::row_flat:
            return row_flat_kernel<T>(c.vector, c.unroll);
        case Family::row_tiles:
            return row_tiles_kernel<T>(int(p.n), c.unroll);
    }
    return nullptr;
}

// What the plan loads and stores, in elements: A once; x as each family loads it; y as each way
// of combining touches it.
Traffic traffic_of(const VersatilePlan& p) {
    const VersatileConfig& c = p.config;
    const double m = double(p.m), n = double(p.n), mn = m * n, blocks = double(c.blocks_per_row);
    double a = mn, x = mn;  // A once; x loaded beside each element of A
    switch (p.family) {
        case Family::col:  // once per thread and column: V rows share it
            x = double(div_up(p.m, c.vector)) * n;
            if (c.loads == Loads::staggered) {
                // Where m is not a multiple of V, each block's loads start up to V - 1 rows early
                // and end as late: one row group more a block, in all but the aligned columns.
                const double extra =
                    double(p.launch.grid.x) * n * double(c.vector - std::gcd(p.m, std::int64_t(c.vector)));
                a += extra;
                x += extra / c.vector;
            }
            break;
        case Family::row:  // beside each element; staggered, two loads of x where a row starts off 16 bytes
            if (c.loads == Loads::staggered) x = mn * (2 - double(std::gcd(p.n, std::int64_t(c.vector))) / c.vector);
            break;
        case Family::col_short:  // once per thread and column, for its U row groups
            x = double(div_up(p.m, std::int64_t(c.vector) * c.unroll)) * n;
            break;
        case Family::col_tiles:  // once per tile of V columns
            x = n;
            break;
        case Family::row_short:  // once per thread, for its U rows
            x = double(div_up(p.m, c.unroll)) * std::min(n, double(c.threads_per_row) * c.vector);
            break;
        case Family::row_tiles:  // once per thread
            x = double(p.launch.grid.x) * c.block * n;
            break;
        default:
            break;
    }
    double y = m;
    if (c.combine == Combine::atomic) y = m + 2 * m * blocks;           // memset, then read-add-write per block
    if (c.combine == Combine::atomic_last) y = 2 * m * blocks + 3 * m;  // read-add-write per block; moved, zeroed
    if (c.combine == Combine::last_block) y = 2 * m * blocks + m;       // partial sums written, read, y stored
    return {a, x, y};
}

// A launch gets 48 KiB of shared memory, static and dynamic together, unless its kernel is allowed
// more: the fold buffer alone may take 48 KiB (versatile_invalid's limit) beside the kernel's few
// static bytes. The same value for every plan, so that no plan shrinks another's. The occupancy API
// reads it too.
void allow_fold_buffer(const Launch& launch) {
    if (launch.dynamic_shared)
        GEMV_CUDA_CHECK(cudaFuncSetAttribute(launch.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(kFlatTileBytes)));
}

}  // namespace

const char* to_string(Family f) {
    switch (f) {
        case Family::col:
            return "col";
        case Family::col_short:
            return "col_short";
        case Family::col_tiles:
            return "col_tiles";
        case Family::row_tiles:
            return "row_tiles";
        case Family::col_flat:
            return "col_flat";
        case Family::row:
            return "row";
        case Family::row_short:
            return "row_short";
        case Family::row_flat:
            return "row_flat";
    }
    return "?";
}

std::string describe(const VersatilePlan& p) {
    return std::string(to_string(p.family)) + " kernel, " + layout_word(p.layout);
}

template <class T>
VersatilePlan plan_versatile(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n) {
    using Acc = accumulator_t<T>;  // what sums are kept in: shared memory and the workspace
    VersatilePlan p;
    p.layout = kernel_layout(layout, m, n);
    const std::string why = versatile_invalid(c, p.layout, m, n, sizeof(T));
    if (!why.empty())
        throw UsageError("step 11 cannot run " + describe(c) + " on " + std::to_string(m) + " x " + std::to_string(n) +
                         " " + layout_word(p.layout) + ": " + why);
    if (c.combine == Combine::cluster) {
        int device = 0, major = 0;
        GEMV_CUDA_CHECK(cudaGetDevice(&device));
        GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (major < 9) throw UsageError("thread-block clusters need compute capability 9.0 or newer");
    }
    p.config = c;
    p.m = m;
    p.n = n;
    p.family = family_of(c, p.layout, n);
    p.cols_per_block = div_up(div_up(n, c.blocks_per_row), c.vector) * c.vector;
    const int lanes = c.block / c.threads_per_row;  // threads down a column, or rows a block
    const unsigned blocks = static_cast<unsigned>(row_blocks(c, p.layout, m, n));
    const bool cluster = c.combine == Combine::cluster;
    Launch& l = p.launch;
    l.block = dim3(c.block);
    l.kernel = kernel_of<T>(p);
    if (!l.kernel) throw std::logic_error("step 11 has no instance of " + describe(c) + " (versatile_kernels.cuh)");
    switch (p.family) {
        case Family::col: {
            l.grid = dim3(blocks, static_cast<unsigned>(c.blocks_per_row));
            l.dynamic_shared = static_cast<std::size_t>(col_fold_bytes(c, sizeof(Acc)));
            break;
        }
        case Family::row:
            l.grid = dim3(blocks, static_cast<unsigned>(c.blocks_per_row));
            l.dynamic_shared = c.threads_per_row > 32 ? std::size_t(c.block / 32) * sizeof(Acc) : 0;
            if (cluster) l.dynamic_shared += std::size_t(lanes) * sizeof(Acc);
            break;
        case Family::col_flat:
            l.grid = dim3(static_cast<unsigned>(c.blocks_per_row));
            l.dynamic_shared = std::size_t(m) * sizeof(Acc);  // the block's row sums
            break;
        case Family::col_short:
        case Family::row_short:
        case Family::row_tiles:
            l.grid = dim3(blocks);
            break;
        case Family::col_tiles:
            l.grid = dim3(static_cast<unsigned>(c.blocks_per_row));
            break;
        case Family::row_flat:
            l.grid = dim3(blocks);
            l.dynamic_shared = static_cast<std::size_t>(flat_row_tile_bytes(c, n, sizeof(T)));
            break;
    }
    p.zero_y_first = c.combine == Combine::atomic;
    if (c.combine == Combine::atomic_last || c.combine == Combine::last_block)
        p.workspace_bytes = partial_bytes(p, sizeof(Acc)) + std::size_t(blocks) * sizeof(unsigned);
    p.traffic = traffic_of(p);
    return p;
}

template <class T>
VersatileGemv<T>::VersatileGemv(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n)
    : plan_(plan_versatile<T>(c, layout, m, n)) {
    allow_fold_buffer(plan_.launch);
    if (plan_.workspace_bytes) {
        workspace_ = std::make_shared<DeviceArray<unsigned char>>(plan_.workspace_bytes);
        GEMV_CUDA_CHECK(cudaMemset(workspace_->data(), 0, plan_.workspace_bytes));
    }
}

template <class T>
void VersatileGemv<T>::operator()(const T* A, const T* x, accumulator_t<T>* y, cudaStream_t stream) const {
    using Acc = accumulator_t<T>;
    const VersatilePlan& p = plan_;
    require_16_byte_aligned({A, x, y}, "step 11 reads A, x and y with 16-byte loads: they must be 16-byte aligned");
    if (p.zero_y_first) GEMV_CUDA_CHECK(cudaMemsetAsync(y, 0, std::size_t(p.m) * sizeof(Acc), stream));
    GemvArgs<T> args{A, x, y, p.m, p.n, p.config.threads_per_row, p.cols_per_block, p.config.combine, nullptr, nullptr};
    if (workspace_) {
        args.partial = reinterpret_cast<Acc*>(workspace_->data());
        args.arrived = reinterpret_cast<unsigned*>(workspace_->data() + partial_bytes(p, sizeof(Acc)));
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = p.launch.grid;
    config.blockDim = p.launch.block;
    config.dynamicSmemBytes = p.launch.dynamic_shared;
    config.stream = stream;
    cudaLaunchAttribute cluster;
    if (p.config.combine == Combine::cluster) {  // the blocks of one row group form a cluster along y
        cluster.id = cudaLaunchAttributeClusterDimension;
        cluster.val.clusterDim.x = 1;
        cluster.val.clusterDim.y = static_cast<unsigned>(p.config.blocks_per_row);
        cluster.val.clusterDim.z = 1;
        config.attrs = &cluster;
        config.numAttrs = 1;
    }
    void* kernel_args[] = {&args};
    GEMV_CUDA_CHECK(cudaLaunchKernelExC(&config, p.launch.kernel, kernel_args));
}

template <class T>
std::optional<VersatileConfig> split_in_one_wave(const VersatileConfig& c, const DeviceFacts& device, Layout layout,
                                                 std::int64_t m, std::int64_t n) {
    if (!in_place(c) || c.blocks_per_row < 2) return std::nullopt;
    const VersatilePlan plan = plan_versatile<T>(c, layout, m, n);
    allow_fold_buffer(plan.launch);
    // The col and row kernels split a row: their grid is row blocks by blocks a row.
    if (plan.family != Family::col && plan.family != Family::row) return std::nullopt;
    const std::int64_t wave = std::int64_t(occupancy_of(plan.launch, device).blocks_per_sm) * device.sm_count;
    VersatileConfig one = c;
    one.blocks_per_row = std::min<std::int64_t>(wave / plan.launch.grid.x, 65535);
    one.combine = Combine::atomic_last;
    if (one.blocks_per_row < 2 || one.blocks_per_row == c.blocks_per_row ||
        !versatile_invalid(one, kernel_layout(layout, m, n), m, n, sizeof(T)).empty())
        return std::nullopt;
    return one;
}

#define INSTANCE(T)                                                                                                  \
    template VersatilePlan plan_versatile<T>(const VersatileConfig&, Layout, std::int64_t, std::int64_t);            \
    template class VersatileGemv<T>;                                                                                 \
    template std::optional<VersatileConfig> split_in_one_wave<T>(const VersatileConfig&, const DeviceFacts&, Layout, \
                                                                 std::int64_t, std::int64_t);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
