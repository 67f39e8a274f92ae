#include "tuning_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

std::string default_tuning_dir() {
    return GEMV_TUNING_DIR;
}

std::string tuning_file_name(const std::string& device, gemv::Precision precision, gemv::Layout layout) {
    std::string slug;
    for (char c : device) slug += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return slug + "_" + gemv::to_string(precision) + "_" + gemv::to_string(layout) + ".csv";
}

std::string default_table_path(const std::string& device, gemv::Precision precision, gemv::Layout layout,
                               std::int64_t m, std::int64_t n) {
    return default_tuning_dir() + "/" + tuning_file_name(device, precision, kernel_layout(layout, m, n));
}

std::vector<std::int64_t> mesh_axis(int points, std::int64_t max_dim) {
    std::vector<std::int64_t> axis;
    for (int k = 0; k < points; ++k) {
        const double v = 10.0 * std::pow(double(max_dim) / 10.0, double(k) / double(points - 1));
        const auto value = static_cast<std::int64_t>(std::llround(v));
        if (axis.empty() || value > axis.back()) axis.push_back(value);
    }
    return axis;
}

std::pair<std::int64_t, std::int64_t> in_vector_class(gemv::Layout layout, std::int64_t m, std::int64_t n, int vector,
                                                      std::size_t elem) {
    std::int64_t& along = layout == gemv::Layout::col ? m : n;
    const bool widest = 2 * vector * elem > 16;
    along = std::max<std::int64_t>(vector, (along + vector / 2) / vector * vector);
    if (!widest && along % (2 * vector) == 0) along += vector;  // exactly this class, not a wider one
    return {m, n};
}

// ---- the CSV file ----

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

TunedPoint parse_point(const std::string& line, gemv::Layout layout, std::size_t elem) {
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
        gemv::Precision precision;
        if (!gemv::parse_precision(t.precision, precision))
            throw std::runtime_error(path + " names no precision the lab knows before its points");
        const std::size_t elem = gemv::element_size(precision);  // a bf16 table's 8-element loads are valid
        t.points.push_back(parse_point(line, t.layout == "row" ? gemv::Layout::row : gemv::Layout::col, elem));
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
        << "# device: " << t.device << "\n# precision: " << t.precision << "\n# layout: " << t.layout
        << "\n# git_revision: " << t.git_revision << "\n# created: " << t.created
        << "\n# tuning_seconds: " << t.tuning_seconds << "\n";
    if (t.resumed_points) out << "# resumed_points: " << t.resumed_points << "\n";
    out << point_header() << "\n";
    for (const TunedPoint& p : t.points) out << point_line(p) << "\n";
    if (!out) throw std::runtime_error("cannot write " + path);
}

// ---- the run-time choice ----

