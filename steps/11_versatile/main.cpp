// Step 11: Sørensen's versatile kernel, with the parameters a Hopper GPU needs, and the
// configuration chosen at run time from this device's tuning table (nearest mesh point by shape).
#include <iostream>

#include "gemv_versatile.cuh"
#include "gpu_step.hpp"
#include "tuning_table.hpp"

namespace {

template <class T>
std::vector<gemv::GpuKernel> kernels(const gemv::Options& o, const gemv::DeviceFacts& f, const T* A, const T* x, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const gemv::Layout layout = o.shape.layout;
    std::string table = o.get("table");
    if (table.empty() || table == "auto")
        table = default_tuning_dir() + "/" + tuning_file_name(f.name, gemv::precision_of<T>(), layout);
    Choice choice = choose_config(table, f.name, f.sm_count, layout, gemv::precision_of<T>(), m, n);
    // Any parameter given on the command line overrides the table's choice.
    VersatileConfig& c = choice.config;
    bool forced = false;
    const auto take = [&](const char* name, auto& field) {
        if (const std::int64_t v = o.get_int(name)) {
            field = static_cast<std::remove_reference_t<decltype(field)>>(v);
            forced = true;
        }
    };
    take("block", c.block);
    take("vector", c.vector);
    take("unroll", c.unroll);
    take("threads-along", c.threads_along);
    take("splits", c.splits);
    if (const std::int64_t flat = o.get_int("flat"); flat >= 0) {
        c.flat = flat == 1;
        forced = true;
    }
    if (forced) choice.source = "given on the command line";
    const gemv::Launch launch = versatile_launch<T>(c, layout, m, n);  // refuses an invalid configuration
    const std::string how = forced ? "given" : choice.source.rfind("tuned", 0) == 0 ? "tuned" : "heuristic";
    return {{"versatile (" + how + ")", launch, versatile_traffic(c, layout, m, n),
             [=](cudaStream_t s) { gemv_versatile(A, x, y, m, n, layout, c, launch, s); },
             c.describe() + " (" + choice.source + ")"}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "11";
    spec.name = "versatile";
    spec.title = "the versatile kernel, configured from this device's tuning table";
    spec.gpu = true;
    spec.layouts = {gemv::Layout::col, gemv::Layout::row};
    spec.options = {
        {"table", "tuning table (default: this device's committed table)", "auto", {}, 0, 0, true},
        {"block", "BLOCKSIZE, threads per block (0: from the table)", "0", {}, 0, 1024},
        {"vector", "elements per load, 1, 2 or 4 (0: from the table)", "0", {}, 0, 4},
        {"unroll", "loads in flight per thread, 1, 2 or 4 (0: from the table)", "0", {}, 0, 4},
        {"threads-along", "threads along a row group (0: from the table)", "0", {}, 0, 1024},
        {"splits",
         "blocks sharing a row, atomics when > 1; flat: blocks in the grid (0: from the table)",
         "0",
         {},
         0,
         65535},
        {"flat",
         "1: read A as one flat array (row-major: a block's rows through shared memory), 0: do not (-1: from the "
         "table)",
         "-1",
         {},
         -1,
         1}};
    return gemv::gpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
