#include "result.hpp"

#include <fstream>
#include <thread>

namespace gemv {

const char* build_type() {
    return GEMV_BUILD_TYPE;
}

Metadata cpu_metadata() {
    Metadata m;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
        if (line.rfind("model name", 0) == 0) {
            m.device = line.substr(line.find(':') + 2);
            break;
        }
    if (m.device.empty()) m.device = "unknown CPU";
    m.units = static_cast<int>(std::thread::hardware_concurrency());
    m.runtime_version = "-";
    m.driver_version = "-";
    m.build_type = build_type();
    m.git_revision = git_revision();
    return m;
}

std::uint64_t Result::bytes() const {
    return vectors == 1 ? model_bytes(shape.m, shape.n, precision) : model_bytes(shape.m, shape.n, precision, vectors);
}
double Result::gbps() const {
    return static_cast<double>(bytes()) / (time.median_ms * 1e6);
}
double Result::gflops() const {
    return static_cast<double>(model_flops(shape.m, shape.n, vectors)) / (time.median_ms * 1e6);
}
double Result::pct_ceiling() const {
    return ceiling_gbps > 0 ? 100.0 * gbps() / ceiling_gbps : 0;
}
double Result::pct_datasheet() const {
    return datasheet_gbps > 0 ? 100.0 * gbps() / datasheet_gbps : 0;
}
double Result::cgma() const {
    return gemv::cgma(traffic, shape.m, shape.n, vectors);
}
double Result::intensity() const {
    return gemv::intensity(traffic, shape.m, shape.n, element_size(precision), vectors);
}

}  // namespace gemv
