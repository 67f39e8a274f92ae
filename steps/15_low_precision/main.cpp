// Step 15: GEMV as a language model's decode step runs it. A (the weights) and x are stored in
// bf16, fp16 or fp8 (e4m3) and added up in float; y is float. Side by side on one problem: the
// warp-per-row kernel of this step (row-major), step 11's versatile kernel with its configuration
// from this device's tuning table for the format, and cuBLAS's cublasGemmEx (bf16, fp16) or cuBLASLt's fp8
// matmul (row-major shapes it takes; elsewhere the reason on stderr). GB/s stays the figure: half the bytes of float
// take half the time, so elements per second double.
// --scales (fp8, row-major): A with the scales models store fp8 weights with, per tensor, per row or per block of
// 128 columns; the reference carries them. Only the kernels that honour them run: the warp per row in every mode,
// cuBLASLt with a scale per tensor; stderr names the lines left out and why.
#include <iostream>
#include <memory>

#include "device_problem.cuh"
#include "gemv_cublas_ex.hpp"
#include "gemv_cublaslt_fp8.hpp"
#include "gemv_low_precision.cuh"
#include "gemv_versatile.cuh"
#include "gpu_step.hpp"
#include "pick_timed.cuh"
#include "resolve.hpp"
#include "step15_options.hpp"

namespace {

// The lesson of the step in one figure: elements of A a nanosecond, twice float's in bf16; and the scales A carries.
std::function<gemv::Fields(const gemv::Result&)> figures(gemv::Scales scales) {
    return [scales](const gemv::Result& r) {
        return gemv::Fields{
            {"elements_per_ns", gemv::fixed(double(r.shape.m) * double(r.shape.n) / (r.time.median_ms * 1e6), 2), true},
            {"scales", to_string(scales), false}};
    };
}

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& f,
                                     gemv::DeviceProblem<T>& problem) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Layout layout = o.shape.layout;
    const T* A = problem.A();
    const T* x = problem.x();
    float* y = problem.y();
    const gemv::Scales mode = step15_scales(o);
    if (mode != gemv::Scales::none) problem.use(m, n, layout, mode);  // the scales drawn, the reference scaled
    const gemv::DeviceScales scales = problem.scales();
    const auto elements_per_ns = figures(mode);
    std::vector<gemv::GpuKernel> out;
    if (layout == gemv::Layout::row) {  // this step's kernel reads rows
        const gemv::Launch l = gemv_warp_per_row_launch<T>(m, static_cast<int>(o.integer("block-size")), mode);
        out.push_back({"warp per row", l, gemv_warp_per_row_traffic(m, n, mode),
                       [=](cudaStream_t s) { gemv_warp_per_row<T>(A, x, y, m, n, l, s, scales); },
                       n % (16 / sizeof(T)) ? "element loads: a row is not a multiple of 16 bytes" : "16-byte loads",
                       elements_per_ns});
    }
    // A kernel that ignores the scales, timed against the scaled reference, would time another product: left out.
    if (mode != gemv::Scales::none) {
        std::cerr << "step 15: no versatile line: step 11's kernel takes no scales (--scales " << to_string(mode)
                  << ")\n";
    } else {
        const gemv::Resolved choice = gemv::pick_timed<T>(o.text("table"), f, layout, m, n, A, x, y);
        const gemv::VersatileGemv<T> versatile(choice.config, layout, m, n);
        const gemv::VersatilePlan& plan = versatile.plan();
        out.push_back({std::string("versatile (") + to_string(choice.how) + ")", plan.launch, plan.traffic,
                       [=](cudaStream_t s) { versatile(A, x, y, s); },
                       describe(choice.config) + " (" + choice.source + "); " + describe(plan), elements_per_ns});
    }
    gemv::Traffic least{double(m) * double(n), double(n), double(m)};
    if constexpr (cublas_gemm_ex_takes<T>) {  // bf16 and fp16: no scales (step15_scales refuses them)
        gemv_cublas_require_int_sizes(m, n);
        auto handle = std::make_shared<CublasHandle>();  // once: the warm-up runs absorb its first call
        out.push_back({std::string("cublasGemmEx ") + (layout == gemv::Layout::col ? "op N" : "op T"), gemv::Launch{},
                       least, [=](cudaStream_t s) { gemv_cublas_ex<T>(*handle, A, x, y, m, n, layout, s); },
                       "one column of B, float accumulation", elements_per_ns});
    } else if (mode == gemv::Scales::row || mode == gemv::Scales::block128) {
        std::cerr << "step 15: no cuBLASLt fp8 line: the lab's cuBLASLt call takes a scale per tensor only, not "
                  << "--scales " << to_string(mode) << "\n";
    } else {
        // fp8: cuBLASLt's matmul, planned once (descriptors, algorithm, workspace) where it takes the shape; a scale
        // per tensor is its A scale, a device pointer it reads as it runs.
        least.scale_elems = mode == gemv::Scales::tensor ? 1 : 0;
        auto lt = std::make_shared<CublasLtFp8Gemv>(layout, m, n, scales.values);
        if (lt->takes())
            out.push_back({"cuBLASLt fp8 op T", gemv::Launch{}, least, [=](cudaStream_t s) { (*lt)(A, x, y, s); },
                           std::string("TN form, one column of B, float accumulation") +
                               (scales.values ? ", A scale per tensor" : ""),
                           elements_per_ns});
        else
            std::cerr << "step 15: no cuBLASLt fp8 line: " << lt->refusal() << "\n";
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const gemv::StepSpec spec = step15_spec();
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        step15_scales(o);  // its refusals, before any device is asked for
        return gemv::with_storage_type_among<__nv_bfloat16, __half, __nv_fp8_e4m3>(o.precision, [&](auto stored) {
            return gemv::run_device_problem_step<decltype(stored)>(o, spec, kernels<decltype(stored)>);
        });
    });
}
