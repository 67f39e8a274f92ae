// The ladder: every built step on one problem, side by side in one table. Each step runs as its
// own program with --format csv; a step registers itself once (gemv_add_step) and appears here.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "report.hpp"

namespace {

using Row = std::map<std::string, std::string>;

struct Step {
    std::string number, name, program;
    std::vector<std::string> precisions;  // empty: float and double
};

// The precision a step runs in: the ladder's, or the first the step takes where it takes other
// ones (step 15's bf16 when the ladder runs float or double).
std::string precision_for(const Step& st, gemv::Precision ladder) {
    const std::string ours = gemv::to_string(ladder);
    if (st.precisions.empty() || std::find(st.precisions.begin(), st.precisions.end(), ours) != st.precisions.end())
        return ours;
    return st.precisions.front();
}

struct Outcome {
    Step step;
    std::string status;  // "ok", "wrong", "skipped: no CUDA device", "failed: ..."
    std::vector<Row> rows;
};

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                out.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                out.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

std::vector<Step> read_registry(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw gemv::UsageError("cannot read the step registry " + path);
    std::vector<Step> steps;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::stringstream s(line);
        Step st;
        std::getline(s, st.number, '|');
        std::getline(s, st.name, '|');
        std::getline(s, st.program, '|');
        std::string precision;
        while (std::getline(s, precision, ','))
            if (!precision.empty()) st.precisions.push_back(precision);
        steps.push_back(st);
    }
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.number < b.number; });
    return steps;
}

// "01,03-06" -> is the step in it? Empty means every step.
bool selected(const std::string& list, const std::string& number) {
    if (list.empty() || list == "all") return true;
    std::stringstream s(list);
    std::string item;
    const int n = std::stoi(number);
    while (std::getline(s, item, ',')) {
        const auto dash = item.find('-');
        const int lo = std::stoi(item.substr(0, dash));
        const int hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
        if (n >= lo && n <= hi) return true;
    }
    return false;
}

Outcome run(const Step& st, const std::string& args) {
    Outcome o{st, "", {}};
    const std::string err_file = "/tmp/gemv_ladder_" + std::to_string(::getpid()) + ".err";
    const std::string cmd = "'" + st.program + "' " + args + " --format csv 2>" + err_file;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (!pipe) {
        o.status = "failed: cannot start " + st.program;
        return o;
    }
    std::string out;
    char buf[4096];
    while (std::size_t k = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, k);
    const int status = ::pclose(pipe);
    std::ifstream err(err_file);
    std::string first_err;
    std::getline(err, first_err);
    std::remove(err_file.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == gemv::kExitNoDevice) {
        o.status = "skipped: no CUDA device";
        return o;
    }
    std::stringstream lines(out);
    std::string line;
    std::vector<std::string> header;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        const auto cells = split_csv_line(line);
        if (header.empty()) {
            header = cells;
            continue;
        }
        Row r;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) r[header[i]] = cells[i];
        o.rows.push_back(r);
    }
    if (code == gemv::kExitOk)
        o.status = "ok";
    else if (code == gemv::kExitWrong)
        o.status = "wrong";
    else
        o.status = "failed: " + (first_err.empty() ? "exit code " + std::to_string(code) : first_err);
    if (o.rows.empty() && o.status == "ok") o.status = "failed: no output";
    return o;
}

double num(const Row& r, const std::string& key) {
    const auto it = r.find(key);
    return it == r.end() || it->second.empty() ? NAN : std::atof(it->second.c_str());
}

std::string time_text(double ms) {
    return ms >= 10 ? gemv::fixed(ms, 1) + " ms" : gemv::fixed(ms * 1e3, 1) + " us";
}

// The problem every step runs: --m and --n where given, else --shape at --size-mib.
std::pair<std::int64_t, std::int64_t> problem_shape(const gemv::Options& o) {
    using gemv::CommonOption;
    if (o.given(CommonOption::m) != o.given(CommonOption::n))
        throw gemv::UsageError("give both --m and --n, or neither (then --shape decides)");
    if (o.given(CommonOption::m)) return {o.shape.m, o.shape.n};
    const double elems = double(o.integer("size-mib")) * 1024 * 1024 / double(gemv::element_size(o.precision));
    const std::string shape = o.text("shape");
    const double k = shape == "square" ? 1.0 : 100.0;
    const auto side = static_cast<std::int64_t>(std::sqrt(elems / k));  // N x kN or kN x N
    const std::int64_t big = static_cast<std::int64_t>(elems / double(side));
    const std::int64_t m = shape == "tall" ? big : side;
    const std::int64_t n = shape == "wide" ? big : side;
    if (m == 0 || n == 0) throw gemv::UsageError("--size-mib is too small for this shape");
    return {m, n};
}

