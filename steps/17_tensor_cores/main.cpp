// Step 17: when the roof is compute. Y = A·X for k vectors as in step 16, now with kernels that
// keep 8·T vectors: the bf16 tensor cores (mma.sync fragments, from global memory or with A and X
// staged through shared memory by cp.async) and, in float, FP32 FMA staged the same way. Side by
// side on one problem with step 16's register-blocked kernel (at k = 1 step 11's versatile kernel
// too) and cuBLAS's gemm; the chooser's pick (the fastest of them timed at the problem) is marked.
// X (n×k) and Y (m×k) are column-major, as cuBLAS takes them; A is row- or column-major.
#include <cuda_runtime.h>

#include <algorithm>
#include <ostream>
#include <string>

#include "chooser.hpp"
#include "device_problem.cuh"
#include "gemv_tensor.cuh"
#include "gpu_step.hpp"
#include "roofline_report.hpp"
#include "storage.hpp"

namespace several = gemv::several;

namespace {

// The compute roofs of this GPU: FP32 FMA, and the bf16 tensor cores (0 where it has none).
several::Roofs roofs_of(const gemv::DeviceFacts& f) {
    return {several::fma_peak_of(f),
            several::tensor_peak_gflops(f.sm_count, several::clock_khz_of(f), f.cc_major, f.cc_minor),
            "bf16 tensor cores"};
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
    // The chooser times its candidates here (the launches write Y, which the harness poisons
    // before each verified run); each candidate's plan is then one row, the fastest marked.
    const several::Chosen chosen = several::choose_by_timing<T>(f, layout, A, X, Y, m, n, k);
    const std::string why =
        "the fastest of " + std::to_string(chosen.launches.size()) + " kernels timed at this problem";
    std::vector<several::Variant> out;
    for (std::size_t i = 0; i < chosen.plans.size(); ++i) {
        const several::Plan& p = chosen.plans[i];
        // A kernel timed with several groups or clusters (the bulk one) names them in its rows.
        std::string name = several::to_string(p.kernel);
        const auto same_kernel = [&](const several::Plan& q) { return q.kernel == p.kernel; };
        if (std::count_if(chosen.plans.begin(), chosen.plans.end(), same_kernel) > 1)
            name += ", " + std::to_string(p.group) + " a block";
        if (p.cluster > 1) name += ", clusters of " + std::to_string(p.cluster);
        // Each kernel's plan, run through gemv_planned; its roof is the one of the units it runs on.
        out.push_back({name, several::planned_launch<T>(p, layout), several::planned_traffic(p, m, n, k, layout),
                       chosen.launches[i], several::plan_text(p), several::on_tensor_cores(p.kernel),
                       i == chosen.fastest});
    }
    if (chosen.versatile) {  // k = 1: step 11's kernel, in the configuration pick_timed chose for this problem
        const gemv::VersatilePlan& plan = chosen.versatile->plan;
        out.push_back({"versatile (step 11)", plan.launch, plan.traffic, chosen.launches.back(),
                       describe(chosen.versatile->resolved.config) + " (" + chosen.versatile->resolved.source + "); " +
                           describe(plan),
                       false, chosen.fastest + 1 == chosen.launches.size()});
    }
    out.push_back(several::cublas_variant<T>(A, X, Y, m, n, k, layout));

    // The chooser's pick marked in its name and note; each row with the roofline of its units.
    return several::roofline_rows(out, several::model_intensity(m, n, k, o.precision), roofs_of(f), &why);
}

// Below the table: the roofline at this k, and each variant's share of its roof.
void print_roofline(std::ostream& out, const gemv::DeviceFacts& f, const std::vector<gemv::Result>& results) {
    const several::Roofs roofs = roofs_of(f);
    several::print_roofline(out, results, roofs.fma, roofs.tensor);
}

}  // namespace

int main(int argc, char** argv) {
    const gemv::StepSpec spec = several::step_spec(
        "17", "tensor_cores",
        "Y = A·X for k vectors on the tensor cores and through shared memory, and the chooser among the kernels");
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        return gemv::with_storage_type_among<float, __nv_bfloat16>(o.precision, [&](auto type) {
            using T = decltype(type);
            return gemv::run_device_problem_step<T>(o, spec, kernels<T>, int(o.integer("k")), print_roofline);
        });
    });
}
