// Step 10: several threads, several columns (Sørensen 3.4), for wide and fat column-major A with
// fewer rows than BLOCKSIZE: the block's threads are laid along the columns, so none sits idle for
// want of a row; every part of a row is added into y with atomicAdd.
#include "gemv_threads_cols.cuh"
#include "gpu_step.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts&, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const int block_size = static_cast<int>(o.integer("block-size"));
    const int worksize_n = static_cast<int>(o.integer("worksize-n"));
    const gemv::Launch launch = gemv_threads_cols_launch<T>(m, n, block_size, worksize_n);
    const ColumnLanes c = gemv_threads_cols_lanes(m, block_size);
    return {{std::to_string(c.rows) + " rows x " + std::to_string(c.lanes) + " lanes", launch,
             gemv_threads_cols_traffic(m, n, launch),
             [=](cudaStream_t s) { gemv_threads_cols(A, x, y, m, n, worksize_n, launch, s); }}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "10";
    spec.name = "threads_cols";
    spec.title = "CUDA, threads of a block laid along the columns of wide column-major A, atomicAdd per part";
    spec.layouts = {gemv::Layout::col};
    spec.default_m = 16;  // wide and fat: the shape this kernel is for (16 M elements, as 4096 x 4096)
    spec.default_n = 1 << 20;
    spec.options = {
        gemv::integer_option("block-size", "BLOCKSIZE: threads per block, and elements of x per shared-memory chunk",
                             256, 32, 1024),
        gemv::integer_option("worksize-n", "WORKSIZE_n: chunks of BLOCKSIZE columns per block", 16, 1, 1 << 20),
    };
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
