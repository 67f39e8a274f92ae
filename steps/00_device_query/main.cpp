// Step 00: the GPU, its limits, and the read bandwidth every later step is compared to. The first
// lab: if this runs, the set-up works.
#include <iomanip>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "gpu_step.hpp"

namespace {

int query(const gemv::Options& o) {
    const gemv::DeviceFacts f = gemv::query_device();
    const double ceiling = gemv::measure_read_ceiling(f, o.reps);
    const double copy = gemv::measure_copy_gbps(f, o.reps);
    const auto fixed = [](double v, int d) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(d) << v;
        return s.str();
    };
    const gemv::Metadata meta = f.metadata();
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"device", f.name},
        {"compute_capability", std::to_string(f.cc_major) + "." + std::to_string(f.cc_minor)},
        {"sms", std::to_string(f.sm_count)},
        {"global_memory", gemv::format_bytes(double(f.global_bytes))},
        {"free_memory", gemv::format_bytes(double(f.free_bytes))},
        {"l2_cache", gemv::format_bytes(f.l2_bytes)},
        {"memory_clock_mhz", fixed(f.memory_clock_khz / 1e3, 0)},
        {"bus_width_bits", std::to_string(f.bus_width_bits)},
        {"max_threads_per_sm", std::to_string(f.max_threads_per_sm)},
        {"max_blocks_per_sm", std::to_string(f.max_blocks_per_sm)},
        {"registers_per_sm", std::to_string(f.registers_per_sm)},
        {"shared_memory_per_sm", gemv::format_bytes(double(f.shared_per_sm))},
        {"shared_memory_per_block_optin", gemv::format_bytes(double(f.shared_per_block_optin))},
        {"cuda_runtime", meta.runtime_version},
        {"cuda_driver", meta.driver_version},
        {"build_type", meta.build_type},
        {"git_revision", meta.git_revision},
        {"datasheet_gbps", fixed(f.datasheet_gbps(), 0)},
        {"read_ceiling_gbps", fixed(ceiling, 0)},
        {"read_ceiling_pct_datasheet", fixed(100 * ceiling / f.datasheet_gbps(), 1)},
        {"copy_gbps_read_plus_write", fixed(copy, 0)},
        {"reps", std::to_string(o.reps)},
    };
    if (o.format == gemv::Format::table) {
        for (const auto& [k, v] : rows) std::cout << std::left << std::setw(32) << k << v << "\n";
        std::cout
            << "\nEvery later step reports its GB/s as a share of read_ceiling_gbps, measured like this on each run.\n";
    } else if (o.format == gemv::Format::csv) {
        for (std::size_t i = 0; i < rows.size(); ++i) std::cout << (i ? "," : "") << rows[i].first;
        std::cout << "\n";
        for (std::size_t i = 0; i < rows.size(); ++i) std::cout << (i ? "," : "") << rows[i].second;
        std::cout << "\n";
    } else {
        std::cout << "{";
        for (std::size_t i = 0; i < rows.size(); ++i)
            std::cout << (i ? ", " : "") << "\"" << rows[i].first << "\": \"" << rows[i].second << "\"";
        std::cout << "}\n";
    }
    return gemv::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "00";
    spec.name = "device_query";
    spec.title = "the GPU's facts, and the measured read-bandwidth ceiling of every later step (--m/--n unused)";
    spec.gpu = true;
    spec.default_reps = 10;
    return gemv::run_step(argc, argv, spec, query);
}
