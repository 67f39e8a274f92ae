// Step 11's benchmark: the tuned kernel beside cuBLAS (step 12's calls), the read ceiling and the
// copy figure, in one run, cold L2, every output verified. Suites: the target shapes, the tuning
// mesh, Sørensen's figure-4 curves, shapes off the mesh (or given on the command line) against a
// search at that shape, odd shapes drawn from a seed, and the weight matrices language models
// decode with (step 15's formats); each beside its floor (its bytes at the ceiling after an empty
// launch). Writes CSV; prints the figures the targets are judged by on stderr.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>

#include "cli.hpp"
#include "gemv_cublas.hpp"
#include "gemv_cublas_ex.hpp"
#include "gemv_cublaslt_fp8.hpp"
#include "pick_timed.cuh"
#include "resolve.hpp"
#include "search.cuh"
#include "shapes.hpp"
#include "tuning_table.hpp"

namespace {

struct Row {
    std::string suite, layer;  // layer: the decode suite's name of the weight matrix
    gemv::Layout layout;
    std::int64_t m, n;
    std::string config, plan, source, best_config, best_by_loads;
    std::string yardstick;  // what tcublas timed, or "none: " and why
    double t11 = 0, tcublas = 0, tbest = 0;
};

template <class T>
struct Bench {
    const gemv::Options& o;
    gemv::DeviceFacts f;
    double ceiling = 0, copy = 0, launch_ms = 0;  // launch_ms: an empty kernel's, cold L2
    std::int64_t max_elems = 0, max_dim = 0;
    std::vector<Row> rows;
    CublasHandle cublas;

    explicit Bench(const gemv::Options& opt) : o(opt), f(gemv::query_device()) {
        ceiling = gemv::measure_read_ceiling(f, 20);
        copy = gemv::measure_copy_gbps(f, 20);
        launch_ms = gemv::measure_empty_launch_ms(f, 20);
        max_elems = (o.integer("max-mib") << 20) / std::int64_t(sizeof(T));
        max_dim = std::min<std::int64_t>(max_elems, std::int64_t(1) << 29);
    }
    // Within --max-mib and 2^29 a side; m <= max_elems / n, since m·n of shapes typed on the command line
    // can pass 2^63.
    bool fits(std::int64_t m, std::int64_t n) const { return m <= max_dim && n <= max_dim && m <= max_elems / n; }
    void measure(gemv::DeviceProblem<T>& p, const std::string& suite, gemv::Layout layout, std::int64_t m,
                 std::int64_t n, bool search = false, const std::string& layer = "") {
        if (!fits(m, n)) return;
        p.use(m, n, layout);
        const gemv::Resolved c = o.text("pick") == "timed"
                                     ? gemv::pick_timed<T>(o.text("table-dir"), f, layout, m, n, p.A(), p.x(), p.y())
                                     : gemv::resolve(o.text("table-dir"), f, gemv::precision_of<T>(), layout, m, n);
        Row r{suite, layer, layout, m, n, describe(c.config), "", c.source};
        const gemv::VersatileGemv<T> gemv(c.config, layout, m, n);
        r.plan = describe(gemv.plan());
        r.t11 = p.verified_median_ms(
            f, [&](cudaStream_t s) { gemv(p.A(), p.x(), p.y(), s); }, 1, o.reps, "step 11 (" + r.config + ")");
        r.tcublas = cublas_ms(p, layout, m, n, &r.yardstick);
        if (search) {
            std::map<gemv::Loads, Candidate> by_loads;
            const Candidate best = search_best(p, f, layout, m, n, o.reps, &by_loads);
            r.tbest = best.ms;
            r.best_config = describe(best.config);
            for (const auto& [loads, c] : by_loads)
                r.best_by_loads += (r.best_by_loads.empty() ? "" : "; ") + std::string(to_string(loads)) + " " +
                                   gemv::number(c.ms) + " ms";
        }
        rows.push_back(r);
        std::cerr << "." << std::flush;
    }
    // The yardstick's time, its name in *name: cuBLAS's ?gemv in float and double, GemmEx in bf16 and fp16,
    // cuBLASLt's matmul in fp8 where it takes the shape; NaN where there is none (the verdict compares with the
    // ceiling alone there), *name saying why.
    double cublas_ms(gemv::DeviceProblem<T>& p, gemv::Layout layout, std::int64_t m, std::int64_t n,
                     std::string* name) {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
            *name = "cuBLAS gemv";
            return p.verified_median_ms(
                f, [&](cudaStream_t s) { gemv_cublas(cublas, p.A(), p.x(), p.y(), m, n, layout, s); }, 2, o.reps,
                "cuBLAS");
        } else if constexpr (cublas_gemm_ex_takes<T>) {
            *name = "cuBLAS GemmEx";
            return p.verified_median_ms(
                f, [&](cudaStream_t s) { gemv_cublas_ex(cublas, p.A(), p.x(), p.y(), m, n, layout, s); }, 2, o.reps,
                *name);
        } else {
            return cublaslt_fp8_ms(p, layout, m, n, name);
        }
    }
    // cuBLASLt's fp8 matmul, planned once for the shape. Hopper's tensor cores add fp8 products in fewer bits than
    // float between promotions to float: where its y is outside the float bound, the shape has no yardstick (said
    // in the CSV and on stderr) rather than the run ending there.
    double cublaslt_fp8_ms(gemv::DeviceProblem<T>& p, gemv::Layout layout, std::int64_t m, std::int64_t n,
                           std::string* name) {
        CublasLtFp8Gemv lt(layout, m, n);
        if (!lt.takes()) {
            *name = "none: " + lt.refusal();
            return std::nan("");
        }
        const auto run = [&](cudaStream_t s) { lt(p.A(), p.x(), p.y(), s); };
        p.poison();
        run(0);
        if (const auto wrong = p.count_wrong_elements()) {
            *name = "none: cuBLASLt fp8 has " + std::to_string(wrong) + " rows outside the float bound";
            std::cerr << "\n" << m << " x " << n << " " << gemv::to_string(layout) << ": " << *name << "\n";
            return std::nan("");
        }
        *name = "cuBLASLt fp8";
        return p.verified_median_ms(f, run, 2, o.reps, *name);
    }
    double gbps(const Row& r, double ms) const {
        return double(gemv::model_bytes(r.m, r.n, gemv::precision_of<T>())) / (ms * 1e6);
    }
    // The least time a product can take: its bytes at the read ceiling, after an empty launch.
    double floor_ms(const Row& r) const {
        return double(gemv::model_bytes(r.m, r.n, gemv::precision_of<T>())) / (ceiling * 1e6) + launch_ms;
    }
};

