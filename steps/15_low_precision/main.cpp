// Step 15: GEMV as a language model's decode step runs it. A (the weights) and x are stored in
// bf16, fp16 or fp8 (e4m3) and added up in float; y is float. Side by side on one problem: the
// warp-per-row kernel of this step (row-major), step 11's versatile kernel with its configuration
// from this device's tuning table for the format, and cuBLAS's cublasGemmEx (none for fp8). GB/s
// stays the figure: half the bytes of float take half the time, so elements per second double.
#include <algorithm>
#include <iostream>
#include <memory>

#include "device_problem.cuh"
#include "gemv_cublas_ex.hpp"
#include "gemv_low_precision.cuh"
#include "gemv_versatile.cuh"
#include "gpu_step.hpp"
#include "tuning_table.hpp"

namespace {

struct Variant {
    std::string name;
    gemv::Launch launch;  // kernel == nullptr for the library call
    gemv::Traffic traffic;
    std::function<void(cudaStream_t)> run;
    std::string note;
};

template <class T>
std::vector<Variant> variants(const gemv::Options& o, const gemv::DeviceFacts& f, const T* A, const T* x, float* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Layout layout = o.shape.layout;
    std::vector<Variant> out;
    if (layout == gemv::Layout::row) {  // this step's kernel reads rows
        const gemv::Launch l = gemv_warp_per_row_launch<T>(m, static_cast<int>(o.integer("block-size")));
        out.push_back({"warp per row", l, gemv::traffic_x_per_row(m, n),
                       [=](cudaStream_t s) { gemv_warp_per_row<T>(A, x, y, m, n, l, s); },
                       n % (16 / sizeof(T)) ? "element loads: a row is not a multiple of 16 bytes" : "16-byte loads"});
    }
    std::string table = o.text("table");
    if (table == "auto") table = default_table_path(f.name, o.precision, layout, m, n);
    const Choice choice = choose_config(table, f.name, f.sm_count, layout, o.precision, m, n);
    const VersatileGemv<T> versatile(choice.config, layout, m, n);
    const VersatilePlan& plan = versatile.plan();
    const std::string how = choice.source.rfind("tuned", 0) == 0 ? "tuned" : "heuristic";
    out.push_back({"versatile (" + how + ")", plan.launch, plan.traffic, [=](cudaStream_t s) { versatile(A, x, y, s); },
                   describe(choice.config) + " (" + choice.source + "); " + describe(plan)});
    if constexpr (cublas_has_product_for<T>) {
        gemv_cublas_require_int_sizes(m, n);
        auto handle = std::make_shared<CublasHandle>();  // once: the warm-up runs absorb its first call
        const gemv::Traffic least{double(m) * double(n), double(n), double(m)};
        out.push_back({std::string("cublasGemmEx ") + (layout == gemv::Layout::col ? "op N" : "op T"), gemv::Launch{},
                       least, [=](cudaStream_t s) { gemv_cublas_ex<T>(*handle, A, x, y, m, n, layout, s); },
                       "one column of B, float accumulation"});
    }
    return out;
}

template <class T>
int run(const gemv::Options& o, const gemv::StepSpec& spec) {
    gemv::DeviceFacts facts = gemv::query_device();
    const std::int64_t m = o.shape.m, n = o.shape.n;
    // A and x, and y, the reference and its scale (doubles) beside the longer of the two.
    gemv::require_device_memory(facts, gemv::model_bytes(m, n, o.precision) + std::uint64_t(std::max(m, n)) * 24);
    const double ceiling = gemv::measure_read_ceiling(facts);
    gemv::DeviceProblem<T> problem(m * n, std::max(m, n), o.seed);  // filled and checked on the GPU
    problem.use(m, n, o.shape.layout);
    float* y = problem.y();
    const auto poison = [&](cudaStream_t s) { GEMV_CUDA_CHECK(cudaMemsetAsync(y, 0xFF, std::size_t(m) * 4, s)); };

    std::vector<gemv::Result> results;
    bool all_ok = true;
    for (const Variant& v : variants<T>(o, facts, problem.A(), problem.x(), y)) {
        gemv::Result r = gemv::result_of(spec, o, v.name);
        r.time = gemv::time_gpu(facts, v.run, poison, o.warmup, o.reps, o.cold);
        r.ceiling_gbps = ceiling;
        r.datasheet_gbps = facts.datasheet_gbps();
        r.traffic = v.traffic;
        r.launch = (v.launch.kernel ? v.launch.describe() : "library call") + "; " + v.note;
        r.occupancy = gemv::occupancy_of(v.launch, facts);
        // The lesson of the step in one figure: elements of A a nanosecond, twice float's in bf16.
        r.extra = {{"elements_per_ns", gemv::fixed(double(m) * double(n) / (r.time.median_ms * 1e6), 2), true}};
        if (o.verify) {
            const unsigned long long wrong = problem.count_wrong_rows();  // the last timed run's y
            r.verified = wrong == 0;
            if (wrong)
                std::cerr << "step " << spec.number << " " << v.name << ": " << wrong << " of " << m
                          << " rows outside the bound of a float sum of the stored values\n";
            all_ok &= wrong == 0;
        }
        results.push_back(r);
    }
    gemv::print_results(std::cout, o.format, facts.metadata(), results);
    return all_ok ? gemv::kExitOk : gemv::kExitWrong;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "15";
    spec.name = "low_precision";
    spec.title = "A and x in bf16, fp16 or fp8, added up in float: half the bytes, half the time";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.precisions = {gemv::Precision::bf16, gemv::Precision::f16, gemv::Precision::fp8};
    spec.options = {
        gemv::integer_option("block-size", "threads per block of the warp-per-row kernel", 256, 32, 1024),
        gemv::text_option("table", "step 11's tuning table (default: this device's committed one)", "auto")};
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        return gemv::with_storage_type(o.precision, [&](auto stored) {
            if constexpr (std::is_same_v<decltype(stored), float> || std::is_same_v<decltype(stored), double>)
                return int(gemv::kExitUsage);  // not among this step's precisions: parse_options refused it
            else
                return run<decltype(stored)>(o, spec);
        });
    });
}
