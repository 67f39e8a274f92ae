#include "roofline_report.hpp"

#include <cmath>
#include <memory>
#include <type_traits>

#include "cublas_gemm.hpp"

#include "format.hpp"
#include "several_vectors.hpp"

namespace gemv::several {

gemv::StepSpec step_spec(const std::string& number, const std::string& name, const std::string& title) {
    gemv::StepSpec spec;
    spec.number = number;
    spec.name = name;
    spec.title = title;
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.precisions = {gemv::Precision::f32, gemv::Precision::bf16};
    spec.options = {gemv::integer_option("k", "right-hand sides: columns of X and Y", 8, 1, kMaxVectors)};
    return spec;
}

int clock_khz_of(const gemv::DeviceFacts& f) {
    int clock_khz = 0;
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, f.id));
    return clock_khz;
}

double fma_peak_of(const gemv::DeviceFacts& f) {
    return fma_peak_gflops(f.sm_count, clock_khz_of(f), f.cc_major, f.cc_minor);
}

gemv::Fields roofline_fields(const gemv::Result& r, double intensity, double peak, const std::string& units) {
    const double roof = roof_gflops(r.ceiling_gbps, intensity, peak);
    return {{"k", std::to_string(r.vectors), true},
            {"model_intensity", gemv::fixed(intensity, 4), true},
            {"memory_roof_gflops", gemv::fixed(r.ceiling_gbps * intensity, 1), true},
            {"compute_peak_gflops", gemv::fixed(peak, 1), std::isfinite(peak)},
            {"compute_units", units, false},
            {"roof_gflops", gemv::fixed(roof, 1), true},
            {"pct_roofline", gemv::fixed(100.0 * r.gflops() / roof, 2), true}};
}

void print_roofline(std::ostream& out, const std::vector<gemv::Result>& results, double fma_peak, double tensor_peak) {
    if (results.empty()) return;
    const gemv::Result& first = results.front();
    const std::int64_t k = first.vectors;
    const double intensity = model_intensity(first.shape.m, first.shape.n, k, first.precision);
    const double ceiling = first.ceiling_gbps;
    out << "\nroofline at k = " << k << ": " << gemv::fixed(intensity, 2)
        << " flop/byte (A once, X and Y once); memory roof " << gemv::fixed(ceiling * intensity, 0)
        << " GFLOP/s, FP32 FMA peak " << gemv::fixed(fma_peak, 0) << " GFLOP/s (ridge point "
        << gemv::fixed(ridge_intensity(ceiling, fma_peak), 1) << " flop/byte)";
    if (tensor_peak > 0) out << ", bf16 tensor-core peak " << gemv::fixed(tensor_peak, 0) << " GFLOP/s";
    out << "\n";
    const auto field = [](const gemv::Result& r, const std::string& name) {
        for (const auto& f : r.extra)
            if (f.name == name) return f.text;
        return std::string("-");
    };
    for (const auto& r : results)
        out << "  " << r.variant << ": " << gemv::fixed(r.gflops(), 0) << " GFLOP/s, " << field(r, "pct_roofline")
            << " % of its roof (" << field(r, "roof_gflops") << " GFLOP/s, " << field(r, "compute_units") << ")\n";
}

std::string plan_text(const Plan& p) {
    const char* keeper = p.kernel == Kernel::register_blocked ? "thread"
                         : p.kernel == Kernel::tensor_cores   ? "warp"
                                                              : "block";  // the staged kernels
    std::string s = std::to_string(p.group) + " vectors a " + keeper;
    if (p.kernel == Kernel::fma_staged && p.chunks != FmaChunks::narrow) s += std::string(", ") + to_string(p.chunks);
    if (p.groups > 1) s += ", A read " + std::to_string(p.groups) + " times";
    if (p.cluster > 1) s += ", clusters of " + std::to_string(p.cluster) + " sharing X";
    if (p.slices > 1) s += ", " + std::to_string(p.slices) + " column slices (atomicAdd)";
    return s;
}

template <class T>
Variant cublas_variant(const T* A, const T* X, float* Y, std::int64_t m, std::int64_t n, int k, gemv::Layout layout) {
    gemv_cublas_require_int_sizes(m, n);
    auto handle = std::make_shared<CublasHandle>();  // once: the warm-up runs absorb its first call
    const gemv::Traffic least{double(m) * double(n), double(n) * k, double(m) * k};
    const bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    return {std::string(bf16 ? "cublasGemmEx" : "cublasSgemm") + (layout == gemv::Layout::col ? " op N" : " op T"),
            gemv::Launch{},
            least,
            [=](cudaStream_t s) { gemm_cublas<T>(*handle, A, X, Y, m, n, k, layout, s); },
            bf16 ? "float sums (CUBLAS_COMPUTE_32F)" : "FP32",
            bf16};
}
template Variant cublas_variant<float>(const float*, const float*, float*, std::int64_t, std::int64_t, int,
                                       gemv::Layout);
template Variant cublas_variant<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, float*, std::int64_t,
                                               std::int64_t, int, gemv::Layout);

std::vector<gemv::GpuKernel> roofline_rows(const std::vector<Variant>& variants, double intensity, const Roofs& roofs,
                                           const std::string* why) {
    std::vector<gemv::GpuKernel> rows;
    for (const Variant& v : variants) {
        const double peak = v.tensor_cores ? roofs.tensor : roofs.fma;
        const std::string units = v.tensor_cores ? roofs.tensor_units : "fp32 fma";
        const bool marked = why && v.chosen;
        rows.push_back({v.name + (marked ? " (chosen)" : ""), v.launch, v.traffic, v.run,
                        marked ? v.note + "; the chooser's pick: " + *why : v.note,
                        [=, chooser = why != nullptr, chosen = v.chosen](const gemv::Result& r) {
                            gemv::Fields fields = roofline_fields(r, intensity, peak, units);
                            if (chooser) fields.push_back({"chosen", chosen ? "yes" : "no", false});
                            return fields;
                        }});
    }
    return rows;
}

}  // namespace gemv::several