// Sørensen's mesh as the tuning table holds it (each point once per vector class): this GPU's
// table, or the one it borrows.
template <class T>
void run_mesh(Bench<T>& b, gemv::DeviceProblem<T>& p, gemv::Layout layout) {
    const gemv::TuningTable* t = gemv::table_for(b.o.text("table-dir"), b.f, gemv::precision_of<T>(), layout, 2, 2);
    if (!t) {
        std::cerr << "mesh suite: no table of this GPU's or its architecture's to take the mesh from\n";
        return;
    }
    std::vector<std::int64_t> axis;
    std::int64_t largest = 0;
    for (const gemv::TunedPoint& q : t->points) {
        axis.push_back(layout == gemv::Layout::col ? q.n : q.m);
        largest = std::max(largest, q.m * q.n);
    }
    std::sort(axis.begin(), axis.end());
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
    for (std::int64_t m : axis)
        for (std::int64_t n : axis)
            if (m * n <= largest) b.measure(p, "mesh", layout, m, n);
}

// The weight matrices a language model multiplies by one token's vector at decode, named as its
// layers (an 8B-class and a 70B-class model of the Llama 3 shapes): rows are outputs, columns inputs.
struct Layer {
    const char* name;
    std::int64_t m, n;
};
constexpr Layer kDecodeLayers[] = {
    {"8B attention q, o", 4096, 4096},  {"8B attention k, v", 1024, 4096}, {"8B mlp gate, up", 14336, 4096},
    {"8B mlp down", 4096, 14336},       {"8B vocabulary", 128256, 4096},   {"70B attention q, o", 8192, 8192},
    {"70B attention k, v", 1024, 8192}, {"70B mlp gate, up", 28672, 8192}, {"70B mlp down", 8192, 28672},
    {"70B vocabulary", 128256, 8192},
};

