// Step 17's measured tuner: on one problem (shape, layout, precision), for each k of a list, times
// every group of the register-blocked kernel and, in float, of the staged FMA kernel, in bf16 of
// the tensor-core kernels (the bulk one where it runs), each verified first, and writes a CSV
// table: one row a (k, kernel, group), with the fastest of each k marked and the chooser's pick
// beside it (its candidates are one group of each kernel, timed again by the chooser).
#include <cuda_runtime.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "chooser.hpp"
#include "cli.hpp"
#include "device_problem.cuh"
#include "gemv_tensor.cuh"
#include "gpu_step.hpp"
#include "storage.hpp"

namespace several = gemv::several;

namespace {

std::vector<int> parse_ks(const std::string& text) {
    std::vector<int> ks;
    std::stringstream s(text);
    std::string item;
    while (std::getline(s, item, ','))
        ks.push_back(static_cast<int>(gemv::parse_int("ks", item, 1, several::kMaxVectors)));
    if (ks.empty()) throw gemv::UsageError("--ks needs at least one k");
    return ks;
}

struct Row {
    int k;
    several::Plan plan;
    double ms;
};

// Every group of the register-blocked kernel that k fills at least half of, in float every such
// group of the staged FMA kernel in each of its chunks (the rule fma_chunks picks one), and in bf16
// on a GPU with tensor cores of both tensor-core kernels (and of the bulk one where it runs and the
// problem fits it).
template <class T>
std::vector<several::Plan> plans_for(const gemv::DeviceFacts& facts, std::int64_t m, std::int64_t n, int k,
                                     gemv::Layout layout) {
    std::vector<several::Plan> plans;
    for (int g : several::kRegisterGroups)
        if (g / 2 < k) plans.push_back(several::plan_register_blocked(m, n, k, layout, g, facts.sm_count));
    if (facts.cc_major < 8) return plans;  // the others need bf16 MMA or cp.async
    if constexpr (std::is_same_v<T, float>) {
        using several::FmaChunks;
        for (int g : several::kFmaGroups)
            for (FmaChunks c : {FmaChunks::narrow, FmaChunks::wide, FmaChunks::few_rows})
                if (several::group_half_filled(g, k) && (c != FmaChunks::wide || several::fma_wide_compiled(layout, g)))
                    plans.push_back(several::fma_staged_plan(m, n, k, layout, g, facts.sm_count, c));
    } else {
        for (int g : several::kTensorGroups) {
            if (!several::group_half_filled(g, k)) continue;
            plans.push_back(several::plan_tensor_cores(m, n, k, layout, g, facts.sm_count));
            plans.push_back(several::tensor_staged_plan(m, n, k, layout, g, facts.sm_count));
        }
        if (several::tensor_bulk_runs_here() && several::bulk_fits(layout, m, n))
            for (int g : several::kBulkGroups)
                if (several::group_half_filled(g, k))
                    for (int c : several::kBulkClusters)
                        plans.push_back(several::plan_tensor_bulk(m, n, k, layout, g, facts.sm_count, c));
    }
    return plans;
}

// What names a plan in the table and on the progress lines: its kernel, the staged FMA kernel's
// chunks, and the bulk kernel's clusters.
std::string kernel_of(const several::Plan& p) {
    std::string s = several::to_string(p.kernel);
    if (p.kernel == several::Kernel::fma_staged) s += std::string(", ") + several::to_string(p.chunks);
    if (p.cluster > 1) s += ", clusters of " + std::to_string(p.cluster);
    return s;
}

// Each plan verified (unless --no-verify), then timed; false, with the reason on stderr, where one
// is wrong.
template <class T>
bool time_plans(const gemv::Options& o, const gemv::DeviceFacts& facts, gemv::DeviceProblem<T>& problem, int k,
                const std::vector<several::Plan>& plans, std::vector<Row>& rows) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Layout layout = o.shape.layout;
    for (const several::Plan& p : plans) {
        const auto run = [&](cudaStream_t s) {
            several::gemv_planned<T>(p, layout, problem.A(), problem.x(), problem.y(), m, n, k, s);
        };
        if (o.verify) {
            problem.poison();
            run(0);
            if (const auto wrong = problem.count_wrong_elements()) {
                std::cerr << "step17_tune: " << kernel_of(p) << " with " << p.group << " vectors is wrong at k = " << k
                          << ": " << wrong << " elements outside the bound\n";
                return false;
            }
        }
        rows.push_back({k, p, gemv::time_gpu(facts, run, {}, o.warmup, o.reps, o.cold).median_ms});
        std::cerr << "  k " << k << ", " << kernel_of(p) << ", " << p.group
                  << " vectors: " << gemv::fixed(rows.back().ms * 1e3, 1) << " us\n";
    }
    return true;
}

// The device's roofs for the roofline columns.
struct Roofs {
    double ceiling_gbps, fma_gflops, tensor_gflops;
};

Roofs measure_roofs(const gemv::DeviceFacts& facts) {
    int clock_khz = 0;
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, facts.id));
    return {gemv::measure_read_ceiling(facts),
            several::fma_peak_gflops(facts.sm_count, clock_khz, facts.cc_major, facts.cc_minor),
            several::tensor_peak_gflops(facts.sm_count, clock_khz, facts.cc_major, facts.cc_minor)};
}