namespace {

// Warn once per process and reason, so that a sweep over shapes does not repeat itself.
void warn_once(const std::string& message) {
    static std::set<std::string> said;
    if (said.insert(message).second) std::cerr << "step 11: " << message << "\n";
}

std::int64_t pow2_at_least(std::int64_t v) {
    std::int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

const TunedPoint& nearest_point(const TuningTable& t, gemv::Layout layout, std::int64_t m, std::int64_t n,
                                std::size_t elem) {
    // Nearest point of this shape's alignment class: the widest vector that divides the dimension
    // along the loads (a table without this class: any point).
    const int vector_class = widest_vector(layout, m, n, elem);
    const auto class_of = [&](const TunedPoint& p) { return widest_vector(layout, p.m, p.n, elem); };
    const bool classed =
        std::any_of(t.points.begin(), t.points.end(), [&](const TunedPoint& p) { return class_of(p) == vector_class; });
    const TunedPoint* best = nullptr;
    double best_d = 0;
    for (const auto& p : t.points) {
        if (classed && class_of(p) != vector_class) continue;
        const double dm = std::log(double(p.m) / double(m)), dn = std::log(double(p.n) / double(n));
        const double d = dm * dm + dn * dn;
        if (!best || d < best_d) best = &p, best_d = d;
    }
    return *best;
}

// The tuned configuration moved from its mesh point to m×n.
VersatileConfig adapt(const TunedPoint& tuned, gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                      int sm_count) {
    VersatileConfig c = tuned.config;
    const bool col = layout == gemv::Layout::col;
    const std::int64_t along = col ? m : n;
    // The tuned grid held a number of waves of blocks; a shape with another number of row blocks
    // keeps that number of whole waves, to the nearest `unit`-sized step.
    const std::int64_t wave = blocks_per_wave(sm_count, c.block);
    const auto units_keeping_waves = [&](std::int64_t tuned_blocks, std::int64_t unit) {
        const double waves = double(tuned_blocks) / double(wave);
        const double blocks = waves < 1 ? double(tuned_blocks) : double(std::llround(waves) * wave);
        return std::max<std::int64_t>(1, std::llround(blocks / double(unit)));
    };
    // Tiles hold whole columns of 2 or 3 rows (whole rows of 2 or 3 columns): elsewhere the same
    // threads read flat, and the flat rules below fit them to the shape.
    if (c.loads == Loads::tiles && (col ? m : n) != 2 && (col ? m : n) != 3) {
        c.loads = Loads::flat;
        if (!col) c.threads_per_row = 1;
    }
    const std::int64_t lanes_for_m = m / c.vector;
    if (c.loads == Loads::flat && !col) {
        // Flat row-major: fewer rows a block (more threads a row) until they fit in shared memory;
        // rows too long for that are read in place.
        while (c.threads_per_row < 32 && flat_row_tile_bytes(c, n, elem) > kFlatTileBytes) c.threads_per_row *= 2;
        if (flat_row_tile_bytes(c, n, elem) > kFlatTileBytes) c.loads = Loads::aligned;
    } else if (c.loads == Loads::flat && m != tuned.m && m % c.vector == 0 && lanes_for_m <= c.block &&
               (lanes_for_m & (lanes_for_m - 1)) == 0) {
        // A row group of m / V threads covers these rows exactly, and then it reads faster than
        // flat: the same threads, whole waves.
        c.loads = Loads::aligned;
        c.threads_per_row = static_cast<int>(c.block / lanes_for_m);
        c.blocks_per_row = std::min<std::int64_t>({units_keeping_waves(c.blocks_per_row, 1), n, 65535});
    } else if (c.loads == Loads::flat && m <= kFlatMaxRows) {
        const std::int64_t unit = flat_grid_unit(m, c.block, c.vector);  // the grid this m needs
        if (m != tuned.m) c.blocks_per_row = units_keeping_waves(c.blocks_per_row, unit) * unit;
    } else if (c.loads == Loads::flat) {  // too many rows to read flat: a thread per row group
        c.loads = Loads::aligned;
        c.threads_per_row = 1;
        c.blocks_per_row = 1;
        c.combine = Combine::store;
    }
    if (c.loads == Loads::aligned && along % c.vector) {
        // Only for a table without this class: a narrower vector that divides the dimension, the
        // same bytes a row group covers per pass.
        const int vector = widest_vector(layout, m, n, elem);
        const std::int64_t lanes =
            std::int64_t(col ? c.block / c.threads_per_row : c.threads_per_row) * c.vector / vector;
        const int clamped = static_cast<int>(std::clamp<std::int64_t>(lanes, 1, c.block));
        c.threads_per_row = col ? c.block / clamped : clamped;
        c.vector = vector;
    }
    if (c.vector * elem >= 16) c.unroll = std::min(c.unroll, 4);  // 8 and 16 in flight are for narrow loads
    if (in_place(c)) {
        // Never more threads along a row group than it takes to cover it once (a configuration
        // tuned at n = 12 would leave three of every four threads idle at n = 4).
        const std::int64_t cover = pow2_at_least((along + c.vector - 1) / c.vector);
        if (col) {
            const std::int64_t lanes = std::min<std::int64_t>(c.block / c.threads_per_row, cover);
            c.threads_per_row = static_cast<int>(c.block / lanes);
        } else {
            c.threads_per_row = static_cast<int>(std::min<std::int64_t>(c.threads_per_row, cover));
        }
    }
    if (c.loads == Loads::staggered && col && row_blocks(tuned.config, layout, tuned.m, tuned.n) == 1) {
        // Staggered blocks own one row group less than their lanes cover: where the tuned point fit
        // one block, keep one (127 rows on a configuration tuned at 91 would leave a second block of
        // 3 rows), with enough threads along the columns left for one start in 16 bytes.
        const std::int64_t lanes = pow2_at_least((m + c.vector - 1) / c.vector + 1);
        if (lanes > c.block / c.threads_per_row && lanes <= c.block / staggered_threads_per_row(m, c.vector))
            c.threads_per_row = static_cast<int>(c.block / lanes);
    }
    if (in_place(c) && c.blocks_per_row > 1 && c.combine != Combine::cluster) {
        const std::int64_t tuned_rows = row_blocks(tuned.config, layout, tuned.m, tuned.n);
        const std::int64_t rows = row_blocks(c, layout, m, n);
        if (rows != tuned_rows)
            c.blocks_per_row = std::min<std::int64_t>(units_keeping_waves(tuned_rows * c.blocks_per_row, rows), 65535);
    }
    if (in_place(c)) c.blocks_per_row = std::min(c.blocks_per_row, n);
    if (c.blocks_per_row == 1) c.combine = Combine::store;
    if (c.blocks_per_row > 1 && c.combine == Combine::store)
        c.combine = in_place(c) ? Combine::last_block : Combine::atomic_last;
    return c;
}

}  // namespace

Choice choose_config(const std::string& table_path, const std::string& device, int sm_count, gemv::Layout layout,
                     gemv::Precision precision, std::int64_t m, std::int64_t n) {
    const std::size_t elem = gemv::element_size(precision);
    const gemv::Layout kl = kernel_layout(layout, m, n);
    const auto fallback = [&](const std::string& why) {
        warn_once(why + "; using the heuristic configuration");
        return Choice{versatile_heuristic(kl, m, n, elem, sm_count), "heuristic (" + why + ")"};
    };
    TuningTable t;
    try {
        t = load_tuning_table(table_path);
    } catch (const std::exception& e) {
        return fallback(std::string("no usable tuning table: ") + e.what());
    }
    if (t.device != device || t.precision != gemv::to_string(precision) || t.layout != gemv::to_string(kl))
        return fallback("the table " + table_path + " is for " + t.device + ", " + t.precision + ", " + t.layout +
                        ", not this device and problem");
    const TunedPoint& tuned = nearest_point(t, kl, m, n, elem);
    const VersatileConfig c = adapt(tuned, kl, m, n, elem, sm_count);
    const std::string why = versatile_invalid(c, kl, m, n, elem);
    if (!why.empty())
        return fallback("the tuned configuration does not fit " + std::to_string(m) + " x " + std::to_string(n) + " (" +
                        why + ")");
    return {c, "tuned at " + std::to_string(tuned.m) + " x " + std::to_string(tuned.n)};
}
