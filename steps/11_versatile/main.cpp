// Step 11: Sørensen's versatile kernel, with the parameters a Hopper GPU needs, and the
// configuration chosen at run time from this device's tuning table (nearest mesh point by shape).
#include <algorithm>

#include "gemv_versatile.cuh"
#include "gpu_step.hpp"
#include "tuning_table.hpp"

namespace {

// --threads-per-row for the field threads_per_row.
std::string option_name(const ConfigField& f) {
    std::string name = f.name;
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
}

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& f, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Layout layout = o.shape.layout;
    std::string table = o.text("table");
    if (table == "auto") table = default_table_path(f.name, gemv::precision_of<T>(), layout, m, n);
    Choice choice = choose_config(table, f.name, f.sm_count, layout, gemv::precision_of<T>(), m, n);
    // Any field given on the command line overrides the table's choice.
    bool given = false;
    for (const ConfigField& field : config_fields()) {
        const std::string& text = o.text(option_name(field));
        if (text == "table") continue;
        const std::string why = field.set(choice.config, text);
        if (!why.empty()) throw gemv::UsageError("--" + option_name(field) + " " + why);
        given = true;
    }
    if (given) choice.source = "given on the command line";
    const VersatileGemv<T> gemv(choice.config, layout, m, n);  // refuses a configuration that cannot run
    const VersatilePlan& plan = gemv.plan();
    const std::string how = given ? "given" : choice.source.rfind("tuned", 0) == 0 ? "tuned" : "heuristic";
    std::string note = describe(choice.config) + " (" + choice.source + "); " + describe(plan);
    if (plan.layout != layout) note += std::string(", the same bytes as this ") + gemv::layout_word(layout) + " A";
    return {{"versatile (" + how + ")", plan.launch, plan.traffic, [=](cudaStream_t s) { gemv(A, x, y, s); }, note}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "11";
    spec.name = "versatile";
    spec.title = "the versatile kernel, configured from this device's tuning table";
    spec.layouts = {gemv::Layout::col, gemv::Layout::row};
    spec.options = {gemv::text_option("table", "tuning table (default: this device's committed table)", "auto")};
    for (const ConfigField& field : config_fields()) {
        // "table", or a value the field takes: checked as the command line is read.
        const auto check = [&field](const std::string& text) {
            VersatileConfig scratch;
            return text == "table" ? std::string() : field.set(scratch, text);
        };
        spec.options.push_back(gemv::text_option(
            option_name(field), std::string(field.help) + " (\"table\": the table's choice)", "table", check));
    }
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
