// The ladder: every built step on one problem, side by side in one table. Each step runs as its
// own program with --format csv; a step registers itself once (gemv_add_step) and appears here.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
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

std::string fixed(double v, int d) {
    if (!std::isfinite(v)) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(d) << v;
    return s.str();
}

std::string time_text(double ms) {
    return ms >= 10 ? fixed(ms, 1) + " ms" : fixed(ms * 1e3, 1) + " us";
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "ladder";
    spec.name = "ladder";
    spec.title = "every built step on one problem, side by side (GPU steps skipped where there is no GPU)";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.default_m = spec.default_n = 0;  // from --shape and --size-mib unless given
    spec.default_reps = 0;                // each step's own default unless given
    spec.options = {{"shape", "square 10N x 10N, tall 100N x N, wide N x 100N", "square", {"square", "tall", "wide"}},
                    {"size-mib", "footprint of A in MiB when --m/--n are not given", "256", {}, 1, 1 << 20},
                    {"steps", "which steps, for example 01,03-06", "all", {}, 0, 0, true},
                    {"registry", "the list of built steps", GEMV_LADDER_REGISTRY, {}, 0, 0, true}};
    bool layout_given = false;
    for (int i = 1; i < argc; ++i) layout_given |= std::string(argv[i]).rfind("--layout", 0) == 0;

    return gemv::run_step(argc, argv, spec, [&](const gemv::Options& o) {
        const std::string steps_list = o.get("steps"), registry = o.get("registry");
        for (char c : steps_list)
            if (!(std::isdigit(static_cast<unsigned char>(c)) || c == ',' || c == '-') && steps_list != "all")
                throw gemv::UsageError("--steps takes numbers and ranges such as 01,03-06, not '" + steps_list + "'");
        const std::size_t elem = gemv::element_size(o.precision);
        std::int64_t m = o.shape.m, n = o.shape.n;
        if ((m == 0) != (n == 0)) throw gemv::UsageError("give both --m and --n, or neither (then --shape decides)");
        if (m == 0 || n == 0) {
            const double elems = double(o.get_int("size-mib")) * 1024 * 1024 / double(elem);
            const std::string shape = o.get("shape");
            const double k = shape == "square" ? 1.0 : 100.0;
            const auto side = static_cast<std::int64_t>(std::sqrt(elems / k));  // N x kN or kN x N
            const std::int64_t big = static_cast<std::int64_t>(elems / double(side));
            m = shape == "wide" ? side : shape == "tall" ? big : side;
            n = shape == "wide" ? big : shape == "tall" ? side : side;
            if (m == 0 || n == 0) throw gemv::UsageError("--size-mib is too small for this shape");
        }
        std::ostringstream pass;
        pass << "--m " << m << " --n " << n << " --cache " << (o.cold ? "cold" : "hot") << " --seed " << o.seed;
        if (o.reps > 0) pass << " --reps " << o.reps;
        if (!o.verify) pass << " --no-verify";
        std::vector<Outcome> outcomes;
        for (const Step& st : read_registry(registry)) {
            if (!selected(steps_list, st.number)) continue;
            std::string a = pass.str() + " --precision " + precision_for(st, o.precision);
            if (layout_given) a += std::string(" --layout ") + gemv::to_string(o.shape.layout);
            std::cerr << "ladder: step " << st.number << " " << st.name << " ..." << std::endl;
            outcomes.push_back(run(st, a));
        }

        // The yardsticks: step 01's time for the speed-up, step 12 (cuBLAS) for the ratio, where they ran right.
        double t01 = NAN, t_cublas = NAN;
        for (const auto& oc : outcomes)
            if (!oc.rows.empty() && oc.status == "ok") {
                if (oc.step.number == "01") t01 = num(oc.rows.front(), "median_ms");
                if (oc.step.number == "12") t_cublas = num(oc.rows.front(), "median_ms");
            }

        bool all_ok = true, noise = false, any_vectors = false;
        std::vector<std::vector<std::string>> table;
        std::vector<Row> flat;
        for (const auto& oc : outcomes) {
            all_ok &= oc.status == "ok" || oc.status.rfind("skipped", 0) == 0;
            if (oc.rows.empty()) {
                table.push_back({oc.step.number, oc.step.name, oc.status});
                Row r{{"step", oc.step.number}, {"name", oc.step.name}, {"status", oc.status}};
                flat.push_back(r);
                continue;
            }
            for (Row r : oc.rows) {
                const double t = num(r, "median_ms");
                // Step 16 multiplies k vectors at once: its speed-ups compare the time a vector.
                const double k = std::isnan(num(r, "k")) ? 1.0 : num(r, "k");
                r["speedup_vs_01"] = fixed(t01 / (t / k), 3);
                r["ratio_to_cublas"] = fixed(t_cublas / (t / k), 3);
                r["status"] = oc.status;
                const double occ = num(r, "occupancy");
                // A wrong result has no speed worth comparing either.
                const bool failed = r["verified"] == "NO";
                const gemv::ShownFigures s = gemv::shown_figures(num(r, "gbps"), num(r, "pct_ceiling"),
                                                                 num(r, "gflops"), t, failed, r["runtime"] == "-");
                noise |= s.noise;
                any_vectors |= k != 1;
                std::string kernel = oc.step.name + " / " + r["variant"];
                if (r["precision"] != gemv::to_string(o.precision)) kernel += ", " + r["precision"];  // step 15
                if (k != 1) kernel += ", k=" + r["k"];                                                // step 16
                table.push_back({oc.step.number, kernel, r["layout"], time_text(t), s.gbps, s.pct_ceiling, s.gflops,
                                 fixed(num(r, "cgma"), 3),
                                 r["limiter"] == "-" ? "-" : fixed(100 * occ, 0) + "% " + r["limiter"],
                                 failed ? "-" : fixed(t01 / (t / k), 1) + "x",
                                 failed ? "-" : fixed(t_cublas / (t / k), 2), r["verified"]});
                flat.push_back(r);
            }
        }

        if (o.format == gemv::Format::table) {
            std::cout << "GEMV ladder: " << gemv::to_string(o.precision) << ", " << m << " x " << n << " ("
                      << gemv::format_bytes(double(gemv::matrix_bytes(m, n, elem))) << " of A), "
                      << (o.cold ? "cold" : "hot") << " cache\n";
            for (const auto& oc : outcomes)
                if (!oc.rows.empty()) {
                    std::cout << "  step " << oc.step.number << " ran on " << oc.rows.front().at("device") << "\n";
                    break;
                }
            const std::vector<std::string> head = {"step",    "kernel", "layout",    "time",  "GB/s",      "% ceil",
                                                   "GFLOP/s", "CGMA",   "occupancy", "vs 01", "vs cuBLAS", "verified"};
            std::vector<std::size_t> w(head.size());
            for (std::size_t c = 0; c < head.size(); ++c) w[c] = head[c].size();
            for (const auto& row : table)
                if (row.size() == head.size())
                    for (std::size_t c = 0; c < row.size(); ++c) w[c] = std::max(w[c], row[c].size());
            const auto print = [&](const std::vector<std::string>& row) {
                for (std::size_t c = 0; c < row.size(); ++c)
                    std::cout << (c ? "  " : "") << (c < 3 || c == 8 ? std::left : std::right)
                              << std::setw(row.size() == head.size() ? int(w[c]) : 0) << row[c];
                std::cout << std::right << "\n";
            };
            print(head);
            for (const auto& row : table) print(row);
            std::cout << "GB/s counts A, x and y once; % ceil is of the ceiling measured in the same run (CPU or GPU);"
                         " vs cuBLAS > 1 is faster than cuBLAS.\n";
            if (any_vectors)
                std::cout << "k=N: N vectors at once (step 16): time, GB/s and GFLOP/s are the whole product's; vs 01"
                             " and vs cuBLAS divide its time by N.\n";
            if (noise) std::cout << gemv::noise_note() << "\n";
        } else {
            std::vector<std::string> keys;
            for (const auto& r : flat)
                for (const auto& kv : r)
                    if (std::find(keys.begin(), keys.end(), kv.first) == keys.end()) keys.push_back(kv.first);
            if (o.format == gemv::Format::csv) {
                for (std::size_t i = 0; i < keys.size(); ++i) std::cout << (i ? "," : "") << keys[i];
                std::cout << "\n";
                for (const auto& r : flat) {
                    for (std::size_t i = 0; i < keys.size(); ++i) {
                        const auto it = r.find(keys[i]);
                        std::string v = it == r.end() ? "" : it->second;
                        if (v.find_first_of(",\"") != std::string::npos) {
                            std::string q;
                            for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
                            v = "\"" + q + "\"";
                        }
                        std::cout << (i ? "," : "") << v;
                    }
                    std::cout << "\n";
                }
            } else {
                std::cout << "[\n";
                for (std::size_t k = 0; k < flat.size(); ++k) {
                    std::cout << "  {";
                    bool first = true;
                    for (const auto& kv : flat[k]) {
                        std::string v;
                        for (char c : kv.second)
                            v += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
                        std::cout << (first ? "" : ", ") << "\"" << kv.first << "\": \"" << v << "\"";
                        first = false;
                    }
                    std::cout << "}" << (k + 1 < flat.size() ? "," : "") << "\n";
                }
                std::cout << "]\n";
            }
        }
        return all_ok ? gemv::kExitOk : gemv::kExitWrong;
    });
}
