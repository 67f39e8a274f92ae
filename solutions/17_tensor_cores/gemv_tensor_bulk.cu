#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled: the driver's function, found at run time
#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "async_copy.cuh"
#include "check.hpp"
#include "gemv_tensor.cuh"
#include "hopper_bf16.cuh"
#include "staged_launch.cuh"

// Hopper's way to feed the tensor cores (compute capability 9.0, code built for sm_90a). The staged
// kernel (gemv_tensor_staged.cu) has every thread copy its share of a chunk, 16 bytes a cp.async,
// and every warp load its fragments with ldmatrix and add each 16-column product into its sums:
// at 64 vectors those instructions, not DRAM, set its pace. Here one thread asks the copy engine
// (TMA) for a whole box of A or X in one instruction, and it lands swizzled as the tensor cores read
// it; a warpgroup (4 warps) multiplies 64 rows by all of the block's vectors, 16 columns a wgmma,
// its operands read from shared memory by the tensor cores themselves. A block: 2 warpgroups that
// multiply, kBulkRows rows, and a third whose one thread asks for the copies; chunks of
// bulk_chunk_cols columns (128, or 64 from kBulkWide vectors: X's boxes grow with them),
// bulk_stages chunks in flight, each stage with an mbarrier that counts its bytes in and one that
// counts the warpgroups done with it. A cluster of C blocks of consecutive rows (C = 1, 2 or 4,
// the plan's cluster) shares X: chunk c's boxes of X are asked for by block c mod C and written
// into every block of the cluster, so L2 hands out X once for C blocks of rows.
//
// Accuracy (the bound n·eps·Σ|a·x| of gemv_tensor_cores.cu): a run of chunks chains its wgmma (16
// columns each) in one accumulator, each adding 16 products and the accumulator with an error
// below (16 + h)·eps·Σ|the run's products so far|; a run of L columns errs by less than
// L·(1 + h/16)·eps·Σ|its products|, and the runs join the sums in float additions (u = eps/2
// each). A block's c chunks of C = 128 or 64 columns go in runs of max(1, c / 2) chunks, 3 runs at
// most. With h <= 2: for c >= 3 a run holds at most C·c/2 columns, and 1.125·C·c/2 + c <=
// C·(c - 1) < n; for c <= 2 a run is one chunk, and 1.125·128 + 2 <= 256 <= n, since the plan
// takes n >= kBulkLeastCols.
namespace gemv::several {
namespace {

using bf16 = __nv_bfloat16;
constexpr int kThreads = several::kBulkThreads, kMultiplying = 2 * 128, kRows = several::kBulkRows;
static_assert(kThreads == kMultiplying + 128 && kRows == 2 * 64, "two warpgroups of 64 rows, one that copies");
// A block's 65536 registers, shared out once it runs: 232 a thread for the warpgroups that multiply
// (96 accumulators and 96 sums at 192 vectors), 40 for the one that copies.
constexpr int kMultiplyingRegisters = 232, kCopyingRegisters = 40;
static_assert(kMultiplying * kMultiplyingRegisters + 128 * kCopyingRegisters <= 65536, "the registers fit");

// A box is 64 elements (128 bytes) along its lines. A stage, a chunk of `cols` columns: A's boxes,
// then X's.
//  - Row-major A: cols / 64 boxes of kRows rows × 64 columns; warpgroup w's rows from line 64·w.
//  - Column-major A: one box a warpgroup, its 64 rows × cols columns (a line: 64 rows of a column).
//  - X: cols / 64 boxes of 8·T vectors × 64 columns (the last group's: as many lines as it has
//    vectors, to 8).
constexpr int kBox = 64, kLine = 128;
// The lines of X's boxes for a group of `group` vectors from v0: all of them, but in the last
// group only its vectors, rounded up to 8 (the copy engine's fill of lines past k is slow).
__host__ __device__ constexpr int x_lines_of(int group, int v0, int k) {
    const int held = (k - v0 + 7) / 8 * 8;
    return held < group ? held : group;
}
template <int T>
struct Stage {
    static constexpr int cols = several::bulk_chunk_cols(8 * T), boxes = cols / kBox, a_bytes = kRows * cols * 2;
    static constexpr int x_box = 8 * T * kLine, bytes = a_bytes + boxes * x_box;
    static constexpr int stages = several::bulk_stages(8 * T);
    static constexpr int shared = stages * bytes + 1024;  // and room to start on 1024 bytes, as the swizzle does
    static_assert(cols % kBox == 0 && several::kBulkCols % cols == 0, "whole boxes; a slice holds whole chunks");
    static_assert(bytes == several::bulk_stage_bytes(8 * T) && bytes % 1024 == 0, "stages on the swizzle's 1024 bytes");
    static_assert(shared <= 227 * 1024, "the stages fit an SM's shared memory");
};

template <bool row, int T, int C>
__global__ void __launch_bounds__(kThreads, 1)
    tensor_bulk(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap x_map,
                const __grid_constant__ CUtensorMap x_last, float* Y, std::int64_t m, std::int64_t n, int k,
                std::int64_t per, std::int64_t row_blocks, bool atomic) {
    static_assert(C == 1 || C == 2 || C == 4, "clusters of 1, 2 or 4 blocks");
    constexpr int kStages = Stage<T>::stages, kCols = Stage<T>::cols, kBoxes = Stage<T>::boxes;
    constexpr int kABytes = Stage<T>::a_bytes;
    extern __shared__ unsigned char shared[];
    // Stage s: its bytes are in; every warpgroup of the cluster is done with it.
    __shared__ alignas(8) std::uint64_t full[kStages], released[kStages];
    const std::uint32_t base = (shared_address(shared) + 1023) & ~1023u;
    // From lane 0, so that the compiler knows a warp agrees on it (the addresses below then stay in
    // uniform registers).
    const int warpgroup = __shfl_sync(~0u, int(threadIdx.x) / 128, 0);
    // Where the block sits: x runs over clusters, the groups of a cluster's rows side by side (as
    // staged::place_of), then over the cluster's C blocks of consecutive rows (its rank).
    const unsigned rank = blockIdx.x % C;
    const std::int64_t groups = gridDim.x / row_blocks, cluster = blockIdx.x / C;
    const int i0 = int((cluster / groups * C + rank) * kRows);
    const int v0 = int(cluster % groups) * 8 * T;
    // The last group's boxes of X are x_last's, shorter: the stage's lines past them keep what they
    // held, and reach only the sums of vectors past k, which are never stored.
    const int x_lines = x_lines_of(8 * T, v0, k);
    const CUtensorMap* xm = x_lines < 8 * T ? &x_last : &x_map;
    const std::int64_t j0 = blockIdx.y * per;
    const int chunks = int((min(n, j0 + per) - j0 + kCols - 1) / kCols);
    const auto stage = [&](int c) { return base + c % kStages * Stage<T>::bytes; };
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            hopper::barrier_init(shared_address(&full[s]), 1);
            hopper::barrier_init(shared_address(&released[s]), 2 * C);  // both warpgroups of each block
        }
        hopper::fence_barrier_init();
    }
    // The cluster meets before any block copies or arrives (every barrier ready), and again before
    // any leaves (another may still arrive on its barriers).
    const auto meet = [] {
        if constexpr (C > 1)
            hopper::cluster_sync();
        else
            __syncthreads();
    };
    meet();
    if (warpgroup == 2) {
        hopper::registers_at_most<kCopyingRegisters>();
        if (threadIdx.x == kMultiplying)  // chunk c into its stage, once every block is done with c - kStages
            for (int c = 0; c < chunks; ++c) {
                const std::uint32_t bar = shared_address(&full[c % kStages]), to = stage(c);
                if (c >= kStages) hopper::barrier_wait(shared_address(&released[c % kStages]), (c / kStages - 1) % 2);
                const int jc = int(j0) + c * kCols;
                hopper::barrier_expect(bar, kABytes + kBoxes * x_lines * kLine);
                // X's boxes asked for beside A's (row-major) or before them (column-major): behind
                // A's, column-major 14336 × 4096 with 128 vectors took 1.23 times as long (H200).
                for (int b = 0; b < kBoxes; ++b) {
                    if constexpr (row) hopper::copy_box(to + b * kRows * kLine, &a_map, jc + kBox * b, i0, bar);
                    const std::uint32_t box = to + kABytes + b * Stage<T>::x_box;
                    if constexpr (C == 1)
                        hopper::copy_box(box, xm, jc + kBox * b, v0, bar);
                    else if (c % C == int(rank))
                        hopper::copy_box_to_blocks(box, xm, jc + kBox * b, v0, bar, (1u << C) - 1);
                }
                if constexpr (!row)
                    for (int w = 0; w < 2; ++w) hopper::copy_box(to + w * kABytes / 2, &a_map, i0 + 64 * w, jc, bar);
            }
    } else {
        hopper::registers_at_least<kMultiplyingRegisters>();
        float d[4 * T] = {}, sum[4 * T] = {};
        const int run = max(1, chunks / 2);  // chunks a run (the accuracy argument above)
        // BEGIN EXCERPT bulk-loop
        for (int c0 = 0; c0 < chunks; c0 += run) {
            for (int c = c0; c < min(chunks, c0 + run); ++c) {  // a run: its chunks chained in d
                hopper::barrier_wait(shared_address(&full[c % kStages]), c / kStages % 2);  // chunk c is in
                hopper::wgmma_fence();
#pragma unroll
                for (int b = 0; b < kBoxes; ++b)
#pragma unroll
                    for (int step = 0; step < kBox / 16; ++step) {  // 16 columns a wgmma
                        const std::uint32_t a =
                            row ? stage(c) + b * kRows * kLine + warpgroup * 64 * kLine + 32 * step
                                : stage(c) + warpgroup * kABytes / 2 + (kBox * b + 16 * step) * kLine;
                        const std::uint32_t x = stage(c) + kABytes + b * Stage<T>::x_box + 32 * step;
                        hopper::wgmma<8 * T, row ? 0 : 1>(d, hopper::operand(a), hopper::operand(x),
                                                          c > c0 || b + step > 0);
                    }
                hopper::wgmma_commit();
                hopper::wgmma_wait<1>();  // chunk c's run on; chunk c - 1's are done: its stage is free here
                if (threadIdx.x % 128 == 0 && c >= 1 && c - 1 + kStages < chunks)
                    for (unsigned b = 0; b < C; ++b)
                        hopper::barrier_arrive(shared_address(&released[(c - 1) % kStages]), b);
            }
            hopper::wgmma_wait<0>();
#pragma unroll
            for (int e = 0; e < 4 * T; ++e) sum[e] += d[e];  // the run joins the sums
        }
        // END EXCERPT bulk-loop
        const int t = threadIdx.x % 128, r = i0 + 64 * warpgroup + 16 * (t / 32) + t % 32 / 4;
#pragma unroll
        for (int e = 0; e < 4 * T; ++e) {
            const std::int64_t i = r + 8 * (e % 4 / 2);
            const int v = v0 + 8 * (e / 4) + 2 * (t % 4) + e % 2;
            if (i < m && v < k) {
                float* y = Y + std::int64_t(v) * m + i;
                if (atomic)
                    atomicAdd(y, sum[e]);
                else
                    *y = sum[e];
            }
        }
    }
    __syncwarp();
    meet();
}