template <class T>
void run_suite(Bench<T>& b, gemv::DeviceProblem<T>& p, const std::string& suite, gemv::Layout layout) {
    const gemv::Options& o = b.o;
    if (suite == "targets") {
        // 2^28 elements (1 GiB of float, 2 GiB of double) in seven shapes, tall to wide.
        for (auto [lm, ln] : {std::pair<int, int>{26, 2}, {24, 4}, {20, 8}, {14, 14}, {8, 20}, {4, 24}, {2, 26}})
            b.measure(p, suite, layout, std::int64_t(1) << lm, std::int64_t(1) << ln);
    } else if (suite == "mesh") {
        run_mesh(b, p, layout);
    } else if (suite == "curves") {
        // Sørensen's figure 4: footprints from 4 KiB up, three shapes at each.
        for (double mib = 1.0 / 256; mib * (1 << 20) <= double(b.max_elems) * sizeof(T); mib *= 2) {
            const std::int64_t N =
                std::max<std::int64_t>(1, std::llround(std::sqrt(mib * (1 << 20) / sizeof(T) / 100)));
            b.measure(p, "curve-tall", layout, 100 * N, N);
            b.measure(p, "curve-square", layout, 10 * N, 10 * N);
            b.measure(p, "curve-wide", layout, N, 100 * N);
        }
    } else if (suite == "offmesh") {
        std::mt19937_64 rng(o.seed);
        std::uniform_real_distribution<double> logsize(std::log(4.0 * (1 << 20) / sizeof(T)),
                                                       std::log(double(b.max_elems)));
        std::uniform_real_distribution<double> aspect(-1, 1);
        for (int k = 0; k < int(o.integer("offmesh-points")); ++k) {
            const double elems = std::exp(logsize(rng));
            const double ratio = std::pow(10.0, 5 * aspect(rng));  // m/n from 1e-5 to 1e5
            const std::int64_t m = std::max<std::int64_t>(3, std::llround(std::sqrt(elems * ratio)));
            const std::int64_t n = std::max<std::int64_t>(3, std::llround(elems / double(m)));
            b.measure(p, suite, layout, m, n, true);
        }
    } else if (suite == "shapes") {
        std::vector<Shape2> shapes;
        parse_shapes(o.text("shapes"), &shapes);
        for (auto [m, n] : shapes) {
            if (!b.fits(m, n)) {
                std::cerr << "\n" << m << " x " << n << " is past --max-mib or 2^29 a side: not measured\n";
                continue;
            }
            b.measure(p, suite, layout, m, n, true);
        }
    } else if (suite == "decode") {
        for (const Layer& l : kDecodeLayers) b.measure(p, suite, layout, l.m, l.n, false, l.name);
    } else if (suite == "odd") {
        for (auto [m, n] : odd_shapes(o.seed, int(o.integer("odd-points")), sizeof(T), b.max_elems))
            b.measure(p, suite, layout, m, n);
    }
}

template <class T>
void write_csv(const Bench<T>& b, std::ostream& out) {
    const gemv::Metadata meta = b.f.metadata();
    const std::string date = gemv::utc_date();
    using gemv::number;
    std::vector<gemv::Fields> rows;
    for (const Row& r : b.rows)
        rows.push_back({{"suite", r.suite, false},
                        {"device", meta.device, false},
                        {"sms", std::to_string(meta.units), true},
                        {"runtime", meta.runtime_version, false},
                        {"driver", meta.driver_version, false},
                        {"git_revision", meta.git_revision, false},
                        {"date", date, false},
                        {"seed", std::to_string(b.o.seed), true},
                        {"precision", gemv::to_string(gemv::precision_of<T>()), false},
                        {"layout", gemv::to_string(r.layout), false},
                        {"m", std::to_string(r.m), true},
                        {"n", std::to_string(r.n), true},
                        {"bytes", std::to_string(gemv::model_bytes(r.m, r.n, sizeof(T))), true},
                        {"cache", "cold", false},
                        {"reps", std::to_string(b.o.reps), true},
                        {"ceiling_gbps", number(b.ceiling), true},
                        {"copy_gbps", number(b.copy), true},
                        {"launch_ms", number(b.launch_ms), true},
                        {"floor_ms", number(b.floor_ms(r)), true},
                        {"step11_ms", number(r.t11), true},
                        {"step11_gbps", number(b.gbps(r, r.t11)), true},
                        {"cublas_ms", number(r.tcublas), true},
                        {"cublas_gbps", number(b.gbps(r, r.tcublas)), true},
                        {"speedup", number(r.tcublas / r.t11), true},
                        {"yardstick", r.yardstick, false},
                        {"best_ms", number(r.tbest), true},
                        {"step11_config", r.config, false},
                        {"step11_plan", r.plan, false},
                        {"step11_source", r.source, false},
                        {"best_config", r.best_config, false},
                        {"best_ms_by_loads", r.best_by_loads, false}});
    gemv::print_fields(out, gemv::Format::csv, rows);
}

