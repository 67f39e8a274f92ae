// Step 17: when the roof is compute. Y = A·X for k vectors as in step 16, now with kernels that
// keep 8·T vectors: the bf16 tensor cores (mma.sync fragments, from global memory or with A and X
// staged through shared memory by cp.async) and, in float, FP32 FMA staged the same way. Side by
// side on one problem with step 16's register-blocked kernel and cuBLAS's gemm; the chooser's pick
// is marked. X (n×k) and Y (m×k) are column-major, as cuBLAS takes them; A is row- or column-major.
#include <cuda_runtime.h>

#include <ostream>

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
    const several::Choice choice = several::choose(o.precision, m, n, k, layout, f.cc_major);
    std::vector<several::Variant> out;

    // Each kernel's plan, run through gemv_planned; its roof is the one of the units it runs on.
    const auto add = [&](const char* name, const several::Plan& p) {
        out.push_back({name, several::planned_launch<T>(p, layout), several::planned_traffic(p, m, n, k, layout),
                       [=](cudaStream_t s) { several::gemv_planned<T>(p, layout, A, X, Y, m, n, k, s); },
                       several::plan_text(p), several::on_tensor_cores(p.kernel), choice.kernel == p.kernel});
    };
    add("register-blocked", several::plan_register_blocked(
                                m, n, k, layout, several::group_for(several::Kernel::register_blocked, k), f.sm_count));
    // The staged kernels' group of vectors (8·T, the same for both). These kernels need compute
    // capability 8.0 (bf16 MMA, cp.async).
    const int staged_group = several::group_for(several::Kernel::tensor_staged, k);
    if (f.cc_major >= 8) {
        if constexpr (std::is_same_v<T, float>) {
            add("FMA, staged", several::plan_fma_staged(m, n, k, layout, staged_group, f.sm_count,
                                                        several::fma_staged_blocks_per_sm(staged_group, layout)));
        } else {
            add("tensor cores", several::plan_tensor_cores(
                                    m, n, k, layout, several::group_for(several::Kernel::tensor_cores, k), f.sm_count));
            add("tensor cores, staged",
                several::plan_tensor_staged(m, n, k, layout, staged_group, f.sm_count,
                                            several::tensor_staged_blocks_per_sm(staged_group, layout)));
        }
    }
    out.push_back(several::cublas_variant<T>(A, X, Y, m, n, k, layout));

    // The chooser's pick marked in its name and note; each row with the roofline of its units.
    return several::roofline_rows(out, several::model_intensity(m, n, k, o.precision), roofs_of(f), &choice.why);
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
