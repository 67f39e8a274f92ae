// Step 05: step 04 with x staged through shared memory (Sørensen 3.1). Each block loads x once,
// BLOCKSIZE elements at a time, and its threads read it from there: x's global traffic drops
// from n per row to n per block.
#include "gemv_shared_x.cuh"
#include "gpu_step.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts&, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Launch launch = gemv_shared_x_launch<T>(m, n, static_cast<int>(o.integer("block-size")));
    return {{"x in shared memory", launch, gemv_shared_x_traffic(m, n, launch),
             [=](cudaStream_t s) { gemv_shared_x(A, x, y, m, n, launch, s); }}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "05";
    spec.name = "shared_x";
    spec.title = "CUDA, one thread per row of column-major A, x read into shared memory once per block";
    spec.layouts = {gemv::Layout::col};
    spec.options = {gemv::integer_option(
        "block-size", "BLOCKSIZE: threads per block, and elements of x per shared-memory chunk", 256, 32, 1024)};
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