// Whether this build holds the sm_90a code (the kernels above trap without it).
__global__ void holds_hopper_code(int* out) {
    *out = GEMV_HOPPER_CODE;
}

// The copy engine's description of a matrix of `lines` lines of `length` bf16, `pitch` elements
// apart (a multiple of 8: 16 bytes), read in boxes of 64 × box_lines, swizzled by 128 bytes,
// zeros outside. The driver's cuTensorMapEncodeTiled, found through the runtime (no -lcuda).
CUtensorMap tensor_map(const bf16* data, std::int64_t length, std::int64_t lines, std::int64_t pitch, int box_lines) {
    static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void* f = nullptr;
        cudaDriverEntryPointQueryResult found{};
        GEMV_CUDA_CHECK(
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess) throw std::runtime_error("the driver has no cuTensorMapEncodeTiled");
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
    }();
    CUtensorMap map;
    const cuuint64_t size[2] = {cuuint64_t(length), cuuint64_t(lines)}, stride[1] = {cuuint64_t(pitch) * 2};
    const cuuint32_t box[2] = {kBox, cuuint32_t(box_lines)}, step[2] = {1, 1};
    const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<bf16*>(data), size, stride, box,
                              step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw std::runtime_error("cuTensorMapEncodeTiled refused a matrix (" + std::to_string(r) + ")");
    return map;
}

