// Step 16: several vectors at once, Y = A·X for k = 1 … 256 right-hand sides. A is read once for
// a group of vectors, so the flops a byte grow with k (step 07's CGMA, now on GEMV) and the
// product climbs the memory roof until the compute roof stops it: FP32 FMA in float, the tensor
// cores in bf16. Side by side on one problem: the register-blocked kernel (the exercise), the
// tensor-core kernel (bf16), and cuBLAS's gemm; the chooser's pick is marked. X (n×k) and Y (m×k)
// are column-major, as cuBLAS takes them; A is row- or column-major.
#include <cuda_runtime.h>

#include <functional>
#include <iostream>
#include <memory>

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
    bool tensor_cores;  // which compute roof applies
    bool chosen;
};

std::string plan_text(const several::Plan& p) {
    std::string s =
        std::to_string(p.group) + " vectors a " + (p.kernel == several::Kernel::tensor_cores ? "block" : "thread");
    if (p.groups > 1) s += ", A read " + std::to_string(p.groups) + " times";
    if (p.slices > 1) s += ", " + std::to_string(p.slices) + " column slices (atomicAdd)";
    return s;
}

template <class T>
std::vector<Variant> variants(const gemv::Options& o, const gemv::DeviceFacts& f, gemv::DeviceProblem<T>& problem) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const int k = static_cast<int>(o.integer("k"));
    const gemv::Layout layout = o.shape.layout;
    const T* A = problem.A();
    const T* X = problem.x();
    float* Y = problem.y();
    const several::Choice choice = several::choose(o.precision, m, n, k, f.cc_major);
    std::vector<Variant> out;

    const several::Plan rb = several::plan_register_blocked(
        m, n, k, layout, several::group_for(several::Kernel::register_blocked, k), f.sm_count);
    out.push_back({"register-blocked", launch_of<T>(rb, layout), several::traffic_of(rb, m, n, k, layout),
                   [=](cudaStream_t s) { gemv_register_blocked<T>(rb, layout, A, X, Y, m, n, k, s); }, plan_text(rb),
                   false, choice.kernel == several::Kernel::register_blocked});
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        if (f.cc_major >= 8) {
            const several::Plan tc =
                several::plan_tensor_cores(m, n, k, several::group_for(several::Kernel::tensor_cores, k), f.sm_count);
            out.push_back({"tensor cores", launch_of<T>(tc, layout), several::traffic_of(tc, m, n, k, layout),
                           [=](cudaStream_t s) { gemv_tensor_cores(tc, layout, A, X, Y, m, n, k, s); }, plan_text(tc),
                           true, choice.kernel == several::Kernel::tensor_cores});
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
    for (Variant& v : out)
        if (v.chosen) v.note += "; the chooser's pick: " + choice.why;
    return out;
}

template <class T>
int run(const gemv::Options& o, const gemv::StepSpec& spec) {
    gemv::DeviceFacts facts = gemv::query_device();
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const int k = static_cast<int>(o.integer("k"));
    gemv::require_device_memory(facts, gemv::DeviceProblem<T>::bytes(o.shape, k));
    const double ceiling = gemv::measure_read_ceiling(facts);
    int clock_khz = 0;
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, facts.id));
    const double fma = several::fma_peak_gflops(facts.sm_count, clock_khz, facts.cc_major, facts.cc_minor);
    const double tensor = several::tensor_peak_gflops(facts.sm_count, clock_khz, facts.cc_major, facts.cc_minor);
    const double intensity = several::model_intensity(m, n, k, o.precision);

    gemv::DeviceProblem<T> problem(o.shape, o.seed, k);  // filled and checked on the GPU
    const auto poison = [&](cudaStream_t s) { problem.poison(s); };
    std::vector<gemv::Result> results;
    bool all_ok = true;
    for (const Variant& v : variants<T>(o, facts, problem)) {
        gemv::Result r = gemv::result_of(spec, o, v.name + (v.chosen ? " (chosen)" : ""));
        r.vectors = k;
        r.time = gemv::time_gpu(facts, v.run, poison, o.warmup, o.reps, o.cold);
        r.ceiling_gbps = ceiling;
        r.datasheet_gbps = facts.datasheet_gbps();
        r.traffic = v.traffic;
        r.launch = (v.launch.kernel ? v.launch.describe() : "library call") + "; " + v.note;
        r.occupancy = gemv::occupancy_of(v.launch, facts);
        // The roofline of the units this variant computes on: FP32 FMA, or the bf16 tensor cores.
        const double peak = v.tensor_cores ? tensor : fma;
        const double roof = several::roof_gflops(ceiling, intensity, peak);
        r.extra = {{"k", std::to_string(k), true},
                   {"model_intensity", gemv::fixed(intensity, 4), true},
                   {"memory_roof_gflops", gemv::fixed(ceiling * intensity, 1), true},
                   {"compute_peak_gflops", gemv::fixed(peak, 1), true},
                   {"compute_units", v.tensor_cores ? "bf16 tensor cores" : "fp32 fma", false},
                   {"roof_gflops", gemv::fixed(roof, 1), true},
                   {"pct_roofline", gemv::fixed(100.0 * r.gflops() / roof, 2), true},
                   {"chosen", v.chosen ? "yes" : "no", false}};
        if (o.verify) {
            const unsigned long long wrong = problem.count_wrong_rows();  // the last timed run's Y
            r.verified = wrong == 0;
            if (wrong)
                std::cerr << "step " << spec.number << " " << v.name << ": " << wrong << " of " << m * k
                          << " elements of Y outside the bound of a float sum of the stored values\n";
            all_ok &= wrong == 0;
        }
        results.push_back(r);
    }
    gemv::print_results(std::cout, o.format, facts.metadata(), results);
    if (o.format == gemv::Format::table) {
        std::cout << "\nroofline at k = " << k << ": " << gemv::fixed(intensity, 2)
                  << " flop/byte (A once, X and Y once); memory roof " << gemv::fixed(ceiling * intensity, 0)
                  << " GFLOP/s, FP32 FMA peak " << gemv::fixed(fma, 0) << " GFLOP/s";
        if (tensor > 0) std::cout << ", bf16 tensor-core peak " << gemv::fixed(tensor, 0) << " GFLOP/s";
        std::cout << "\n";
        const auto field = [](const gemv::Result& r, const std::string& name) {
            for (const auto& f : r.extra)
                if (f.name == name) return f.text;
            return std::string("-");
        };
        for (const auto& r : results)
            std::cout << "  " << r.variant << ": " << gemv::fixed(r.gflops(), 0) << " GFLOP/s, "
                      << field(r, "pct_roofline") << " % of its roof (" << field(r, "roof_gflops") << " GFLOP/s, "
                      << field(r, "compute_units") << ")\n";
    }
    return all_ok ? gemv::kExitOk : gemv::kExitWrong;
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
