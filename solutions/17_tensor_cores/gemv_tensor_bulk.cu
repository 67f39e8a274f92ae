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
// its operands read from shared memory by the tensor cores themselves. A block: 2
// warpgroups, kBulkRows rows, chunks of bulk_chunk_cols columns (128, or 64 from kBulkWide vectors:
// X's boxes grow with them), bulk_stages chunks in flight, each stage with an mbarrier that counts
// its bytes in.
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
constexpr int kThreads = several::kTensorThreads, kRows = several::kBulkRows;
static_assert(kThreads == 2 * 128 && kRows == 2 * 64, "two warpgroups of 64 rows");

// A box is 64 elements (128 bytes) along its lines. A stage, a chunk of `cols` columns: A's boxes,
// then X's.
//  - Row-major A: cols / 64 boxes of kRows rows × 64 columns; warpgroup w's rows from line 64·w.
//  - Column-major A: one box a warpgroup, its 64 rows × cols columns (a line: 64 rows of a column).
//  - X: cols / 64 boxes of 8·T vectors × 64 columns (the last group's: as many lines as it has
//    vectors, to 8).
constexpr int kBox = 64, kLine = 128;
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

template <bool row, int T>
__global__ void __launch_bounds__(kThreads)
    tensor_bulk(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap x_map,
                const __grid_constant__ CUtensorMap x_last, int last_lines, float* Y, std::int64_t m, std::int64_t n,
                int k, std::int64_t per, std::int64_t row_blocks, bool atomic) {
    constexpr int kStages = Stage<T>::stages, kCols = Stage<T>::cols, kBoxes = Stage<T>::boxes;
    constexpr int kABytes = Stage<T>::a_bytes;
    extern __shared__ unsigned char shared[];
    __shared__ alignas(8) std::uint64_t in[kStages];  // stage s's bytes are in
    const std::uint32_t base = (shared_address(shared) + 1023) & ~1023u;
    const int warpgroup = threadIdx.x / 128;
    const staged::Place at = staged::place_of<kRows, 8 * T>(row_blocks);
    const int i0 = int(at.i0);
    const int v0 = at.v0;
    // The last group's boxes of X hold its vectors only (rounded up to 8): the copy engine's fill of
    // lines past k is slow. The stage's lines past them keep what they held, and reach only the sums
    // of vectors past k, which are never stored.
    const bool last = v0 + 8 * T > k;
    const CUtensorMap* xm = last ? &x_last : &x_map;
    const int x_lines = last ? last_lines : 8 * T;
    const std::int64_t j0 = blockIdx.y * per;
    const int chunks = int((min(n, j0 + per) - j0 + kCols - 1) / kCols);
    const auto bar = [&](int c) { return shared_address(&in[c % kStages]); };
    const auto stage = [&](int c) { return base + c % kStages * Stage<T>::bytes; };
    const auto copy = [&](int c) {  // thread 0: chunk c's boxes of A and X into its stage
        const int jc = int(j0) + c * kCols;
        hopper::barrier_expect(bar(c), kABytes + kBoxes * x_lines * kLine);
        for (int b = 0; b < kBoxes; ++b) {
            if constexpr (row) hopper::copy_box(stage(c) + b * kRows * kLine, &a_map, jc + kBox * b, i0, bar(c));
            hopper::copy_box(stage(c) + kABytes + b * Stage<T>::x_box, xm, jc + kBox * b, v0, bar(c));
        }
        if constexpr (!row)
            for (int w = 0; w < 2; ++w) hopper::copy_box(stage(c) + w * kABytes / 2, &a_map, i0 + 64 * w, jc, bar(c));
    };
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) hopper::barrier_init(bar(s));
        hopper::fence_barrier_init();
        for (int c = 0; c < kStages && c < chunks; ++c) copy(c);
    }
    __syncthreads();
    float d[4 * T] = {}, sum[4 * T] = {};
    const int run = max(1, chunks / 2);  // chunks a run (the accuracy argument above)
    // BEGIN EXCERPT bulk-loop
    for (int c0 = 0; c0 < chunks; c0 += run) {
        for (int c = c0; c < min(chunks, c0 + run); ++c) {  // a run: its chunks chained in d
            hopper::barrier_wait(bar(c), c / kStages % 2);  // chunk c is in
            hopper::wgmma_fence();
#pragma unroll
            for (int b = 0; b < kBoxes; ++b)
#pragma unroll
                for (int step = 0; step < kBox / 16; ++step) {  // 16 columns a wgmma
                    const std::uint32_t a = row ? stage(c) + b * kRows * kLine + warpgroup * 64 * kLine + 32 * step
                                                : stage(c) + warpgroup * kABytes / 2 + (kBox * b + 16 * step) * kLine;
                    const std::uint32_t x = stage(c) + kABytes + b * Stage<T>::x_box + 32 * step;
                    hopper::wgmma<8 * T, row ? 0 : 1>(d, hopper::operand(a), hopper::operand(x),
                                                      c > c0 || b + step > 0);
                }
            hopper::wgmma_commit();
            hopper::wgmma_wait<1>();  // chunk c's run on; chunk c - 1's are done
            __syncthreads();          // in both warpgroups: refill chunk c - 1's stage
            if (threadIdx.x == 0 && c >= 1 && c - 1 + kStages < chunks) copy(c - 1 + kStages);
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

template <bool row, int T>
const void* prepared() {
    static const cudaError_t allowed =
        cudaFuncSetAttribute(tensor_bulk<row, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, Stage<T>::shared);
    GEMV_CUDA_CHECK(allowed);
    return reinterpret_cast<const void*>(&tensor_bulk<row, T>);
}

staged::Instance instance_for(int group, gemv::Layout layout) {
    return staged::with_layout_and_tiles<several::BulkGroups>(group, layout, [&](auto row, auto tiles) {
        constexpr bool R = decltype(row)::value;
        constexpr int T = decltype(tiles)::value;
        return staged::Instance{prepared<R, T>(), std::size_t(Stage<T>::shared)};
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
    return staged::launch_of(p, instance_for(p.group, layout));
}

void gemv_tensor_bulk(const several::Plan& p, gemv::Layout layout, const bf16* A, const bf16* X, float* Y,
                      std::int64_t m, std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != several::Kernel::tensor_bulk || p.threads != kThreads || !several::bulk_fits(layout, m, n))
        throw std::logic_error("gemv_tensor_bulk needs a plan from plan_tensor_bulk");
    if (!tensor_bulk_runs_here()) throw std::logic_error("gemv_tensor_bulk runs on compute capability 9.0 only");
    gemv::require_16_byte_aligned({A, X}, "gemv_tensor_bulk: the copy engine reads A and X from 16-byte boundaries");
    // Y zeroed where slices add into it, as the staged kernels' run does (the plan never packs X).
    staged::with_layout_and_tiles<several::BulkGroups>(p.group, layout, [&](auto row, auto tiles) {
        constexpr bool R = decltype(row)::value;
        constexpr int T = decltype(tiles)::value;
        const CUtensorMap a_map = R ? tensor_map(A, n, m, n, kRows) : tensor_map(A, m, n, m, Stage<T>::cols);
        prepared<R, T>();
        staged::run(p, X, Y, m, n, k, s, [&](const bf16* Xs, std::int64_t ldx) {
            const CUtensorMap x_map = tensor_map(Xs, n, k, ldx, 8 * T);
            const int last_lines = (k - (p.groups - 1) * 8 * T + 7) / 8 * 8;  // the last group's vectors, to 8
            const CUtensorMap x_last = last_lines == 8 * T ? x_map : tensor_map(Xs, n, k, ldx, last_lines);
            tensor_bulk<R, T><<<staged::grid_of(p), kThreads, Stage<T>::shared, s>>>(
                a_map, x_map, x_last, last_lines, Y, m, n, k, p.per, p.blocks, p.atomic());
        });
    });
}

}  // namespace gemv::several