template <bool row, int T, int C>
const void* prepared() {
    static const cudaError_t allowed =
        cudaFuncSetAttribute(tensor_bulk<row, T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, Stage<T>::shared);
    GEMV_CUDA_CHECK(allowed);
    return reinterpret_cast<const void*>(&tensor_bulk<row, T, C>);
}

// f(row, tiles, cluster) for a plan's layout, group and cluster, as compile-time constants.
template <class F>
decltype(auto) with_instance(const several::Plan& p, gemv::Layout layout, F&& f) {
    return staged::with_layout_and_tiles<several::BulkGroups>(p.group, layout, [&](auto row, auto tiles) {
        return several::with_compiled(several::BulkClusters{}, "blocks a cluster", p.cluster,
                                      [&](auto cluster) { return f(row, tiles, cluster); });
    });
}

}  // namespace

bool tensor_bulk_runs_here() {
    static const bool runs = [] {  // on the process's current device, asked once
        int device = 0;
        GEMV_CUDA_CHECK(cudaGetDevice(&device));
        const gemv::DeviceFacts facts = gemv::query_device(device);
        if (facts.cc_major != 9 || facts.cc_minor != 0) return false;
        int* flag = nullptr;
        int held = 0;
        GEMV_CUDA_CHECK(cudaMalloc(&flag, sizeof(int)));
        holds_hopper_code<<<1, 1>>>(flag);
        GEMV_CUDA_CHECK_LAUNCH();
        GEMV_CUDA_CHECK(cudaMemcpy(&held, flag, sizeof(int), cudaMemcpyDeviceToHost));
        GEMV_CUDA_CHECK(cudaFree(flag));
        return held == 1;
    }();
    return runs;
}

