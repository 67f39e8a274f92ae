// Step 08: several threads per row of column-major A (Sørensen 3.2). A 2-D grid splits each row
// between GRIDSIZE_n block columns, so short matrices still fill the GPU; the parts of a row are
// combined with atomicAdd (the paper) or, deterministically, in a second pass (Bainville).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "gemv_threads_per_row.cuh"
#include "gpu_step.hpp"

namespace {

// --repeat-check R: runs the product 1 + R times and tells how far the later y's are from the
// first. Atomics add the parts of a row in whatever order the blocks arrive, and float addition is
// not associative: the last bits of y change from run to run. The two-pass sum does not.
template <class T>
void repeat_check(const gemv::GpuKernel& k, T* y, std::int64_t m, int repeats) {
    const auto count = static_cast<std::size_t>(m);
    std::vector<T> first(count), again(count);
    std::vector<char> differs(count, 0);
    k.run(0);
    GEMV_CUDA_CHECK(cudaMemcpy(first.data(), y, count * sizeof(T), cudaMemcpyDeviceToHost));
    double largest = 0, largest_relative = 0;
    for (int r = 0; r < repeats; ++r) {
        k.run(0);
        GEMV_CUDA_CHECK(cudaMemcpy(again.data(), y, count * sizeof(T), cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < count; ++i) {
            if (first[i] == again[i]) continue;
            differs[i] = 1;
            const double d = std::fabs(static_cast<double>(first[i]) - static_cast<double>(again[i]));
            largest = std::max(largest, d);
            if (first[i] != 0) largest_relative = std::max(largest_relative, d / std::fabs(double(first[i])));
        }
    }
    const auto rows_differing = std::count(differs.begin(), differs.end(), 1);
    std::cerr << "step 08 " << k.variant << ", " << repeats << " more run(s) against the first: ";
    if (rows_differing == 0)
        std::cerr << "y identical bit for bit\n";
    else
        std::cerr << rows_differing << " of " << m << " rows differ, by at most " << largest << " (" << largest_relative
                  << " relative)\n";
}

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& facts, const T* A, const T* x,
                                     T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const std::string variant = o.text("variant");
    const int block_size = static_cast<int>(o.integer("block-size"));
    const int worksize_n = static_cast<int>(o.integer("worksize-n"));
    std::vector<gemv::GpuKernel> out;
    if (variant == "all" || variant == "atomic") {
        const gemv::Launch l = gemv_threads_per_row_launch<T>(m, n, block_size, worksize_n, Combine::atomic);
        out.push_back({"atomicAdd", l, gemv_threads_per_row_traffic(m, n, l),
                       [=](cudaStream_t s) { gemv_threads_per_row_atomic(A, x, y, m, n, worksize_n, l, s); }});
    }
    if (variant == "all" || variant == "two_pass") {
        const gemv::Launch l = gemv_threads_per_row_launch<T>(m, n, block_size, worksize_n, Combine::two_pass);
        // The m x GRIDSIZE_n partials.
        const auto partial = gemv::make_workspace<T>(facts, o.shape, gemv_threads_per_row_workspace(m, l));
        out.push_back({"two-pass", l, gemv_threads_per_row_traffic(m, n, l), [=](cudaStream_t s) {
                           gemv_threads_per_row_two_pass(A, x, y, partial->data(), m, n, worksize_n, l, s);
                       }});
    }
    const int repeats = static_cast<int>(o.integer("repeat-check"));
    if (repeats > 0)
        for (const auto& k : out) repeat_check(k, y, m, repeats);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "08";
    spec.name = "threads_per_row";
    spec.title = "CUDA, several threads per row of column-major A: 2-D grid, atomicAdd or a second pass";
    spec.layouts = {gemv::Layout::col};
    spec.options = {
        gemv::choice_option("variant", "how the parts of a row are combined", "all", {"all", "atomic", "two_pass"}),
        gemv::integer_option("block-size", "BLOCKSIZE: threads per block, rows per block, elements of x per chunk", 128,
                             32, 1024),
        gemv::integer_option("worksize-n", "WORKSIZE_n: chunks of BLOCKSIZE columns per thread", 2, 1, 1 << 20),
        gemv::integer_option("repeat-check", "run each variant this many more times and report how y differs (stderr)",
                             0, 0, 1000),
    };
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
