// Step 11's benchmark: the tuned kernel beside cuBLAS and the read ceiling, in one run, cold L2,
// every output verified. Suites: the target shapes (1 GiB of float), the tuning mesh, Sørensen's
// figure-4 curves (tall 100N×N, square 10N×10N, wide N×100N), and shapes off the mesh against a
// search at that shape. Writes CSV; prints the figures the targets are judged by on stderr.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>

#include "cli.hpp"
#include "mesh_tools.cuh"
#include "tuning_table.hpp"

namespace {

struct Row {
    std::string suite;
    gemv::Layout layout;
    std::int64_t m, n;
    std::string config, source;
    double t11 = 0, tcublas = 0, tbest = 0;
};

template <class T>
struct Bench {
    const gemv::Options& o;
    gemv::DeviceFacts f;
    double ceiling = 0;
    std::vector<Row> rows;
    std::int64_t max_elems;

    explicit Bench(const gemv::Options& opt) : o(opt), f(gemv::query_device()) {
        ceiling = gemv::measure_read_ceiling(f, 20);
        max_elems = (o.get_int("max-mib") << 20) / std::int64_t(sizeof(T));
    }
    std::string table_for(gemv::Layout layout) const {
        const std::string t = o.get("table-dir");
        return (t == "auto" ? default_tuning_dir() : t) + "/" +
               tuning_file_name(f.name, gemv::precision_of<T>(), layout);
    }
    void measure(DeviceProblem<T>& p, const std::string& suite, gemv::Layout layout, std::int64_t m, std::int64_t n,
                 bool search = false) {
        p.reference(m, n, layout);
        const Choice c = choose_config(table_for(layout), f.name, f.sm_count, layout, gemv::precision_of<T>(), m, n);
        Row r{suite, layout, m, n, c.config.describe(), c.source};
        r.t11 = time_config(p, f, layout, m, n, c.config, o.reps);
        r.tcublas = time_cublas(p, f, layout, m, n, o.reps);
        if (search) r.tbest = search_best(p, f, layout, m, n, o.reps).ms;
        rows.push_back(r);
        std::cerr << "." << std::flush;
    }
    double gbps(const Row& r, double ms) const { return double(gemv::model_bytes(r.m, r.n, sizeof(T))) / (ms * 1e6); }
};

template <class T>
int bench(const gemv::Options& o) {
    Bench<T> b(o);
    const std::string suite = o.get("suite");
    const std::vector<gemv::Layout> layouts =
        o.get("layouts") == "both"
            ? std::vector<gemv::Layout>{gemv::Layout::col, gemv::Layout::row}
            : std::vector<gemv::Layout>{o.get("layouts") == "row" ? gemv::Layout::row : gemv::Layout::col};
    DeviceProblem<T> p(b.max_elems, std::min<std::int64_t>(b.max_elems, std::int64_t(1) << 28), o.seed);
    const std::int64_t max_dim = std::min<std::int64_t>(b.max_elems, std::int64_t(1) << 28);
    const auto fits = [&](std::int64_t m, std::int64_t n) {
        return m * n <= b.max_elems && m <= max_dim && n <= max_dim;
    };

    for (gemv::Layout layout : layouts) {
        if (suite == "targets" || suite == "all") {
            // 2^28 elements (1 GiB of float, 2 GiB of double) in seven shapes, tall to wide.
            for (auto [lm, ln] : {std::pair<int, int>{26, 2}, {24, 4}, {20, 8}, {14, 14}, {8, 20}, {4, 24}, {2, 26}})
                if (fits(std::int64_t(1) << lm, std::int64_t(1) << ln))
                    b.measure(p, "targets", layout, std::int64_t(1) << lm, std::int64_t(1) << ln);
        }
        if (suite == "mesh" || suite == "all") {
            try {
                // Sørensen's mesh itself: the table tunes each point once per vector class, moving
                // the dimension along which loads run; the other dimension keeps the mesh's values.
                const TuningTable t = load_tuning_table(b.table_for(layout));
                std::vector<std::int64_t> axis;
                std::int64_t largest = 0;
                for (const TunedPoint& q : t.points) {
                    axis.push_back(layout == gemv::Layout::col ? q.n : q.m);
                    largest = std::max(largest, q.m * q.n);
                }
                std::sort(axis.begin(), axis.end());
                axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
                for (std::int64_t m : axis)
                    for (std::int64_t n : axis)
                        if (m * n <= largest && fits(m, n)) b.measure(p, "mesh", layout, m, n);
            } catch (const std::exception& e) {
                std::cerr << "mesh suite: " << e.what() << "\n";
            }
        }
        if (suite == "curves" || suite == "all") {
            // Sørensen's figure 4: footprints from 4 KiB up, three shapes at each.
            for (double mib = 1.0 / 256; mib * (1 << 20) <= double(b.max_elems) * sizeof(T); mib *= 2) {
                const double elems = mib * (1 << 20) / sizeof(T);
                const std::int64_t N = std::max<std::int64_t>(1, std::llround(std::sqrt(elems / 100)));
                if (fits(100 * N, N)) b.measure(p, "curve-tall", layout, 100 * N, N);
                if (fits(10 * N, 10 * N)) b.measure(p, "curve-square", layout, 10 * N, 10 * N);
                if (fits(N, 100 * N)) b.measure(p, "curve-wide", layout, N, 100 * N);
            }
        }
        if (suite == "offmesh" || suite == "all") {
            std::mt19937_64 rng(o.seed);
            std::uniform_real_distribution<double> logsize(std::log(4.0 * (1 << 20) / sizeof(T)),
                                                           std::log(double(b.max_elems)));
            std::uniform_real_distribution<double> aspect(-1, 1);
            for (int k = 0; k < int(o.get_int("offmesh-points")); ++k) {
                const double elems = std::exp(logsize(rng));
                const double ratio = std::pow(10.0, 5 * aspect(rng));  // m/n from 1e-5 to 1e5
                const std::int64_t m = std::max<std::int64_t>(3, std::llround(std::sqrt(elems * ratio)));
                const std::int64_t n = std::max<std::int64_t>(3, std::llround(elems / double(m)));
                if (fits(m, n)) b.measure(p, "offmesh", layout, m, n, true);
            }
        }
    }
    std::cerr << "\n";

    // CSV with its metadata.
    const gemv::Metadata meta = b.f.metadata();
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::ofstream file;
    const std::string out = o.get("out");
    if (out != "-") file.open(out);
    std::ostream& csv = out == "-" ? std::cout : file;
    csv << "suite,device,sms,runtime,driver,git_revision,date,precision,layout,m,n,bytes,cache,reps,ceiling_gbps,"
           "step11_ms,step11_gbps,cublas_ms,cublas_gbps,speedup,best_ms,step11_config,step11_source\n";
    for (const Row& r : b.rows)
        csv << r.suite << ",\"" << meta.device << "\"," << meta.units << "," << meta.runtime_version << ","
            << meta.driver_version << "," << meta.git_revision << "," << date << ","
            << gemv::to_string(gemv::precision_of<T>()) << "," << gemv::to_string(r.layout) << "," << r.m << "," << r.n
            << "," << gemv::model_bytes(r.m, r.n, sizeof(T)) << ",cold," << o.reps << "," << b.ceiling << "," << r.t11
            << "," << b.gbps(r, r.t11) << "," << r.tcublas << "," << b.gbps(r, r.tcublas) << "," << r.tcublas / r.t11
            << "," << r.tbest << ",\"" << r.config << "\",\"" << r.source << "\"\n";

    // The targets' figures.
    std::cerr << std::fixed << std::setprecision(3) << "ceiling " << std::setprecision(0) << b.ceiling << " GB/s\n";
    for (gemv::Layout layout : layouts) {
        double min_pct = 1e9, max_gbps = 0, min_gbps = 1e18, log_sum = 0, min_ratio = 1e9, worst_small = 0;
        int big = 0;
        double worst_offmesh = 0;
        for (const Row& r : b.rows) {
            if (r.layout != layout) continue;
            const double bytes = double(gemv::model_bytes(r.m, r.n, sizeof(T)));
            if (r.suite == "targets") {
                min_pct = std::min(min_pct, 100 * b.gbps(r, r.t11) / b.ceiling);
                max_gbps = std::max(max_gbps, b.gbps(r, r.t11));
                min_gbps = std::min(min_gbps, b.gbps(r, r.t11));
            }
            if (r.suite == "mesh") {
                if (bytes >= 4.0 * (1 << 20)) {
                    log_sum += std::log(r.tcublas / r.t11);
                    ++big;
                    min_ratio = std::min(min_ratio, r.tcublas / r.t11);
                } else {
                    worst_small = std::max(worst_small, r.t11 / r.tcublas);
                }
            }
            if (r.suite == "offmesh") worst_offmesh = std::max(worst_offmesh, r.t11 / r.tbest - 1);
        }
        std::cerr << std::setprecision(3) << gemv::to_string(gemv::precision_of<T>()) << " " << gemv::to_string(layout)
                  << ":";
        if (max_gbps > 0)
            std::cerr << " targets min " << std::setprecision(1) << min_pct << "% of ceiling, shape spread "
                      << 100 * (max_gbps / min_gbps - 1) << "%;";
        if (big)
            std::cerr << std::setprecision(3) << " mesh >=4MiB geomean " << std::exp(log_sum / big) << "x cuBLAS, min "
                      << min_ratio << "x; <4MiB worst time " << worst_small << "x cuBLAS's;";
        if (worst_offmesh > 0)
            std::cerr << " off-mesh worst " << std::setprecision(1) << 100 * worst_offmesh << "% over the best;";
        std::cerr << "\n";
    }
    return gemv::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "11";
    spec.name = "bench";
    spec.title = "step 11 tuned against cuBLAS and the read ceiling, one run, cold L2, verified";
    spec.gpu = true;
    spec.default_reps = 15;
    spec.options = {{"suite", "what to measure", "targets", {"targets", "mesh", "curves", "offmesh", "all"}},
                    {"layouts", "which layouts", "both", {"col", "row", "both"}},
                    {"max-mib", "largest footprint of A, MiB", "4096", {}, 1, 1 << 20},
                    {"offmesh-points", "shapes off the mesh to check", "8", {}, 1, 1000},
                    {"table-dir", "where the tuning tables are (default: beside the solution)", "auto", {}, 0, 0, true},
                    {"out", "CSV file, - for standard output", "-", {}, 0, 0, true}};
    return gemv::run_step(argc, argv, spec, [](const gemv::Options& o) {
        return o.precision == gemv::Precision::f32 ? bench<float>(o) : bench<double>(o);
    });
}
