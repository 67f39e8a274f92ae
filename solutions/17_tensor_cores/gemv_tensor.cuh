#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "chooser.hpp"
#include "device.hpp"
#include "gemv_several.cuh"
#include "pick_timed.cuh"

// Step 17's kernels: Y = A·X for k vectors as in step 16 (gemv_several.cuh), each keeping 8·T
// vectors (T tiles of 8) a warp or a block. Each runs the plan (chooser.hpp) it is given; where
// the plan slices the columns it zeroes Y first (in the stream) and adds partial sums with
// atomicAdd.

namespace gemv::several {

// Tensor cores (bf16 only, compute capability 8.0 or later): 16 × 8 × 16 mma.sync fragments,
// bf16 in, float sums, loaded from global memory without shared memory.
void gemv_tensor_cores(const several::Plan& plan, gemv::Layout layout, const __nv_bfloat16* A, const __nv_bfloat16* X,
                       float* Y, std::int64_t m, std::int64_t n, int k, cudaStream_t stream);

// Tensor cores fed through shared memory (bf16, compute capability 8.0 or later): chunks of A and
// X copied with cp.async ahead of the multiplies, as the aligned 16 bytes that cover each line.
void gemv_tensor_staged(const several::Plan& plan, gemv::Layout layout, const __nv_bfloat16* A, const __nv_bfloat16* X,
                        float* Y, std::int64_t m, std::int64_t n, int k, cudaStream_t stream);
// Its launch (with its shared memory) for the occupancy report, and the blocks an SM holds of the
// instance for whole or padded lines, for plan_tensor_staged.
gemv::Launch tensor_staged_launch(const several::Plan& plan, gemv::Layout layout);
int tensor_staged_blocks_per_sm(int group, gemv::Layout layout, bool whole_lines);

// Tensor cores fed by Hopper's copy engine (bf16, compute capability 9.0 with code built for
// sm_90a: tensor_bulk_runs_here): boxes of A and X copied by TMA, multiplied by wgmma from shared
// memory. Its launch for the occupancy report.
void gemv_tensor_bulk(const several::Plan& plan, gemv::Layout layout, const __nv_bfloat16* A, const __nv_bfloat16* X,
                      float* Y, std::int64_t m, std::int64_t n, int k, cudaStream_t stream);
gemv::Launch tensor_bulk_launch(const several::Plan& plan, gemv::Layout layout);
bool tensor_bulk_runs_here();

// Float on FP32 FMA fed through shared memory (gemv_fma_staged.cu): the same staging, a thread
// keeping a tile of rows × vectors of sums, as an SGEMM does. Its launch and blocks an SM, for
// plan_fma_staged.
void gemv_fma_staged(const several::Plan& plan, gemv::Layout layout, const float* A, const float* X, float* Y,
                     std::int64_t m, std::int64_t n, int k, cudaStream_t stream);
gemv::Launch fma_staged_launch(const several::Plan& plan, gemv::Layout layout);
int fma_staged_blocks_per_sm(int group, gemv::Layout layout, several::FmaChunks chunks);

// The tensor-core kernels are compiled for T = group / 8 tiles of 8 vectors (TensorGroups: 8,
// 16, 32 and 64), the staged FMA kernel for its own (FmaGroups): f(std::integral_constant<int,
// T>{}) for a plan's group; any other group is refused (compiled.hpp).
template <class Groups = TensorGroups, class F>
decltype(auto) with_tiles(int group, F&& f) {
    return with_compiled(Groups{}, "vectors a warp or block", group,
                         [&](auto g) { return f(std::integral_constant<int, decltype(g)::value / 8>{}); });
}

// The staged FMA kernel's plan on this GPU in the chunks given (the tuner times each), or in those
// fma_chunks says; its blocks an SM from the occupancy of that instance.
inline several::Plan fma_staged_plan(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group,
                                     int sm_count, several::FmaChunks chunks) {
    return several::plan_fma_staged(m, n, k, layout, group, sm_count, fma_staged_blocks_per_sm(group, layout, chunks),
                                    chunks);
}
inline several::Plan fma_staged_plan(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group,
                                     int sm_count) {
    return fma_staged_plan(m, n, k, layout, group, sm_count, several::fma_chunks(layout, group, m, n));
}

// The staged tensor-core kernel's plan on this GPU: its blocks an SM from the occupancy of the
// instance for the problem's lines (whole or padded).
inline several::Plan tensor_staged_plan(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group,
                                        int sm_count) {
    const bool whole = several::staged_whole_lines(layout, m, n, several::staged_packs_x(m, n, k, group));
    return several::plan_tensor_staged(m, n, k, layout, group, sm_count,
                                       tensor_staged_blocks_per_sm(group, layout, whole));
}

// The tensor-core kernel keeping `group` vectors a warp, for the occupancy report.
const void* tensor_cores_kernel_for(int group, gemv::Layout layout);

// Any plan's kernel (the tensor-core kernels take bf16 only, the staged FMA kernel float), and
// the plan of a chooser's candidate on this GPU.
template <class T>
void gemv_planned(const several::Plan& plan, gemv::Layout layout, const T* A, const T* X, float* Y, std::int64_t m,
                  std::int64_t n, int k, cudaStream_t stream) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        if (plan.kernel == several::Kernel::tensor_cores)
            return gemv_tensor_cores(plan, layout, A, X, Y, m, n, k, stream);
        if (plan.kernel == several::Kernel::tensor_staged)
            return gemv_tensor_staged(plan, layout, A, X, Y, m, n, k, stream);
        if (plan.kernel == several::Kernel::tensor_bulk)
            return gemv_tensor_bulk(plan, layout, A, X, Y, m, n, k, stream);
    } else {
        if (plan.kernel == several::Kernel::fma_staged) return gemv_fma_staged(plan, layout, A, X, Y, m, n, k, stream);
    }
    gemv_register_blocked<T>(plan, layout, A, X, Y, m, n, k, stream);
}
inline several::Plan plan_of(const several::Candidate& choice, std::int64_t m, std::int64_t n, int k,
                             gemv::Layout layout, int sm_count) {
    switch (choice.kernel) {
        case several::Kernel::tensor_cores:
            return several::plan_tensor_cores(m, n, k, layout, choice.group, sm_count);
        case several::Kernel::tensor_staged:
            return tensor_staged_plan(m, n, k, layout, choice.group, sm_count);
        case several::Kernel::fma_staged:
            return fma_staged_plan(m, n, k, layout, choice.group, sm_count);
        case several::Kernel::tensor_bulk:
            return several::plan_tensor_bulk(m, n, k, layout, choice.group, sm_count, choice.cluster);
        default:
            return several::plan_register_blocked(m, n, k, layout, choice.group, sm_count);
    }
}

