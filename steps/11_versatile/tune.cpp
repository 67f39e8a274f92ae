// Step 11's auto-tuner: for one precision and layout, the fastest verified configuration at every
// point of Sørensen's 24×24 logarithmic mesh that fits, written as this device's tuning table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>

#include "cli.hpp"
#include "mesh.hpp"
#include "search.cuh"
#include "shape_rules.hpp"
#include "tuning_table.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using gemv::MeshPoint;

// An interrupted run resumes: every finished point is a line of `<table>.partial`, in the table's
// own columns.
std::map<MeshPoint, gemv::TunedPoint> resume(const std::string& partial, gemv::Layout layout, std::size_t elem) {
    std::map<MeshPoint, gemv::TunedPoint> done;
    std::ifstream in(partial);
    std::string line;
    if (!std::getline(in, line)) return done;
    if (line != gemv::point_header()) {
        std::cerr << "ignoring " << partial << ": written with other columns\n";
        return done;
    }
    while (std::getline(in, line)) {
        try {
            const gemv::TunedPoint p = gemv::parse_point(line, layout, elem);
            done[{p.m, p.n}] = p;
        } catch (const std::exception& e) {
            std::cerr << "ignoring a line of " << partial << ": " << e.what() << "\n";
        }
    }
    return done;
}

template <class T>
int tune(const gemv::Options& o) {
    const gemv::DeviceFacts f = gemv::query_device();
    const gemv::Layout layout = o.shape.layout;
    const std::int64_t budget = std::min<std::int64_t>(o.integer("max-mib") << 20, std::int64_t(f.free_bytes / 3));
    const std::int64_t max_elems = budget / std::int64_t(sizeof(T));
    const std::vector<std::int64_t> axis = gemv::mesh_axis(int(o.integer("points")), max_elems / 10);
    std::string out = o.text("out");
    if (out == "auto")
        out = gemv::default_tuning_dir() + "/" + gemv::tuning_file_name(f.name, gemv::precision_of<T>(), layout);
    const std::string partial = out + ".partial";
    std::map<MeshPoint, gemv::TunedPoint> done = resume(partial, layout, sizeof(T));
    const int resumed = static_cast<int>(done.size());
    // Points whose own layout reads as the other one (1 x n column-major) are tuned in that table.
    std::vector<MeshPoint> points;
    for (const MeshPoint& p : gemv::mesh_points(layout, axis, max_elems, sizeof(T)))
        if (gemv::kernel_layout(layout, p.first, p.second) == layout) points.push_back(p);
    std::cerr << "tuning " << gemv::to_string(gemv::precision_of<T>()) << ", " << gemv::layout_word(layout) << " on "
              << f.name << ": " << points.size() << " mesh points up to " << gemv::format_bytes(double(budget))
              << (done.empty() ? "" : ", " + std::to_string(done.size()) + " resumed from " + partial) << "\n";

    gemv::DeviceProblem<T> p(max_elems, axis.back(), o.seed);
    std::ofstream log(partial, done.empty() ? std::ios::trunc : std::ios::app);
    if (done.empty()) log << gemv::point_header() << std::endl;
    const auto start = Clock::now();
    double work_done = 0, work_total = 0;  // elements, for the time-left estimate
    for (auto [m, n] : points) work_total += double(m) * double(n);
    std::size_t k = 0;
    for (auto [m, n] : points) {
        ++k;
        if (!done.count({m, n})) {
            p.use(m, n, layout);
            const Candidate best = search_best(p, f, layout, m, n, o.reps);
            const double gbps = double(gemv::model_bytes(m, n, sizeof(T))) / (best.ms * 1e6);
            done[{m, n}] = {m, n, best.config, gbps};
            log << gemv::point_line(done[{m, n}]) << std::endl;
        }
        work_done += double(m) * double(n);
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        std::cerr << "\r[" << std::setw(4) << k << "/" << points.size() << "] " << std::setw(10) << m << " x "
                  << std::left << std::setw(10) << n << std::right << " best " << std::setw(6) << std::fixed
                  << std::setprecision(0) << done[{m, n}].gbps << " GB/s  elapsed " << elapsed << " s, about "
                  << elapsed / work_done * (work_total - work_done) << " s left   " << std::flush;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::cerr << "\n";

    gemv::TuningTable t;
    t.device = f.name;
    t.precision = gemv::to_string(gemv::precision_of<T>());
    t.layout = gemv::to_string(layout);
    t.git_revision = gemv::git_revision();
    t.created = gemv::utc_date();
    t.tuning_seconds = seconds;
    t.resumed_points = resumed;
    for (auto [m, n] : points) t.points.push_back(done[{m, n}]);
    gemv::save_tuning_table(t, out);
    std::remove(partial.c_str());
    std::cout << "wrote " << out << ": " << t.points.size() << " points in " << std::fixed << std::setprecision(1)
              << seconds << " s\n";
    return gemv::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "11";
    spec.name = "tune";
    spec.title = "auto-tune step 11 over Sorensen's logarithmic mesh and write this device's tuning table";
    spec.layouts = {gemv::Layout::col, gemv::Layout::row};
    spec.precisions = {gemv::Precision::f32, gemv::Precision::f64, gemv::Precision::bf16, gemv::Precision::f16,
                       gemv::Precision::fp8};  // step 15's tables too
    spec.common = {gemv::CommonOption::precision, gemv::CommonOption::layout, gemv::CommonOption::reps,
                   gemv::CommonOption::seed};
    spec.default_reps = 5;
    spec.options = {gemv::integer_option("points", "mesh points per axis", 24, 2, 64),
                    gemv::integer_option("max-mib", "largest footprint of A to tune, MiB", 8192, 1, 1 << 20),
                    gemv::text_option("out", "where to write the table (default: beside the solution)", "auto")};
    return gemv::run_step(argc, argv, spec, [](const gemv::Options& o) {
        return gemv::with_storage_type(o.precision, [&](auto stored) { return tune<decltype(stored)>(o); });
    });
}
