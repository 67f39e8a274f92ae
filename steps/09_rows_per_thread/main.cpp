// Step 09: several rows per thread of column-major A (Sørensen 3.3), for very tall matrices: each
// thread sums WORKSIZE_m rows, so one read of x from shared memory serves WORKSIZE_m rows and the
// grid has WORKSIZE_m times fewer blocks to load x.
#include "gemv_rows_per_thread.cuh"
#include "gpu_step.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts&, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const int block_size = static_cast<int>(o.integer("block-size"));
    const int worksize_m = static_cast<int>(o.integer("worksize-m"));
    const gemv::Launch launch = gemv_rows_per_thread_launch<T>(m, n, block_size, worksize_m);
    return {{std::to_string(worksize_m) + " rows per thread", launch, gemv_rows_per_thread_traffic(m, n, launch),
             [=](cudaStream_t s) { gemv_rows_per_thread(A, x, y, m, n, worksize_m, launch, s); }}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "09";
    spec.name = "rows_per_thread";
    spec.title = "CUDA, several rows per thread of column-major A, x in shared memory: for very tall matrices";
    spec.layouts = {gemv::Layout::col};
    spec.default_m = 1 << 20;  // very tall: the shape this kernel is for (16 M elements, as 4096 x 4096)
    spec.default_n = 16;
    spec.options = {
        gemv::integer_option("block-size", "BLOCKSIZE: threads per block, and elements of x per shared-memory chunk",
                             128, 32, 1024),
        gemv::integer_option("worksize-m", "WORKSIZE_m: rows per thread, BLOCKSIZE rows apart", 4, 1, kMaxWorksizeM),
    };
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
