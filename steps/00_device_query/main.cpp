// Step 00: the GPU, its limits, and the read bandwidth every later step is compared to. The first
// lab: if this runs, the set-up works.
#include <iostream>
#include <string>
#include <vector>

#include "gpu_step.hpp"

namespace {

int query(const gemv::Options& o) {
    const gemv::DeviceFacts f = gemv::query_device();
    const double ceiling = gemv::measure_read_ceiling(f, o.reps);
    const double copy = gemv::measure_copy_gbps(f, o.reps);
    const gemv::Metadata meta = f.metadata();
    using gemv::fixed;
    const gemv::Fields facts = {
        {"device", f.name, false},
        {"compute_capability", f.compute_capability(), false},
        {"sms", std::to_string(f.sm_count), true},
        {"global_memory", gemv::format_bytes(double(f.global_bytes)), false},
        {"free_memory", gemv::format_bytes(double(f.free_bytes)), false},
        {"l2_cache", gemv::format_bytes(f.l2_bytes), false},
        {"memory_clock_mhz", fixed(f.memory_clock_khz / 1e3, 0), true},
        {"bus_width_bits", std::to_string(f.bus_width_bits), true},
        {"max_threads_per_sm", std::to_string(f.max_threads_per_sm), true},
        {"max_blocks_per_sm", std::to_string(f.max_blocks_per_sm), true},
        {"registers_per_sm", std::to_string(f.registers_per_sm), true},
        {"shared_memory_per_sm", gemv::format_bytes(double(f.shared_per_sm)), false},
        {"shared_memory_per_block_optin", gemv::format_bytes(double(f.shared_per_block_optin)), false},
        {"cuda_runtime", meta.runtime_version, false},
        {"cuda_driver", meta.driver_version, false},
        {"build_type", meta.build_type, false},
        {"git_revision", meta.git_revision, false},
        {"datasheet_gbps", fixed(f.datasheet_gbps(), 0), true},
        {"read_ceiling_gbps", fixed(ceiling, 0), true},
        {"read_ceiling_pct_datasheet", fixed(100 * ceiling / f.datasheet_gbps(), 1), true},
        {"copy_gbps_read_plus_write", fixed(copy, 0), true},
        {"reps", std::to_string(o.reps), true},
    };
    if (o.format == gemv::Format::table) {
        std::vector<std::vector<std::string>> lines;
        for (const gemv::Field& fact : facts) lines.push_back({fact.name, fact.text});
        gemv::print_columns(std::cout, {"fact", "value"}, lines, {0, 1});
        std::cout
            << "\nEvery later step reports its GB/s as a share of read_ceiling_gbps, measured like this on each run.\n";
    } else {
        gemv::print_fields(std::cout, o.format, {facts});  // one row
    }
    return gemv::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "00";
    spec.name = "device_query";
    spec.title = "the GPU's facts, and the measured read-bandwidth ceiling of every later step (--m/--n unused)";
    spec.default_reps = 10;
    return gemv::run_step(argc, argv, spec, query);
}