// The targets' figures, per layout, on stderr.
template <class T>
void print_verdict(const Bench<T>& b, gemv::Layout layout) {
    double min_pct = 1e9, max_gbps = 0, min_gbps = 1e18, log_sum = 0, min_ratio = 1e9, worst_small = 0;
    double worst_offmesh = 0, odd_min_ratio = 1e9, big_min_pct = 1e9, big_max = 0, big_min = 1e18;
    int mesh_big = 0, odd = 0, shapes = 0, no_yardstick = 0;
    for (const Row& r : b.rows) {
        if (r.layout != layout) continue;
        ++shapes;
        const double bytes = double(gemv::model_bytes(r.m, r.n, gemv::precision_of<T>())), gbps = b.gbps(r, r.t11);
        if (r.suite == "targets") {
            min_pct = std::min(min_pct, 100 * gbps / b.ceiling);
            max_gbps = std::max(max_gbps, gbps);
            min_gbps = std::min(min_gbps, gbps);
        }
        if (!std::isfinite(r.tcublas)) {  // no yardstick at this shape (fp8 where cuBLASLt does not take it)
            ++no_yardstick;
        } else if (r.suite == "mesh" && bytes >= 4.0 * (1 << 20)) {
            log_sum += std::log(r.tcublas / r.t11);
            ++mesh_big;
            min_ratio = std::min(min_ratio, r.tcublas / r.t11);
        } else if (r.suite == "mesh") {
            worst_small = std::max(worst_small, r.t11 / r.tcublas);
        }
        if (r.suite == "offmesh" || r.suite == "shapes") worst_offmesh = std::max(worst_offmesh, r.t11 / r.tbest - 1);
        if (r.suite == "odd" && std::isfinite(r.tcublas)) {
            ++odd;
            odd_min_ratio = std::min(odd_min_ratio, r.tcublas / r.t11);
        }
        if (bytes >= 256.0 * (1 << 20) && r.suite != "mesh") {  // against the copy figure where n < 8
            big_min_pct = std::min(big_min_pct, 100 * gbps / (r.n < 8 ? b.copy : b.ceiling));
            big_max = std::max(big_max, gbps);
            big_min = std::min(big_min, gbps);
        }
    }
    std::cerr << std::fixed << gemv::to_string(gemv::precision_of<T>()) << " " << gemv::to_string(layout) << ":";
    if (max_gbps > 0)
        std::cerr << std::setprecision(1) << " targets min " << min_pct << "% of ceiling, spread "
                  << 100 * (max_gbps / min_gbps - 1) << "%;";
    if (mesh_big)
        std::cerr << std::setprecision(3) << " mesh >=4MiB geomean " << std::exp(log_sum / mesh_big) << "x cuBLAS, min "
                  << min_ratio << "x; <4MiB worst time " << worst_small << "x cuBLAS's;";
    if (worst_offmesh > 0) std::cerr << std::setprecision(1) << " off-mesh worst " << 100 * worst_offmesh << "% over;";
    if (odd) std::cerr << std::setprecision(3) << " odd min " << odd_min_ratio << "x cuBLAS;";
    if (no_yardstick)
        std::cerr << " no yardstick at " << no_yardstick << " of " << shapes << " shapes (CSV: yardstick);";
    if (big_max > 0)
        std::cerr << std::setprecision(1) << " >=256MiB min " << big_min_pct << "% of ceiling (copy where n<8), spread "
                  << 100 * (big_max / big_min - 1) << "%;";
    std::cerr << "\n";
}

// The decode suite's figures, per layout, on stderr: the shapes of 100 MiB or more against the
// ceiling, every shape against cuBLAS, the ones under 64 MiB against the floor.
template <class T>
void print_decode_verdict(const Bench<T>& b, gemv::Layout layout) {
    double big_pct = 1e9, ratio = 1e9, over_floor = 0;
    std::string big_at, ratio_at, floor_at;
    for (const Row& r : b.rows) {
        if (r.layout != layout || r.suite != "decode") continue;
        const double bytes = double(gemv::model_bytes(r.m, r.n, gemv::precision_of<T>()));
        if (bytes >= 100.0 * (1 << 20) && 100 * b.gbps(r, r.t11) / b.ceiling < big_pct)
            big_pct = 100 * b.gbps(r, r.t11) / b.ceiling, big_at = r.layer;
        if (std::isfinite(r.tcublas) && r.tcublas / r.t11 < ratio) ratio = r.tcublas / r.t11, ratio_at = r.layer;
        if (bytes < 64.0 * (1 << 20) && r.t11 / b.floor_ms(r) > over_floor)
            over_floor = r.t11 / b.floor_ms(r), floor_at = r.layer;
    }
    if (big_at.empty() && ratio_at.empty() && floor_at.empty()) return;
    std::cerr << std::fixed << gemv::to_string(gemv::precision_of<T>()) << " " << gemv::to_string(layout) << " decode:";
    if (!big_at.empty())
        std::cerr << std::setprecision(1) << " >=100MiB min " << big_pct << "% of ceiling (" << big_at << ");";
    if (!ratio_at.empty()) std::cerr << std::setprecision(3) << " min " << ratio << "x cuBLAS (" << ratio_at << ");";
    if (!floor_at.empty())
        std::cerr << std::setprecision(2) << " <64MiB worst " << over_floor << "x the floor (" << floor_at
                  << "; launch " << std::setprecision(4) << b.launch_ms << " ms);";
    std::cerr << "\n";
}

