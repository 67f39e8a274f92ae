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

// The FP32 FMA peak of this GPU.
double fma_peak(const gemv::DeviceFacts& f) {
    int clock_khz = 0;
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, f.id));
    return several::fma_peak_gflops(f.sm_count, clock_khz, f.cc_major, f.cc_minor);
}

// A row's own columns: the roofline of the units the variant computes on (FP32 FMA; cuBLAS in bf16
// runs on the tensor cores, whose roof is step 17's: the memory roof alone here), from the measured
// ceiling and time.
std::function<gemv::Fields(const gemv::Result&)> roofline_figures(double intensity, double peak, bool tensor_cores) {
    return [=](const gemv::Result& r) -> gemv::Fields {
        const double roof = several::roof_gflops(r.ceiling_gbps, intensity, peak);
        return {{"k", std::to_string(r.vectors), true},
                {"model_intensity", gemv::fixed(intensity, 4), true},
                {"memory_roof_gflops", gemv::fixed(r.ceiling_gbps * intensity, 1), true},
                {"compute_peak_gflops", tensor_cores ? "-" : gemv::fixed(peak, 1), !tensor_cores},
                {"compute_units", tensor_cores ? "bf16 tensor cores (memory roof only)" : "fp32 fma", false},
                {"roof_gflops", gemv::fixed(roof, 1), true},
                {"pct_roofline", gemv::fixed(100.0 * r.gflops() / roof, 2), true}};
    };
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

    // Each row with the roofline of its units.
    const double peak = fma_peak(f);
    const double intensity = several::model_intensity(m, n, k, o.precision);
    std::vector<gemv::GpuKernel> rows;
    for (const Variant& v : out)
        rows.push_back({v.name, v.launch, v.traffic, v.run, v.note,
                        roofline_figures(intensity, v.tensor_cores ? std::numeric_limits<double>::infinity() : peak,
                                         v.tensor_cores)});
    return rows;
}

// Below the table: the roofline at this k, and each variant's share of its roof.
void print_roofline(std::ostream& out, const gemv::DeviceFacts& f, const std::vector<gemv::Result>& results) {
    if (results.empty()) return;
    const gemv::Result& first = results.front();
    const std::int64_t k = first.vectors;
    const double intensity = several::model_intensity(first.shape.m, first.shape.n, k, first.precision);
    const double ceiling = first.ceiling_gbps;
    const double peak = fma_peak(f);
    out << "\nroofline at k = " << k << ": " << gemv::fixed(intensity, 2)
        << " flop/byte (A once, X and Y once); memory roof " << gemv::fixed(ceiling * intensity, 0)
        << " GFLOP/s, FP32 FMA peak " << gemv::fixed(peak, 0) << " GFLOP/s (ridge point "
        << gemv::fixed(several::ridge_intensity(ceiling, peak), 1) << " flop/byte)\n";
    const auto field = [](const gemv::Result& r, const std::string& name) {
        for (const auto& f : r.extra)
            if (f.name == name) return f.text;
        return std::string("-");
    };
    for (const auto& r : results)
        out << "  " << r.variant << ": " << gemv::fixed(r.gflops(), 0) << " GFLOP/s, " << field(r, "pct_roofline")
            << " % of its roof (" << field(r, "roof_gflops") << " GFLOP/s, " << field(r, "compute_units") << ")\n";
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
