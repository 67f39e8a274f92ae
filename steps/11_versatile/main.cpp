// Step 11: Sørensen's versatile kernel, with the parameters a Hopper GPU needs, and the
// configuration chosen at run time from this device's tuning table: the picks of the mesh points
// nearest the shape, timed at it.
#include "gemv_versatile.cuh"
#include "gpu_step.hpp"
#include "pick_timed.cuh"
#include "resolve.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& f, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Layout layout = o.shape.layout;
    // Any field given on the command line overrides the table's choice.
    gemv::ConfigOverrides given;
    for (const gemv::ConfigField& field : gemv::config_fields())
        if (o.text(field.option()) != "table") given.push_back({&field, o.text(field.option())});
    // Else the fastest at this shape of the nearest points' picks (pick_timed.cuh).
    const gemv::Resolved r = given.empty()
                                 ? gemv::pick_timed<T>(o.text("table"), f, layout, m, n, A, x, y)
                                 : gemv::resolve(o.text("table"), f, gemv::precision_of<T>(), layout, m, n, given);
    const gemv::VersatileGemv<T> gemv(r.config, layout, m, n);  // refuses a configuration that cannot run
    const gemv::VersatilePlan& plan = gemv.plan();
    std::string note = describe(r.config) + " (" + r.source + "); " + describe(plan);
    if (plan.layout != layout) note += std::string(", the same bytes as this ") + gemv::layout_word(layout) + " A";
    return {{std::string("versatile (") + to_string(r.how) + ")", plan.launch, plan.traffic,
             [=](cudaStream_t s) { gemv(A, x, y, s); }, note}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "11";
    spec.name = "versatile";
    spec.title = "the versatile kernel, configured from this device's tuning table";
    spec.layouts = {gemv::Layout::col, gemv::Layout::row};
    spec.options = {gemv::text_option("table", "tuning table (default: this device's committed table)", "auto")};
    for (const gemv::ConfigField& field : gemv::config_fields()) {
        // "table", or a value the field takes: checked as the command line is read.
        const auto check = [&field](const std::string& text) {
            gemv::VersatileConfig scratch;
            return text == "table" ? std::string() : field.set(scratch, text);
        };
        spec.options.push_back(gemv::text_option(
            field.option(), std::string(field.help) + " (\"table\": the table's choice)", "table", check));
    }
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