gemv::Launch tensor_bulk_launch(const several::Plan& p, gemv::Layout layout) {
    return with_instance(p, layout, [&](auto row, auto tiles, auto cluster) {
        constexpr int T = decltype(tiles)::value;
        const void* kernel = prepared<decltype(row)::value, T, decltype(cluster)::value>();
        return staged::launch_of(p, staged::Instance{kernel, std::size_t(Stage<T>::shared)});
    });
}

void gemv_tensor_bulk(const several::Plan& p, gemv::Layout layout, const bf16* A, const bf16* X, float* Y,
                      std::int64_t m, std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != several::Kernel::tensor_bulk || p.threads != kThreads || p.blocks % p.cluster != 0 ||
        !several::bulk_fits(layout, m, n))
        throw std::logic_error("gemv_tensor_bulk needs a plan from plan_tensor_bulk");
    if (!tensor_bulk_runs_here()) throw std::logic_error("gemv_tensor_bulk runs on compute capability 9.0 only");
    gemv::require_16_byte_aligned({A, X}, "gemv_tensor_bulk: the copy engine reads A and X from 16-byte boundaries");
    // Y zeroed where slices add into it, as the staged kernels' run does (the plan never packs X).
    with_instance(p, layout, [&](auto row, auto tiles, auto cluster) {
        constexpr bool R = decltype(row)::value;
        constexpr int T = decltype(tiles)::value, C = decltype(cluster)::value;
        const CUtensorMap a_map = R ? tensor_map(A, n, m, n, kRows) : tensor_map(A, m, n, m, Stage<T>::cols);
        prepared<R, T, C>();
        staged::run(p, X, Y, m, n, k, s, [&](const bf16* Xs, std::int64_t ldx) {
            const CUtensorMap x_map = tensor_map(Xs, n, k, ldx, 8 * T);
            const int last_lines = x_lines_of(8 * T, (p.groups - 1) * 8 * T, k);
            const CUtensorMap x_last = last_lines == 8 * T ? x_map : tensor_map(Xs, n, k, ldx, last_lines);
            cudaLaunchConfig_t config{};  // a launch in clusters of C blocks along x
            config.gridDim = staged::grid_of(p);
            config.blockDim = dim3(kThreads);
            config.dynamicSmemBytes = Stage<T>::shared;
            config.stream = s;
            cudaLaunchAttribute clusters{};
            clusters.id = cudaLaunchAttributeClusterDimension;
            clusters.val.clusterDim.x = C;
            clusters.val.clusterDim.y = clusters.val.clusterDim.z = 1;
            config.attrs = &clusters;
            config.numAttrs = C > 1 ? 1 : 0;  // a launch in clusters of 1 places blocks otherwise, slower (H200)
            GEMV_CUDA_CHECK(cudaLaunchKernelEx(&config, tensor_bulk<R, T, C>, a_map, x_map, x_last, Y, m, n, k, p.per,
                                               p.blocks, p.atomic()));
        });
    });
}

}  // namespace gemv::several
