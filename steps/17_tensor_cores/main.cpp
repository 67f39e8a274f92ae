// Step 17: when the roof is compute. Y = A·X for k vectors as in step 16, now with kernels that
// keep 8·T vectors: the bf16 tensor cores (mma.sync fragments, from global memory or with A and X
// staged through shared memory by cp.async) and, in float, FP32 FMA staged the same way. Side by
// side on one problem with step 16's register-blocked kernel and cuBLAS's gemm; the chooser's pick
// is marked. X (n×k) and Y (m×k) are column-major, as cuBLAS takes them; A is row- or column-major.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <ostream>

#include "chooser.hpp"
#include "cublas_gemm.hpp"
#include "device_problem.cuh"
#include "gemv_tensor.cuh"
#include "gpu_step.hpp"
#include "roofline_report.hpp"

namespace {

struct Variant {
    std::string name;
    gemv::Launch launch;  // kernel == nullptr for the library call
    gemv::Traffic traffic;
    std::function<void(cudaStream_t)> run;
    std::string note;
    bool tensor_cores;  // which compute roof applies
    bool chosen;
};

std::string plan_text(const several::Plan& p) {
    const char* keeper = p.kernel == several::Kernel::register_blocked ? "thread"
                         : p.kernel == several::Kernel::tensor_cores   ? "warp"
                                                                       : "block";  // the staged kernels
    std::string s = std::to_string(p.group) + " vectors a " + keeper;
    if (p.groups > 1) s += ", A read " + std::to_string(p.groups) + " times";
    if (p.slices > 1) s += ", " + std::to_string(p.slices) + " column slices (atomicAdd)";
    return s;
}

// The compute peaks of this GPU: FP32 FMA, and the bf16 tensor cores (0 where it has none).
struct Peaks {
    double fma, tensor;
};

Peaks peaks_of(const gemv::DeviceFacts& f) {
    return {several::fma_peak_of(f),
            several::tensor_peak_gflops(f.sm_count, several::clock_khz_of(f), f.cc_major, f.cc_minor)};
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
    const several::Choice choice = several::choose(o.precision, m, n, k, layout, f.cc_major);
    std::vector<Variant> out;

    // Each kernel's plan, run through gemv_planned; its roof is the one of the units it runs on.
    const auto add = [&](const char* name, const several::Plan& p) {
        out.push_back({name, planned_launch<T>(p, layout), several::planned_traffic(p, m, n, k, layout),
                       [=](cudaStream_t s) { gemv_planned<T>(p, layout, A, X, Y, m, n, k, s); }, plan_text(p),
                       several::on_tensor_cores(p.kernel), choice.kernel == p.kernel});
    };
    add("register-blocked", several::plan_register_blocked(
                                m, n, k, layout, several::group_for(several::Kernel::register_blocked, k), f.sm_count));
    // The staged kernels' group of vectors (8·T, the same for both). These kernels need compute
    // capability 8.0 (bf16 MMA, cp.async).
    const int staged_group = several::group_for(several::Kernel::tensor_staged, k);
    if (f.cc_major >= 8) {
        if constexpr (std::is_same_v<T, float>) {
            add("FMA, staged", several::plan_fma_staged(m, n, k, layout, staged_group, f.sm_count,
                                                        fma_staged_blocks_per_sm(staged_group, layout)));
        } else {
            add("tensor cores", several::plan_tensor_cores(
                                    m, n, k, layout, several::group_for(several::Kernel::tensor_cores, k), f.sm_count));
            add("tensor cores, staged", several::plan_tensor_staged(m, n, k, layout, staged_group, f.sm_count,
                                                                    tensor_staged_blocks_per_sm(staged_group, layout)));
        }
    }
    gemv_cublas_require_int_sizes(m, n);
    auto handle = std::make_shared<CublasHandle>();  // once: the warm-up runs absorb its first call
    const gemv::Traffic least{double(m) * double(n), double(n) * k, double(m) * k};
    const bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    out.push_back(
        {std::string(bf16 ? "cublasGemmEx" : "cublasSgemm") + (layout == gemv::Layout::col ? " op N" : " op T"),
         gemv::Launch{}, least, [=](cudaStream_t s) { gemm_cublas<T>(*handle, A, X, Y, m, n, k, layout, s); },
         bf16 ? "float sums (CUBLAS_COMPUTE_32F)" : "FP32", bf16, false});

    // The chooser's pick marked in its name and note; each row with the roofline of its units.
    const Peaks peaks = peaks_of(f);
    const double intensity = several::model_intensity(m, n, k, o.precision);
    std::vector<gemv::GpuKernel> rows;
    for (const Variant& v : out)
        rows.push_back({v.name + (v.chosen ? " (chosen)" : ""), v.launch, v.traffic, v.run,
                        v.chosen ? v.note + "; the chooser's pick: " + choice.why : v.note,
                        [=, chosen = v.chosen, tensor_cores = v.tensor_cores](const gemv::Result& r) {
                            gemv::Fields fields =
                                several::roofline_fields(r, intensity, tensor_cores ? peaks.tensor : peaks.fma,
                                                         tensor_cores ? "bf16 tensor cores" : "fp32 fma");
                            fields.push_back({"chosen", chosen ? "yes" : "no", false});
                            return fields;
                        }});
    return rows;
}

// Below the table: the roofline at this k, and each variant's share of its roof.
void print_roofline(std::ostream& out, const gemv::DeviceFacts& f, const std::vector<gemv::Result>& results) {
    const Peaks peaks = peaks_of(f);
    several::print_roofline(out, results, peaks.fma, peaks.tensor);
}

template <class T>
int run(const gemv::Options& o, const gemv::StepSpec& spec) {
    return gemv::run_device_problem_step<T>(o, spec, kernels<T>, static_cast<int>(o.integer("k")), print_roofline);
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "17";
    spec.name = "tensor_cores";
    spec.title =
        "Y = A·X for k vectors on the tensor cores and through shared memory, and the chooser among the kernels";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.precisions = {gemv::Precision::f32, gemv::Precision::bf16};
    spec.options = {gemv::integer_option("k", "right-hand sides: columns of X and Y", 8, 1, several::kMaxVectors)};
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        if (o.precision == gemv::Precision::bf16) return run<__nv_bfloat16>(o, spec);
        return run<float>(o, spec);
    });
}
