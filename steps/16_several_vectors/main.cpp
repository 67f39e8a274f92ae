// Step 16: several vectors at once, Y = A·X for k = 1 … 256 right-hand sides. A is read once for
// a group of vectors, so the flops a byte grow with k (step 07's CGMA, now on GEMV) and the
// product climbs the memory roof until the compute roof stops it. Side by side on one problem: the
// register-blocked kernel (the exercise) and cuBLAS's gemm, each with its share of the roofline.
// X (n×k) and Y (m×k) are column-major, as cuBLAS takes them; A is row- or column-major.
#include <cuda_runtime.h>

#include <limits>
#include <ostream>

#include "device_problem.cuh"
#include "gemv_several.cuh"
#include "gpu_step.hpp"
#include "roofline_report.hpp"
#include "several_vectors.hpp"
#include "storage.hpp"

namespace several = gemv::several;

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& f,
                                     gemv::DeviceProblem<T>& problem) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const int k = problem.vectors();
    const gemv::Layout layout = o.shape.layout;
    const T* A = problem.A();
    const T* X = problem.x();
    float* Y = problem.y();
    std::vector<several::Variant> out;

    const several::Plan p = several::plan_register_blocked(m, n, k, layout, several::register_group_for(k), f.sm_count);
    out.push_back({"register-blocked", several::launch_of<T>(p, layout), several::traffic_of(p, m, n, k, layout),
                   [=](cudaStream_t s) { several::gemv_register_blocked<T>(p, layout, A, X, Y, m, n, k, s); },
                   several::plan_text(p)});
    out.push_back(several::cublas_variant<T>(A, X, Y, m, n, k, layout));

    // Each row with the roofline of its units: FP32 FMA; cuBLAS in bf16 computes on the tensor
    // cores, whose roof is step 17's: the memory roof alone here.
    const several::Roofs roofs{several::fma_peak_of(f), std::numeric_limits<double>::infinity(),
                               "bf16 tensor cores (memory roof only)"};
    return several::roofline_rows(out, several::model_intensity(m, n, k, o.precision), roofs);
}

// Below the table: the roofline at this k, and each variant's share of its roof.
void print_roofline(std::ostream& out, const gemv::DeviceFacts& f, const std::vector<gemv::Result>& results) {
    several::print_roofline(out, results, several::fma_peak_of(f));
}

}  // namespace

int main(int argc, char** argv) {
    const gemv::StepSpec spec = several::step_spec(
        "16", "several_vectors", "Y = A·X for k vectors: A read once for k, from GEMV to GEMM on the roofline");
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        return gemv::with_storage_type_among<float, __nv_bfloat16>(o.precision, [&](auto type) {
            using T = decltype(type);
            return gemv::run_device_problem_step<T>(o, spec, kernels<T>, int(o.integer("k")), print_roofline);
        });
    });
}
