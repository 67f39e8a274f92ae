#include "roofline_report.hpp"

#include <cmath>

#include "format.hpp"
#include "several_vectors.hpp"

namespace several {

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

}  // namespace several
