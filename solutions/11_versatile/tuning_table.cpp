#include "tuning_table.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "shape_rules.hpp"

namespace gemv {

std::string default_tuning_dir() {
    return GEMV_TUNING_DIR;
}

std::string tuning_file_name(const std::string& device, Precision precision, Layout layout) {
    std::string slug;
    for (char c : device) slug += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return slug + "_" + to_string(precision) + "_" + to_string(layout) + ".csv";
}

std::string point_header() {
    std::string h = "m,n";
    for (const ConfigField& f : config_fields()) h += std::string(",") + f.name;
    return h + ",gbps";
}

std::string point_line(const TunedPoint& p) {
    std::ostringstream s;
    s << p.m << "," << p.n;
    for (const ConfigField& f : config_fields()) s << "," << f.get(p.config);
    s << "," << p.gbps;
    return s.str();
}

TunedPoint parse_point(const std::string& line, Layout layout, std::size_t elem) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    const std::size_t fields = config_fields().size();
    if (cells.size() != fields + 3)
        throw std::runtime_error("'" + line + "' has " + std::to_string(cells.size()) + " cells, not " +
                                 std::to_string(fields + 3));
    TunedPoint p;
    try {
        std::size_t used_m = 0, used_n = 0, used_g = 0;
        p.m = std::stoll(cells[0], &used_m);
        p.n = std::stoll(cells[1], &used_n);
        p.gbps = std::stod(cells.back(), &used_g);
        if (used_m != cells[0].size() || used_n != cells[1].size() || used_g != cells.back().size())
            throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
        throw std::runtime_error("'" + line + "': m, n and gbps must be numbers");
    }
    for (std::size_t k = 0; k < fields; ++k) {
        const ConfigField& f = config_fields()[k];
        const std::string why = f.set(p.config, cells[k + 2]);
        if (!why.empty()) throw std::runtime_error("'" + line + "': " + f.name + " " + why);
    }
    const std::string why = versatile_invalid(p.config, layout, p.m, p.n, elem);
    if (!why.empty())
        throw std::runtime_error("entry " + std::to_string(p.m) + " x " + std::to_string(p.n) + " is invalid: " + why);
    return p;
}

TuningTable load_tuning_table(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    TuningTable t;
    std::string line;
    bool header = false;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '#') {  // "# key: value"
            const auto colon = line.find(':');
            if (colon == std::string::npos) continue;
            const std::string key = line.substr(2, colon - 2);
            const std::string value = line.substr(std::min(line.size(), line.find_first_not_of(' ', colon + 1)));
            if (key == "device") t.device = value;
            if (key == "compute_capability") t.compute_capability = value;
            if (key == "sms") t.sms = std::atoi(value.c_str());
            if (key == "precision") t.precision = value;
            if (key == "layout") t.layout = value;
            if (key == "git_revision") t.git_revision = value;
            if (key == "created") t.created = value;
            if (key == "tuning_seconds") t.tuning_seconds = std::atof(value.c_str());
            if (key == "resumed_points") t.resumed_points = std::atoi(value.c_str());
            continue;
        }
        if (!header) {
            if (line != point_header())
                throw std::runtime_error(path + " has the columns '" + line + "', not '" + point_header() + "'");
            header = true;
            continue;
        }
        Precision precision;
        if (!parse_precision(t.precision, precision))
            throw std::runtime_error(path + " names no precision the lab knows before its points");
        const std::size_t elem = element_size(precision);  // a bf16 table's 8-element loads are valid
        t.points.push_back(parse_point(line, t.layout == "row" ? Layout::row : Layout::col, elem));
    }
    if (t.device.empty() || t.precision.empty() || t.layout.empty())
        throw std::runtime_error(path + " does not name its device, precision and layout");
    if (t.points.empty()) throw std::runtime_error(path + " has no points");
    return t;
}

void save_tuning_table(const TuningTable& t, const std::string& path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    out << "# step 11 tuning table: the fastest verified configuration at each mesh point (step11_tune)\n"
        << "# device: " << t.device << "\n";
    if (!t.compute_capability.empty()) out << "# compute_capability: " << t.compute_capability << "\n";
    if (t.sms) out << "# sms: " << t.sms << "\n";
    out << "# precision: " << t.precision << "\n# layout: " << t.layout << "\n# git_revision: " << t.git_revision
        << "\n# created: " << t.created << "\n# tuning_seconds: " << t.tuning_seconds << "\n";
    if (t.resumed_points) out << "# resumed_points: " << t.resumed_points << "\n";
    out << point_header() << "\n";
    for (const TunedPoint& p : t.points) out << point_line(p) << "\n";
    if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace gemv