// One CSV row: a (k, kernel, group) with its speed against its roofline, and whether it was the
// fastest of its k and the chooser's pick.
gemv::Fields fields_of(const gemv::Options& o, const gemv::DeviceFacts& facts, const Roofs& roofs, const Row& r,
                       bool fastest, bool chosen) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const bool tc = several::on_tensor_cores(r.plan.kernel);
    const double gflops = double(gemv::model_flops(m, n, r.k)) / (r.ms * 1e6);
    const double intensity = several::model_intensity(m, n, r.k, o.precision);
    const double roof =
        several::roof_gflops(roofs.ceiling_gbps, intensity, tc ? roofs.tensor_gflops : roofs.fma_gflops);
    return {{"device", facts.name, false},
            {"sms", std::to_string(facts.sm_count), true},
            {"precision", gemv::to_string(o.precision), false},
            {"layout", gemv::to_string(o.shape.layout), false},
            {"m", std::to_string(m), true},
            {"n", std::to_string(n), true},
            {"k", std::to_string(r.k), true},
            {"kernel", kernel_of(r.plan), false},
            {"group", std::to_string(r.plan.group), true},
            {"slices", std::to_string(r.plan.slices), true},
            {"median_ms", gemv::fixed(r.ms, 6), true},
            {"gflops", gemv::fixed(gflops, 1), true},
            {"ceiling_gbps", gemv::fixed(roofs.ceiling_gbps, 1), true},
            {"roof_gflops", gemv::fixed(roof, 1), true},
            {"pct_roofline", gemv::fixed(100 * gflops / roof, 2), true},
            {"fastest", fastest ? "yes" : "no", false},
            {"chosen", chosen ? "yes" : "no", false},
            {"git_revision", gemv::git_revision(), false}};
}

void write_table(const std::string& file, const std::vector<gemv::Fields>& out) {
    if (file == "-") {
        gemv::print_fields(std::cout, gemv::Format::csv, out);
        return;
    }
    std::ofstream f(file);
    if (!f) throw std::runtime_error("cannot write " + file);
    gemv::print_fields(f, gemv::Format::csv, out);
    std::cerr << "step17_tune: wrote " << file << "\n";
}

template <class T>
int tune(const gemv::Options& o) {
    const gemv::DeviceFacts facts = gemv::query_device();
    const std::vector<int> ks = parse_ks(o.text("ks"));
    gemv::require_device_memory(facts, gemv::DeviceProblem<T>::bytes(o.shape, *std::max_element(ks.begin(), ks.end())));
    const Roofs roofs = measure_roofs(facts);
    std::vector<gemv::Fields> out;
    for (int k : ks) {
        gemv::DeviceProblem<T> problem(o.shape, o.seed, k);
        std::vector<Row> rows;
        if (!time_plans<T>(o, facts, problem, k, plans_for<T>(facts, o.shape.m, o.shape.n, k, o.shape.layout), rows))
            return gemv::kExitWrong;
        std::size_t best = 0;
        for (std::size_t i = 1; i < rows.size(); ++i)
            if (rows[i].ms < rows[best].ms) best = i;
        const several::Chosen chosen = several::choose_by_timing<T>(facts, o.shape.layout, problem.A(), problem.x(),
                                                                    problem.y(), o.shape.m, o.shape.n, k);
        const several::Plan& pick = chosen.plans[chosen.fastest];
        for (std::size_t i = 0; i < rows.size(); ++i)
            out.push_back(fields_of(o, facts, roofs, rows[i], i == best,
                                    rows[i].plan.kernel == pick.kernel && rows[i].plan.group == pick.group &&
                                        rows[i].plan.chunks == pick.chunks));
    }
    write_table(o.text("out"), out);
    return gemv::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "17";
    spec.name = "tune";
    spec.title = "times every group of step 17's kernels (and step 16's) for each k and writes a CSV table";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.precisions = {gemv::Precision::f32, gemv::Precision::bf16};
    spec.default_reps = 7;
    using gemv::CommonOption;  // it writes CSV whatever --format says: it does not take one
    spec.common = {CommonOption::m,      CommonOption::n,     CommonOption::precision,
                   CommonOption::layout, CommonOption::reps,  CommonOption::warmup,
                   CommonOption::seed,   CommonOption::cache, CommonOption::verify};
    const auto check_ks = [](const std::string& text) -> std::string {
        try {
            parse_ks(text);
            return "";
        } catch (const gemv::UsageError& e) {
            return std::string("takes k from 1 to ") + std::to_string(several::kMaxVectors) + ": " + e.what();
        }
    };
    spec.options = {gemv::text_option("ks", "the k to time, comma-separated", "1,2,4,8,16,32,64,128,256", check_ks),
                    gemv::text_option("out", "the CSV file to write (- for standard output)", "-")};
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        return gemv::with_storage_type_among<float, __nv_bfloat16>(o.precision,
                                                                   [&](auto type) { return tune<decltype(type)>(o); });
    });
}
