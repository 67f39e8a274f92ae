// Step 11's auto-tuner: for one precision and layout (or, --tables all, every one), the fastest
// verified configuration at every point of Sørensen's 24×24 logarithmic mesh that fits, written as
// this device's tuning table. One progress line with the time left for the whole run; a run that
// stops goes on where it stopped when it is started again.
#include <algorithm>
#include <chrono>
#include <cmath>
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

// One table to tune: its problem, where it goes, its mesh, and the points a stopped run finished.
struct Job {
    gemv::Precision precision;
    gemv::Layout layout;
    std::string out;
    std::int64_t max_elems = 0, max_dim = 0;  // the largest matrix and side
    std::vector<MeshPoint> points;            // those whose own layout is this one (1 x n column-major is row-major's)
    std::map<MeshPoint, gemv::TunedPoint> resumed;  // from <out>.partial
};

Job make_job(const gemv::Options& o, const gemv::DeviceFacts& f, gemv::Precision precision, gemv::Layout layout) {
    Job j{precision, layout, o.text("out")};
    const std::size_t elem = gemv::element_size(precision);
    const std::int64_t budget = std::min<std::int64_t>(o.integer("max-mib") << 20, std::int64_t(f.free_bytes / 3));
    j.max_elems = budget / std::int64_t(elem);
    const std::vector<std::int64_t> axis = gemv::mesh_axis(int(o.integer("points")), j.max_elems / 10);
    j.max_dim = axis.back();
    // --out: the table's file; with --tables all, the folder of the tables ("auto": beside the solution).
    const bool automatic = j.out == "auto" || j.out.empty();
    if (automatic || o.text("tables") == "all")
        j.out =
            (automatic ? gemv::default_tuning_dir() : j.out) + "/" + gemv::tuning_file_name(f.name, precision, layout);
    for (const MeshPoint& p : gemv::mesh_points(layout, axis, j.max_elems, elem))
        if (gemv::kernel_layout(layout, p.first, p.second) == layout) j.points.push_back(p);
    j.resumed = resume(j.out + ".partial", layout, elem);
    return j;
}

// The work of every table of the run, in bytes of A measured, for one time-left estimate.
struct Progress {
    double total = 0, done = 0;  // bytes; points resumed from a .partial file count in neither
    Clock::time_point start = Clock::now();
    int table = 0, tables = 0;
    double elapsed() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
    void show(const Job& j, std::size_t k, MeshPoint at, double gbps) const {
        // Time left, from the bytes searched so far, once there are enough of them to go by.
        const std::string left =
            done > 0.02 * total ? std::to_string(std::llround(elapsed() / done * (total - done))) : "?";
        std::cerr << "\r[table " << table << "/" << tables << ", " << gemv::to_string(j.precision) << " "
                  << gemv::to_string(j.layout) << ": " << std::setw(4) << k << "/" << j.points.size() << "] "
                  << std::setw(9) << at.first << " x " << std::left << std::setw(9) << at.second << std::right
                  << " best " << std::setw(5) << std::fixed << std::setprecision(0) << gbps
                  << " GB/s | all: " << std::setw(3) << (total > 0 ? 100 * done / total : 100) << " %, " << elapsed()
                  << " s, about " << left << " s left   " << std::flush;
    }
};

template <class T>
void tune_table(const gemv::Options& o, const gemv::DeviceFacts& f, const Job& j, Progress& progress) {
    const std::string partial = j.out + ".partial";
    std::map<MeshPoint, gemv::TunedPoint> done = j.resumed;
    const int resumed = static_cast<int>(done.size());
    gemv::DeviceProblem<T> p(j.max_elems, j.max_dim, o.seed);
    std::ofstream log(partial, done.empty() ? std::ios::trunc : std::ios::app);
    if (done.empty()) log << gemv::point_header() << std::endl;
    const auto start = Clock::now();
    std::size_t k = 0;
    for (auto [m, n] : j.points) {
        ++k;
        if (!done.count({m, n})) {
            p.use(m, n, j.layout);
            const Candidate best = search_best(p, f, j.layout, m, n, o.reps);
            done[{m, n}] = {m, n, best.config, double(gemv::model_bytes(m, n, sizeof(T))) / (best.ms * 1e6)};
            log << gemv::point_line(done[{m, n}]) << std::endl;
            progress.done += double(m) * double(n) * sizeof(T);
        }
        progress.show(j, k, {m, n}, done[{m, n}].gbps);
    }
    gemv::TuningTable t;
    t.device = f.name;
    t.compute_capability = f.compute_capability();
    t.sms = f.sm_count;
    t.precision = gemv::to_string(gemv::precision_of<T>());
    t.layout = gemv::to_string(j.layout);
    t.git_revision = gemv::git_revision();
    t.created = gemv::utc_date();
    t.tuning_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    t.resumed_points = resumed;
    for (auto [m, n] : j.points) t.points.push_back(done[{m, n}]);
    gemv::save_tuning_table(t, j.out);
    std::remove(partial.c_str());
    std::cerr << "\n";
    std::cout << "wrote " << j.out << ": " << t.points.size() << " points in " << std::fixed << std::setprecision(1)
              << t.tuning_seconds << " s\n";
}