template <class T>
int bench(const gemv::Options& o) {
    Bench<T> b(o);
    std::vector<std::string> suites = {o.text("suite")};
    if (suites[0] == "all") suites = {"targets", "mesh", "curves", "offmesh", "odd"};
    std::vector<gemv::Layout> layouts = {gemv::Layout::col, gemv::Layout::row};
    if (o.text("layouts") != "both") layouts = {o.text("layouts") == "row" ? gemv::Layout::row : gemv::Layout::col};
    std::cerr << "seed " << o.seed
              << (o.given(gemv::CommonOption::seed)
                      ? ""
                      : " (drawn: give --seed " + std::to_string(o.seed) + " to draw the same shapes again)")
              << "\n";
    gemv::DeviceProblem<T> p(b.max_elems, b.max_dim, o.seed);
    for (gemv::Layout layout : layouts)
        for (const std::string& suite : suites) run_suite(b, p, suite, layout);
    std::cerr << "\nceiling " << std::setprecision(0) << std::fixed << b.ceiling << " GB/s, copy " << b.copy
              << " GB/s\n";
    std::ofstream file;
    const std::string out = o.text("out");
    if (out != "-") file.open(out);
    write_csv(b, out == "-" ? std::cout : file);
    for (gemv::Layout layout : layouts) {
        print_verdict(b, layout);
        print_decode_verdict(b, layout);
    }
    return gemv::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "11";
    spec.name = "bench";
    spec.title = "step 11 tuned against cuBLAS and the read ceiling, one run, cold L2, verified";
    spec.common = {gemv::CommonOption::precision, gemv::CommonOption::reps, gemv::CommonOption::seed};
    spec.precisions = {gemv::Precision::f32, gemv::Precision::f64, gemv::Precision::bf16, gemv::Precision::f16,
                       gemv::Precision::fp8};  // step 15's formats too (fp8: cuBLASLt where it takes the shape)
    spec.default_reps = 15;
    spec.options = {
        gemv::choice_option("suite", "what to measure", "targets",
                            {"targets", "mesh", "curves", "offmesh", "odd", "decode", "shapes", "all"}),
        gemv::choice_option("layouts", "which layouts", "both", {"col", "row", "both"}),
        gemv::integer_option("max-mib", "largest footprint of A, MiB", 4096, 1, 1 << 20),
        gemv::integer_option("offmesh-points", "shapes off the mesh to check", 8, 1, 1000),
        gemv::integer_option("odd-points", "odd and prime shapes to draw (the degenerate ones come on top)", 16, 1,
                             1000),
        gemv::text_option("shapes", "with --suite shapes: MxN,MxN,... each also searched at that shape alone", "",
                          [](const std::string& t) { return t.empty() ? std::string() : parse_shapes(t); }),
        gemv::text_option("table-dir", "where the tuning tables are (default: beside the solution)", "auto"),
        gemv::choice_option("pick",
                            "the fastest of the nearest points' picks and the nearest pick's neighbours, timed at "
                            "the shape, as step 11 picks, or the nearest point's alone",
                            "timed", {"timed", "nearest"}),
        gemv::text_option("out", "CSV file, - for standard output", "-")};
    return gemv::run_step(argc, argv, spec, [](gemv::Options o) {
        // Bad input is refused before the GPU is asked for, on any machine.
        if (o.text("suite") == "shapes" && o.text("shapes").empty())
            throw gemv::UsageError("--suite shapes measures the shapes given by --shapes MxN,MxN,...");
        if (!o.given(gemv::CommonOption::seed)) o.seed = std::random_device{}();  // a fresh draw, printed
        return gemv::with_storage_type(o.precision, [&](auto stored) { return bench<decltype(stored)>(o); });
    });
}
