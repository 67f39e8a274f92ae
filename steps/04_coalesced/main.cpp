// Step 04: one thread per row on column-major A. The kernel is step 03's with one index changed,
// and now the 32 loads of A a warp issues for one column fall in one contiguous 128-byte stretch.
#include "gemv_coalesced.cuh"
#include "gpu_step.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts&, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Launch launch = gemv_coalesced_launch<T>(m, n, static_cast<int>(o.integer("block-size")));
    // Still A once and all of x for every row (the cache serves most of x): CGMA 1/2, as in step 03.
    return {{"one thread per row", launch, gemv::traffic_x_per_row(m, n),
             [=](cudaStream_t s) { gemv_coalesced(A, x, y, m, n, launch, s); }}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "04";
    spec.name = "coalesced";
    spec.title = "CUDA, one thread per row of column-major A: coalesced loads";
    spec.layouts = {gemv::Layout::col};
    spec.options = {gemv::integer_option("block-size", "threads per block", 256, 32, 1024)};
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
