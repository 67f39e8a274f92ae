// Step 06: several threads per row of row-major A, their partial sums combined by a reduction.
// Four ways to combine them, one report row each: a shared-memory tree per block (reduce) or per
// row (large), warp shuffles (shuffle), or a second kernel over partials in global memory
// (two_pass, Bainville).
#include <memory>

#include "gemv_shared_reduction.cuh"
#include "gpu_step.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& facts, const T* A, const T* x,
                                     T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const std::string variant = o.text("variant");
    const bool all = variant == "all";
    const int rows_per_block = static_cast<int>(o.integer("rows-per-block"));
    const int threads_per_row = static_cast<int>(o.integer("threads-per-row"));
    // Every variant has its row's threads load the whole row and the whole of x: CGMA 1/2 still.
    // Sharing the work of a row changes who loads, not how much.
    const gemv::Traffic per_row = gemv::traffic_x_per_row(m, n);
    std::vector<gemv::GpuKernel> out;
    if (all || variant == "reduce") {
        const gemv::Launch l = gemv_reduce_launch<T>(m, n, static_cast<int>(o.integer("block-size")));
        out.push_back({"reduce", l, per_row, [=](cudaStream_t s) { gemv_reduce(A, x, y, m, n, l, s); }});
    }
    if (all || variant == "large") {
        const gemv::Launch l = gemv_large_launch<T>(m, n, rows_per_block, threads_per_row);
        out.push_back({"large", l, per_row, [=](cudaStream_t s) { gemv_large(A, x, y, m, n, l, s); }});
    }
    if (all || variant == "shuffle") {
        const gemv::Launch l = gemv_shuffle_launch<T>(m, n, rows_per_block, threads_per_row);
        out.push_back({"shuffle", l, per_row, [=](cudaStream_t s) { gemv_shuffle(A, x, y, m, n, l, s); }});
    }
    if (all || variant == "two_pass") {
        const int p = static_cast<int>(o.integer("p"));
        const gemv::Launch l = gemv_two_pass_launch<T>(m, n, p);
        const std::int64_t workspace = gemv_two_pass_workspace(m, p);
        const auto partial = gemv::make_workspace<T>(facts, o.shape, workspace);  // the m×p partials
        gemv::Traffic t = per_row;
        t.y_elems += 2.0 * static_cast<double>(workspace);  // the partials: stored by pass 1, loaded by pass 2
        out.push_back(
            {"two_pass", l, t, [=](cudaStream_t s) { gemv_two_pass(A, x, y, partial->data(), m, n, p, l, s); }});
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "06";
    spec.name = "shared_reduction";
    spec.title =
        "several threads per row of row-major A: reduction in shared memory, by warp shuffle, or in two passes";
    spec.layouts = {gemv::Layout::row};
    spec.options = {
        gemv::choice_option("variant", "which kernels run", "all", {"all", "reduce", "large", "shuffle", "two_pass"}),
        gemv::integer_option("block-size", "reduce: threads per block, one block per row", 256, 1, 1024),
        gemv::integer_option("rows-per-block", "large and shuffle: rows T per block", 8, 1, 1024),
        gemv::integer_option("threads-per-row", "large and shuffle: threads Z per row (shuffle: 1, 2, 4, .., 32)", 32,
                             1, 1024),
        gemv::integer_option("p", "two_pass: threads per row, each writing one partial", 16, 1, 1024),
    };
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
