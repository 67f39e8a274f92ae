// What the staged kernels (gemv_tensor_staged.cu, gemv_fma_staged.cu) and the bulk one
// (gemv_tensor_bulk.cu) share about their launch: the instance for a plan's layout and group, its
// grid and where a block sits in it, its occupancy for the report and the plan, X packed where the
// plan says so, and the run around the kernel's launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "check.hpp"
#include "device.hpp"
#include "gemv_tensor.cuh"
#include "staged_copy.cuh"

namespace gemv::staged {

// f(row, tiles) for a layout (row: std::true_type for row-major) and a plan's group (tiles:
// std::integral_constant<int, group / 8>, group one of Groups), as compile-time constants.
template <class Groups = several::TensorGroups, class F>
decltype(auto) with_layout_and_tiles(int group, gemv::Layout layout, F&& f) {
    return several::with_tiles<Groups>(group, [&](auto tiles) {
        if (layout == gemv::Layout::row) return f(std::true_type{}, tiles);
        return f(std::false_type{}, tiles);
    });
}

// The instance of a staged kernel that the report and the occupancy stand for (for a layout and
// group): the kernel, its shared memory allowed, and its dynamic shared memory.
struct Instance {
    const void* kernel;
    std::size_t shared_bytes;
};

// A staged plan's grid: x the blocks of rows times the groups (place_of says which block is
// which), y the slices.
inline dim3 grid_of(const several::Plan& p) {
    return dim3(unsigned(p.blocks * p.groups), unsigned(p.slices));
}

// The launch of a staged plan, for the occupancy report.
inline gemv::Launch launch_of(const several::Plan& p, const Instance& instance) {
    gemv::Launch l;
    l.grid = grid_of(p);
    l.block = dim3(unsigned(p.threads));
    l.dynamic_shared = instance.shared_bytes;
    l.kernel = instance.kernel;
    return l;
}

// Where a block of grid_of's grid sits: its first row and its group's first vector. The groups
// of one block of rows sit side by side in x, so that the blocks that read the same rows of A run
// at the same time and all but the first find them in L2. Groups one after the other read A once
// a group from DRAM: with 128 vectors in groups of 64, side by side took 0.67-0.68 of the time
// (the bulk kernel, 14336 × 4096, both layouts, H200, slides/data/step16/h200_bulk_group_128.csv).
struct Place {
    std::int64_t i0;
    int v0;
};
template <int rows, int vectors>
__device__ __forceinline__ Place place_of(std::int64_t row_blocks) {
    const std::int64_t groups = gridDim.x / row_blocks;
    return {std::int64_t(blockIdx.x / groups) * rows, int(blockIdx.x % groups) * vectors};
}

// The blocks of `threads` an SM holds, for the plan's waves.
inline int blocks_per_sm(const Instance& instance, int threads) {
    int blocks = 0;
    GEMV_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, instance.kernel, threads, instance.shared_bytes));
    return blocks;
}

// The current device's stream-ordered pool keeps the memory it is given back. By default it
// returns it to the driver at every synchronisation, and the next cudaMallocAsync maps it again:
// 4-40 µs a call on the H100, a third of a 100 MiB multiply (slides/data/step16/NOTES.md).
inline void keep_freed_memory() {
    static int kept_on = -1;  // the device whose pool keeps it
    int device = 0;
    GEMV_CUDA_CHECK(cudaGetDevice(&device));
    if (device == kept_on) return;
    cudaMemPool_t pool;
    GEMV_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t keep = UINT64_MAX;
    GEMV_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    kept_on = device;
}

// A staged plan's run: where the plan says so, X is first copied into vectors that start on 16
// bytes (a stream-ordered workspace, ldx rounded up to a granule; the padding is never summed: the
// multiplies mask the columns past n), so that the multiply reads whole granules of X; Y zeroed
// where slices add into it; then launch(X, ldx).
template <class E, class F>
void run(const several::Plan& p, const E* X, float* Y, std::int64_t m, std::int64_t n, int k, cudaStream_t s,
         F&& launch) {
    const std::int64_t ldx = p.pack_x ? gemv::div_up(n, kGranule<E>) * kGranule<E> : n;
    E* Xp = nullptr;
    if (p.pack_x) {
        const std::size_t pitch = std::size_t(ldx) * sizeof(E), row = std::size_t(n) * sizeof(E);
        keep_freed_memory();
        GEMV_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&Xp), pitch * std::size_t(k), s));
        GEMV_CUDA_CHECK(cudaMemcpy2DAsync(Xp, pitch, X, row, row, std::size_t(k), cudaMemcpyDeviceToDevice, s));
        X = Xp;
    }
    if (p.atomic()) GEMV_CUDA_CHECK(cudaMemsetAsync(Y, 0, std::size_t(m) * std::size_t(k) * sizeof(float), s));
    launch(X, ldx);
    GEMV_CUDA_CHECK_LAUNCH();
    if (p.pack_x) GEMV_CUDA_CHECK(cudaFreeAsync(Xp, s));
}

}  // namespace gemv::staged
