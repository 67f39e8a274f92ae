// Step 16: several vectors at once, Y = A·X for k = 1 … 256 right-hand sides. A is read once for
// a group of vectors, so the flops a byte grow with k (step 07's CGMA, now on GEMV) and the
// product climbs the memory roof until the compute roof stops it. Side by side on one problem: the
// register-blocked kernel (the exercise) and cuBLAS's gemm, each with its share of the roofline.
// X (n×k) and Y (m×k) are column-major, as cuBLAS takes them; A is row- or column-major.
#include <cuda_runtime.h>

#include <functional>
#include <limits>
#include <memory>
#include <ostream>

#include "cublas_gemm.hpp"
#include "device_problem.cuh"
#include "gemv_several.cuh"
#include "gpu_step.hpp"
#include "roofline_report.hpp"
#include "several_vectors.hpp"

namespace {

struct Variant {
    std::string name;
    gemv::Launch launch;  // kernel == nullptr for the library call
    gemv::Traffic traffic;
    std::function<void(cudaStream_t)> run;
    std::string note;
    bool tensor_cores;  // cuBLAS in bf16: held to the memory roof alone (its tensor cores are step 17's)
};

std::string plan_text(const several::Plan& p) {
    std::string s = std::to_string(p.group) + " vectors a thread";
    if (p.groups > 1) s += ", A read " + std::to_string(p.groups) + " times";
    if (p.slices > 1) s += ", " + std::to_string(p.slices) + " column slices (atomicAdd)";
    return s;
}

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& f,
                                     gemv::DeviceProblem<T>& problem) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const int k = problem.vectors();
    const gemv::Layout layout = o.shape.layout;
    const T* A = problem.A();
    const T* X = problem.x();
    float* Y = problem.y();
    std::vector<Variant> out;

    const several::Plan p = several::plan_register_blocked(m, n, k, layout, several::register_group_for(k), f.sm_count);
    out.push_back({"register-blocked", launch_of<T>(p, layout), several::traffic_of(p, m, n, k, layout),
                   [=](cudaStream_t s) { gemv_register_blocked<T>(p, layout, A, X, Y, m, n, k, s); }, plan_text(p),
                   false});
    gemv_cublas_require_int_sizes(m, n);
    auto handle = std::make_shared<CublasHandle>();  // once: the warm-up runs absorb its first call
    const gemv::Traffic least{double(m) * double(n), double(n) * k, double(m) * k};
    const bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    out.push_back(
        {std::string(bf16 ? "cublasGemmEx" : "cublasSgemm") + (layout == gemv::Layout::col ? " op N" : " op T"),
         gemv::Launch{}, least, [=](cudaStream_t s) { gemm_cublas<T>(*handle, A, X, Y, m, n, k, layout, s); },
         bf16 ? "float sums (CUBLAS_COMPUTE_32F)" : "FP32", bf16});

    // Each row with the roofline of its units: FP32 FMA; cuBLAS in bf16 computes on the tensor
    // cores, whose roof is step 17's: the memory roof alone here.
    const double fma = several::fma_peak_of(f);
    const double intensity = several::model_intensity(m, n, k, o.precision);
    std::vector<gemv::GpuKernel> rows;
    for (const Variant& v : out) {
        const double peak = v.tensor_cores ? std::numeric_limits<double>::infinity() : fma;
        const std::string units = v.tensor_cores ? "bf16 tensor cores (memory roof only)" : "fp32 fma";
        rows.push_back({v.name, v.launch, v.traffic, v.run, v.note,
                        [=](const gemv::Result& r) { return several::roofline_fields(r, intensity, peak, units); }});
    }
    return rows;
}

// Below the table: the roofline at this k, and each variant's share of its roof.
void print_roofline(std::ostream& out, const gemv::DeviceFacts& f, const std::vector<gemv::Result>& results) {
    several::print_roofline(out, results, several::fma_peak_of(f));
}

template <class T>
int run(const gemv::Options& o, const gemv::StepSpec& spec) {
    return gemv::run_device_problem_step<T>(o, spec, kernels<T>, static_cast<int>(o.integer("k")), print_roofline);
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "16";
    spec.name = "several_vectors";
    spec.title = "Y = A·X for k vectors: A read once for k, from GEMV to GEMM on the roofline";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.precisions = {gemv::Precision::f32, gemv::Precision::bf16};
    spec.options = {gemv::integer_option("k", "right-hand sides: columns of X and Y", 8, 1, several::kMaxVectors)};
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        if (o.precision == gemv::Precision::bf16) return run<__nv_bfloat16>(o, spec);
        return run<float>(o, spec);
    });
}
