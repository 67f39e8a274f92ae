// Step 12: cuBLAS's ?gemv on the same problem and in the same harness as every kernel of the lab:
// the yardstick the ladder divides by. Both layouts, with no copy: op N on column-major A, op T
// on row-major A read as its column-major transpose.
#include <memory>
#include <string>

#include "gemv_cublas.hpp"
#include "gpu_step.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts&, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Layout layout = o.shape.layout;
    gemv_cublas_require_int_sizes(m, n);
    // Created once, here, and shared by every run: the warm-up runs absorb cuBLAS's first call.
    auto handle = std::make_shared<CublasHandle>();
    const std::string name =
        std::string(sizeof(T) == 4 ? "cublasSgemv" : "cublasDgemv") + (layout == gemv::Layout::col ? " op N" : " op T");
    // What cuBLAS loads is its own business: counted here as the least any kernel must move
    // (A, x and y once), so its CGMA is the ceiling the hand-written steps are compared with.
    const gemv::Traffic least{static_cast<double>(m) * static_cast<double>(n), static_cast<double>(n),
                              static_cast<double>(m)};
    gemv::Launch library;  // kernel == nullptr: cuBLAS picks its own launch, so no occupancy
    return {{name, library, least, [=](cudaStream_t s) { gemv_cublas(*handle, A, x, y, m, n, layout, s); }}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "12";
    spec.name = "cublas";
    spec.title = "cuBLAS ?gemv, op N on column-major A, op T on row-major A: the ladder's yardstick";
    spec.layouts = {gemv::Layout::col, gemv::Layout::row};
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