// A table that is there already, for this GPU, is kept unless --retune yes: a run that stopped is
// run again as it was, and goes on where it stopped.
bool finished(const std::string& path, const gemv::DeviceFacts& f) {
    try {
        return gemv::load_tuning_table(path).device == f.name;
    } catch (const std::exception&) {
        return false;
    }
}

int tune(const gemv::Options& o) {
    const gemv::DeviceFacts f = gemv::query_device();
    std::vector<Job> jobs;
    const bool all = o.text("tables") == "all";
    for (gemv::Precision precision :
         all ? std::vector<gemv::Precision>{gemv::Precision::f32, gemv::Precision::f64, gemv::Precision::bf16,
                                            gemv::Precision::f16, gemv::Precision::fp8}
             : std::vector<gemv::Precision>{o.precision})
        for (gemv::Layout layout : all ? std::vector<gemv::Layout>{gemv::Layout::col, gemv::Layout::row}
                                       : std::vector<gemv::Layout>{o.shape.layout}) {
            Job j = make_job(o, f, precision, layout);
            if (all && o.text("retune") == "no" && finished(j.out, f)) {
                std::cerr << j.out << " is there already: kept (--retune yes tunes it again)\n";
                continue;
            }
            jobs.push_back(j);
        }
    Progress progress;
    progress.tables = static_cast<int>(jobs.size());
    for (const Job& j : jobs)
        for (auto [m, n] : j.points)
            if (!j.resumed.count({m, n})) progress.total += double(m) * double(n) * gemv::element_size(j.precision);
    std::size_t points = 0;
    for (const Job& j : jobs) points += j.points.size();
    std::cerr << "tuning " << jobs.size() << " table" << (jobs.size() == 1 ? "" : "s") << " on " << f.name << " ("
              << f.sm_count << " SMs): " << points << " mesh points, matrices up to "
              << gemv::format_bytes(double(o.integer("max-mib")) * (1 << 20)) << "\n";
    for (const Job& j : jobs) {
        ++progress.table;
        gemv::with_storage_type(j.precision, [&](auto stored) { tune_table<decltype(stored)>(o, f, j, progress); });
    }
    std::cout << "tuned " << jobs.size() << " tables in " << std::fixed << std::setprecision(0) << progress.elapsed()
              << " s" << (jobs.empty() ? "" : "; commit them with the solution (git add solutions/11_versatile/tuning)")
              << "\n";
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
    spec.options = {
        gemv::choice_option("tables", "given: the --precision and --layout given; all: every precision and layout",
                            "given", {"given", "all"}),
        gemv::choice_option("retune", "with --tables all: tune a table this GPU has already", "no", {"no", "yes"}),
        gemv::integer_option("points", "mesh points per axis", 24, 2, 64),
        gemv::integer_option("max-mib",
                             "largest footprint of A to tune, MiB (larger shapes run the nearest point's "
                             "configuration, the grid in whole waves)",
                             1024, 1, 1 << 20),
        gemv::text_option("out",
                          "where to write the table (with --tables all: the folder; default: beside the "
                          "solution)",
                          "auto")};
    return gemv::run_step(argc, argv, spec, [](const gemv::Options& o) {
        // Options that contradict each other are refused before the GPU is asked for, on any machine.
        const bool all = o.text("tables") == "all";
        if (all && (o.given(gemv::CommonOption::precision) || o.given(gemv::CommonOption::layout)))
            throw gemv::UsageError("--tables all tunes every precision and layout: leave out --precision and --layout");
        if (!all && o.text("retune") == "yes")
            throw gemv::UsageError("--retune yes is for --tables all (one table given is always tuned)");
        return tune(o);
    });
}