// The options every step is run with but its precision: the problem, and what the ladder's own
// command line set (where it sets nothing, each step's own default holds).
std::string step_arguments(const gemv::Options& o, std::int64_t m, std::int64_t n) {
    using gemv::CommonOption;
    std::ostringstream pass;
    pass << "--m " << m << " --n " << n << " --cache " << (o.cold ? "cold" : "hot") << " --seed " << o.seed;
    if (o.given(CommonOption::reps)) pass << " --reps " << o.reps;
    if (o.given(CommonOption::warmup)) pass << " --warmup " << o.warmup;
    if (!o.verify) pass << " --no-verify";
    if (o.given(CommonOption::layout)) pass << " --layout " << gemv::to_string(o.shape.layout);
    return pass.str();
}

// The yardsticks: step 01's time for the speed-up, step 12's (cuBLAS) for the ratio, where they ran right.
struct Yardsticks {
    double t01 = NAN, t_cublas = NAN;
};

Yardsticks yardsticks(const std::vector<Outcome>& outcomes) {
    Yardsticks y;
    for (const auto& oc : outcomes)
        if (!oc.rows.empty() && oc.status == "ok") {
            if (oc.step.number == "01") y.t01 = num(oc.rows.front(), "median_ms");
            if (oc.step.number == "12") y.t_cublas = num(oc.rows.front(), "median_ms");
        }
    return y;
}

// What the ladder prints: a table row per kernel (or per step that did not run, its status), and
// the steps' own CSV rows with the speed-up, the ratio to cuBLAS and the status added.
struct Ladder {
    std::vector<std::vector<std::string>> table;
    std::vector<Row> rows;
    bool all_ok = true, noise = false, busy = false, vectors = false;
};

Ladder tabulate(const std::vector<Outcome>& outcomes, gemv::Precision ladder) {
    const Yardsticks y = yardsticks(outcomes);
    Ladder l;
    for (const auto& oc : outcomes) {
        l.all_ok &= oc.status == "ok" || oc.status.rfind("skipped", 0) == 0;
        if (oc.rows.empty()) {
            l.table.push_back({oc.step.number, oc.step.name, oc.status});
            l.rows.push_back({{"step", oc.step.number}, {"name", oc.step.name}, {"status", oc.status}});
            continue;
        }
        for (Row r : oc.rows) {
            const double t = num(r, "median_ms");
            // Steps 16 and 17 multiply k vectors at once: their speed-ups compare the time a vector.
            const double k = std::isnan(num(r, "k")) ? 1.0 : num(r, "k");
            r["speedup_vs_01"] = gemv::fixed(y.t01 / (t / k), 3);
            r["ratio_to_cublas"] = gemv::fixed(y.t_cublas / (t / k), 3);
            r["status"] = oc.status;
            const double occ = num(r, "occupancy");
            // A wrong result has no speed worth comparing either.
            const bool failed = r["verified"] == "NO";
            const gemv::ShownFigures s =
                gemv::shown_figures(num(r, "gbps"), num(r, "pct_ceiling"), num(r, "gflops"), t, failed,
                                    r["runtime"] == "-", r["pct_ceiling"] == gemv::kCeilingBusy);
            l.noise |= s.noise;
            l.busy |= s.busy;
            l.vectors |= k != 1;
            std::string kernel = oc.step.name + " / " + r["variant"];
            if (r["precision"] != gemv::to_string(ladder)) kernel += ", " + r["precision"];  // step 15's bf16
            if (k != 1) kernel += ", k=" + r["k"];                                           // steps 16, 17
            l.table.push_back({oc.step.number, kernel, r["layout"], time_text(t), s.gbps, s.pct_ceiling, s.gflops,
                               gemv::fixed(num(r, "cgma"), 3),
                               r["limiter"] == "-" ? "-" : gemv::fixed(100 * occ, 0) + "% " + r["limiter"],
                               failed ? "-" : gemv::fixed(y.t01 / (t / k), 1) + "x",
                               failed ? "-" : gemv::fixed(y.t_cublas / (t / k), 2), r["verified"]});
            l.rows.push_back(r);
        }
    }
    return l;
}

