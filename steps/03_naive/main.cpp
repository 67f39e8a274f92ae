// Step 03: one thread per row on row-major A. Correct, and slow: a warp's loads of A are n
// elements apart, so every load instruction touches 32 sectors instead of 4.
#include "gemv_naive.cuh"
#include "gpu_step.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts&, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Launch launch = gemv_naive_launch<T>(m, n, static_cast<int>(o.integer("block-size")));
    // Each thread loads its row of A and all of x: CGMA 1/2, as in Greenstreet's mmult1.
    return {{"one thread per row", launch, gemv::traffic_x_per_row(m, n),
             [=](cudaStream_t s) { gemv_naive(A, x, y, m, n, launch, s); }}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "03";
    spec.name = "naive";
    spec.title = "CUDA, one thread per row of row-major A: uncoalesced loads";
    spec.layouts = {gemv::Layout::row};
    spec.options = {gemv::integer_option("block-size", "threads per block", 256, 32, 1024)};
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
