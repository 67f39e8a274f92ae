// Step 11's picks, written down: the configuration resolve() chooses, and where it came from, at
// every point of every committed tuning table and at the odd shapes of two seeds, for every
// precision and layout, on each device that has tables, on two of another architecture that have
// none (the heuristic) and on two Hopper GPUs that have none (a borrowed table). Needs no GPU. A restructure of step
// 11's host code must leave this output byte for byte the same (the test step11_picks_unchanged compares its SHA-256
// with picks.sha256).
#include <filesystem>
#include <iostream>
#include <set>
#include <string>

#include "resolve.hpp"
#include "shapes.hpp"
#include "tuning_table.hpp"

namespace {

// The tuning folder's path, which differs from clone to clone, written as <tuning>.
std::string portable(std::string text) {
    const std::string dir = gemv::default_tuning_dir();
    for (std::size_t at; (at = text.find(dir)) != std::string::npos;) text.replace(at, dir.size(), "<tuning>");
    return text;
}

}  // namespace

int main() {
    std::set<std::string> tabled;
    for (const auto& entry : std::filesystem::directory_iterator(gemv::default_tuning_dir()))
        if (entry.path().extension() == ".csv") tabled.insert(gemv::load_tuning_table(entry.path().string()).device);
    const auto device = [](const std::string& name, int sm_count, int cc_major) {
        gemv::DeviceFacts f;
        f.name = name;
        f.sm_count = sm_count;
        f.max_threads_per_sm = 2048;  // every GPU here: Hopper's and the A100's threads an SM
        f.cc_major = cc_major;
        return f;
    };
    std::vector<gemv::DeviceFacts> devices;
    for (const std::string& name : tabled) devices.push_back(device(name, 132, 9));  // H100 SXM and H200: 132 SMs
    devices.push_back(device("a GPU without tables", 132, 0));  // of no architecture a table has: the heuristic
    devices.push_back(device("a GPU without tables", 108, 0));
    devices.push_back(device("a Hopper GPU without tables", 132, 9));  // another Hopper's table, fitted
    devices.push_back(device("a Hopper GPU without tables", 114, 9));
    std::cout << "device,sms,cc_major,precision,layout,m,n,config,source\n";
    for (gemv::Precision precision : {gemv::Precision::f32, gemv::Precision::f64, gemv::Precision::bf16,
                                      gemv::Precision::f16, gemv::Precision::fp8}) {
        const std::size_t elem = gemv::element_size(precision);
        for (gemv::Layout layout : {gemv::Layout::col, gemv::Layout::row}) {
            std::set<Shape2> shapes;
            for (const gemv::DeviceFacts& d : devices) {
                try {
                    const gemv::TuningTable t = gemv::load_tuning_table(
                        gemv::default_tuning_dir() + "/" + gemv::tuning_file_name(d.name, precision, layout));
                    for (const gemv::TunedPoint& p : t.points) shapes.insert({p.m, p.n});
                } catch (const std::exception&) {  // no table of this device for this problem
                }
            }
            for (std::uint64_t seed : {1, 2})
                for (const Shape2& s : odd_shapes(seed, 16, elem, (std::int64_t(4096) << 20) / std::int64_t(elem)))
                    shapes.insert(s);
            for (const gemv::DeviceFacts& d : devices)
                for (auto [m, n] : shapes) {
                    const gemv::Resolved c = gemv::resolve("auto", d, precision, layout, m, n);
                    std::cout << d.name << "," << d.sm_count << "," << d.cc_major << "," << gemv::to_string(precision)
                              << "," << gemv::to_string(layout) << "," << m << "," << n << ",\"" << describe(c.config)
                              << "\",\"" << portable(c.source) << "\"\n";
                }
        }
    }
}