void print_table(const Ladder& l, const std::vector<Outcome>& outcomes, const gemv::Options& o, std::int64_t m,
                 std::int64_t n) {
    std::cout << "GEMV ladder: " << gemv::to_string(o.precision) << ", " << m << " x " << n << " ("
              << gemv::format_bytes(double(gemv::matrix_bytes(m, n, gemv::element_size(o.precision)))) << " of A), "
              << (o.cold ? "cold" : "hot") << " cache\n";
    for (const auto& oc : outcomes)
        if (!oc.rows.empty()) {
            std::cout << "  step " << oc.step.number << " ran on " << oc.rows.front().at("device") << "\n";
            break;
        }
    const std::vector<std::string> head = {"step",    "kernel", "layout",    "time",  "GB/s",      "% ceil",
                                           "GFLOP/s", "CGMA",   "occupancy", "vs 01", "vs cuBLAS", "verified"};
    gemv::print_columns(std::cout, head, l.table, {0, 1, 2, 8});
    std::cout << "GB/s counts A, x and y once; % ceil is of the ceiling measured in the same run (CPU or GPU);"
                 " vs cuBLAS > 1 is faster than cuBLAS.\n";
    if (l.vectors)
        std::cout << "k=N: N vectors at once (steps 16 and 17): time, GB/s and GFLOP/s are the whole product's;"
                     " vs 01 and vs cuBLAS divide its time by N.\n";
    if (l.noise) std::cout << gemv::noise_note() << "\n";
    if (l.busy) std::cout << gemv::busy_note() << "\n";
}

// CSV or JSON, every value as text. A JSON object holds the keys its row has, in name order; CSV
// columns are every key any row has (those of the first row first), "" where a row has none.
void print_rows(const Ladder& l, gemv::Format format) {
    std::vector<std::string> keys;
    for (const auto& r : l.rows)
        for (const auto& kv : r)
            if (std::find(keys.begin(), keys.end(), kv.first) == keys.end()) keys.push_back(kv.first);
    std::vector<gemv::Fields> out;
    for (const auto& r : l.rows) {
        gemv::Fields f;
        if (format == gemv::Format::csv)
            for (const auto& k : keys) {
                const auto it = r.find(k);
                f.push_back({k, it == r.end() ? "" : it->second, false});
            }
        else
            for (const auto& [k, v] : r) f.push_back({k, v, false});
        out.push_back(f);
    }
    gemv::print_fields(std::cout, format, out);
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "ladder";
    spec.name = "ladder";
    spec.title = "every built step on one problem, side by side (GPU steps skipped where there is no GPU)";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.default_shape_text = "from --shape and --size-mib";
    spec.default_reps_text = "each step's own";
    spec.options = {
        gemv::choice_option("shape", "square 10N x 10N, tall 100N x N, wide N x 100N", "square",
                            {"square", "tall", "wide"}),
        gemv::integer_option("size-mib", "footprint of A in MiB when --m/--n are not given", 256, 1, 1 << 20),
        gemv::text_option("steps", "which steps, for example 01,03-06", "all"),
        gemv::text_option("registry", "the list of built steps", GEMV_LADDER_REGISTRY)};
    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        const std::string steps_list = o.text("steps");
        for (char c : steps_list)
            if (!(std::isdigit(static_cast<unsigned char>(c)) || c == ',' || c == '-') && steps_list != "all")
                throw gemv::UsageError("--steps takes numbers and ranges such as 01,03-06, not '" + steps_list + "'");
        const auto [m, n] = problem_shape(o);
        const std::string args = step_arguments(o, m, n);
        std::vector<Outcome> outcomes;
        for (const Step& st : read_registry(o.text("registry"))) {
            if (!selected(steps_list, st.number)) continue;
            std::cerr << "ladder: step " << st.number << " " << st.name << " ..." << std::endl;
            outcomes.push_back(run(st, args + " --precision " + precision_for(st, o.precision)));
        }
        const Ladder l = tabulate(outcomes, o.precision);
        if (o.format == gemv::Format::table)
            print_table(l, outcomes, o, m, n);
        else
            print_rows(l, o.format);
        return l.all_ok ? gemv::kExitOk : gemv::kExitWrong;
    });
}