// The chooser (chooser.hpp): each candidate's plan on this GPU, and at k = 1 step 11's kernel with
// its configuration for this problem (chooser_times_versatile), timed at this problem as the
// harness times (cold L2), and which is the fastest. The launches write Y.
// Step 11's kernel where the chooser times it (k = 1): the configuration pick_timed chose for the
// problem, and its plan, for the report.
struct VersatileChoice {
    gemv::Resolved resolved;
    gemv::VersatilePlan plan;
};
struct Chosen {
    std::vector<several::Plan> plans;                         // in the order of candidates()
    std::optional<VersatileChoice> versatile;                 // k = 1: step 11's configuration and plan
    std::vector<std::function<void(cudaStream_t)>> launches;  // the plans', then the versatile kernel's
    std::size_t fastest = 0;                                  // of the launches
};
// BEGIN EXCERPT choose-by-timing
template <class T>
Chosen choose_by_timing(const gemv::DeviceFacts& facts, gemv::Layout layout, const T* A, const T* X, float* Y,
                        std::int64_t m, std::int64_t n, int k) {
    Chosen out;
    for (const several::Candidate& c :
         candidates(gemv::precision_of<T>(), k, layout, facts.cc_major, m, n, tensor_bulk_runs_here()))
        out.plans.push_back(plan_of(c, m, n, k, layout, facts.sm_count));
    for (const several::Plan& plan : out.plans)
        out.launches.push_back([=](cudaStream_t s) { gemv_planned<T>(plan, layout, A, X, Y, m, n, k, s); });
    if (chooser_times_versatile(k)) {  // one vector: step 11's kernel, configured from this GPU's table
        const gemv::Resolved resolved = gemv::pick_timed<T>("auto", facts, layout, m, n, A, X, Y);
        const gemv::VersatileGemv<T> versatile(resolved.config, layout, m, n);
        out.versatile = VersatileChoice{resolved, versatile.plan()};
        out.launches.push_back([=](cudaStream_t s) { versatile(A, X, Y, s); });
    }
    out.fastest = gemv::fastest_in_turns(facts, out.launches, kChooserRounds);
    return out;
}
// END EXCERPT choose-by-timing

// The launch to report (occupancy) for any plan: step 16's launch_of for a register-blocked one.
template <class T>
gemv::Launch planned_launch(const several::Plan& p, gemv::Layout layout) {
    if (p.kernel == several::Kernel::tensor_staged) return tensor_staged_launch(p, layout);
    if (p.kernel == several::Kernel::fma_staged) return fma_staged_launch(p, layout);
    if (p.kernel == several::Kernel::tensor_bulk) return tensor_bulk_launch(p, layout);
    if (p.kernel == several::Kernel::tensor_cores) {
        gemv::Launch l;
        l.grid = dim3(unsigned(p.blocks * div_up(p.groups, p.shared)), unsigned(p.slices));
        l.block = dim3(unsigned(p.threads));
        l.kernel = tensor_cores_kernel_for(p.group, layout);
        return l;
    }
    return launch_of<T>(p, layout);
}

}  // namespace gemv::several
