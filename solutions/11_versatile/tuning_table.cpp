#include "tuning_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "json.hpp"

std::string default_tuning_dir() {
    return GEMV_TUNING_DIR;
}

std::string tuning_file_name(const std::string& device, gemv::Precision precision, gemv::Layout layout) {
    std::string slug;
    for (char c : device) slug += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return slug + "_" + gemv::to_string(precision) + "_" + gemv::to_string(layout) + ".json";
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

TuningTable load_tuning_table(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    const gemv::json::Value root = gemv::json::parse(text.str());
    TuningTable t;
    t.device = root.str("device");
    t.precision = root.str("precision");
    t.layout = root.str("layout");
    if (root.has("git_revision")) t.git_revision = root.str("git_revision");
    if (root.has("created")) t.created = root.str("created");
    if (root.has("tuning_seconds")) t.tuning_seconds = root.num("tuning_seconds");
    const std::size_t elem = t.precision == "double" ? 8 : 4;
    const gemv::Layout layout = t.layout == "row" ? gemv::Layout::row : gemv::Layout::col;
    for (const auto& e : root.at("points").array) {
        TunedPoint p;
        p.m = static_cast<std::int64_t>(e.num("m"));
        p.n = static_cast<std::int64_t>(e.num("n"));
        p.config.block = static_cast<int>(e.num("block"));
        p.config.vector = static_cast<int>(e.num("vector"));
        p.config.unroll = static_cast<int>(e.num("unroll"));
        p.config.threads_along = static_cast<int>(e.num("threads_along"));
        p.config.splits = static_cast<std::int64_t>(e.num("splits"));
        p.config.cluster = e.has("cluster") && e.num("cluster") != 0;
        p.config.flat = e.has("flat") && e.num("flat") != 0;
        p.gbps = e.has("gbps") ? e.num("gbps") : 0;
        const std::string why = versatile_invalid(p.config, layout, p.m, p.n, elem);
        if (!why.empty())
            throw std::runtime_error("entry " + std::to_string(p.m) + " x " + std::to_string(p.n) +
                                     " is invalid: " + why);
        t.points.push_back(p);
    }
    if (t.points.empty()) throw std::runtime_error("no points");
    return t;
}

void save_tuning_table(const TuningTable& t, const std::string& path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    using gemv::json::quote;
    out << "{\n  \"device\": " << quote(t.device) << ",\n  \"precision\": " << quote(t.precision)
        << ",\n  \"layout\": " << quote(t.layout) << ",\n  \"git_revision\": " << quote(t.git_revision)
        << ",\n  \"created\": " << quote(t.created) << ",\n  \"tuning_seconds\": " << t.tuning_seconds
        << ",\n  \"points\": [\n";
    for (std::size_t i = 0; i < t.points.size(); ++i) {
        const TunedPoint& p = t.points[i];
        out << "    {\"m\": " << p.m << ", \"n\": " << p.n << ", \"block\": " << p.config.block
            << ", \"vector\": " << p.config.vector << ", \"unroll\": " << p.config.unroll
            << ", \"threads_along\": " << p.config.threads_along << ", \"splits\": " << p.config.splits
            << ", \"cluster\": " << int(p.config.cluster) << ", \"flat\": " << int(p.config.flat)
            << ", \"gbps\": " << p.gbps << "}" << (i + 1 < t.points.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
}

namespace {

// Warn once per process and reason, so that a sweep over shapes does not repeat itself.
void warn_once(const std::string& message) {
    static std::set<std::string> said;
    if (said.insert(message).second) std::cerr << "step 11: " << message << "\n";
}

}  // namespace

Choice choose_config(const std::string& table_path, const std::string& device, int sm_count, gemv::Layout layout,
                     gemv::Precision precision, std::int64_t m, std::int64_t n) {
    const std::size_t elem = gemv::element_size(precision);
    const auto fallback = [&](const std::string& why) {
        warn_once(why + "; using the heuristic configuration");
        return Choice{versatile_heuristic(layout, m, n, elem, sm_count), "heuristic (" + why + ")"};
    };
    TuningTable t;
    try {
        t = load_tuning_table(table_path);
    } catch (const std::exception& e) {
        return fallback(std::string("no usable tuning table: ") + e.what());
    }
    if (t.device != device || t.precision != gemv::to_string(precision) || t.layout != gemv::to_string(layout))
        return fallback("the table " + table_path + " is for " + t.device + ", " + t.precision + ", " + t.layout +
                        ", not this device and problem");
    // Nearest point of this shape's alignment class: the widest vector that divides the dimension
    // along the loads (a table without this class: any point).
    const int vector_class = widest_vector(layout, m, n, elem);
    const auto class_of = [&](const TunedPoint& p) { return widest_vector(layout, p.m, p.n, elem); };
    bool classed = false;
    for (const auto& p : t.points) classed |= class_of(p) == vector_class;
    const TunedPoint* best = nullptr;
    double best_d = 0;
    for (const auto& p : t.points) {
        if (classed && class_of(p) != vector_class) continue;
        const double dm = std::log(double(p.m) / double(m)), dn = std::log(double(p.n) / double(n));
        const double d = dm * dm + dn * dn;
        if (!best || d < best_d) best = &p, best_d = d;
    }
    VersatileConfig c = best->config;
    // The tuned grid held a number of waves of blocks; a shape with another number of row blocks
    // keeps that number of whole waves, to the nearest `unit`-sized step. Tuned at 20 rows and run
    // at 16, the split count alone gave 3.2 waves (87 % of the ceiling at 16 x 2^24 double).
    const std::int64_t wave = blocks_per_wave(sm_count, c.block);
    const auto units_keeping_waves = [&](std::int64_t tuned_blocks, std::int64_t unit) {
        const double waves = double(tuned_blocks) / double(wave);
        const double blocks = waves < 1 ? double(tuned_blocks) : double(std::llround(waves) * wave);
        return std::max<std::int64_t>(1, std::llround(blocks / double(unit)));
    };
    if (c.flat && layout == gemv::Layout::row) {
        // Flat row-major: fewer rows a block (more threads a row) until they fit in shared memory;
        // rows too long for that are read in place by a warp each.
        while (c.threads_along < 32 && flat_row_tile_bytes(c, n, elem) > kFlatTileBytes) c.threads_along *= 2;
        if (flat_row_tile_bytes(c, n, elem) > kFlatTileBytes) c.flat = false;
    } else if (c.flat && m != best->m && m % c.vector == 0 && m / c.vector <= c.block &&
               (m / c.vector & (m / c.vector - 1)) == 0) {
        // A row group of m / V threads covers these rows exactly, and then it reads faster than
        // flat (4 x 2^26 double: 3026 against 2838-2901 GB/s): same threads, whole waves.
        c.flat = false;
        c.threads_along = static_cast<int>(m / c.vector);
        c.splits = std::min<std::int64_t>({units_keeping_waves(c.splits, 1), n, 65535});
    } else if (c.flat && m <= kFlatMaxRows) {
        // Flat: the grid is a multiple of the unit this m needs.
        const std::int64_t unit = flat_grid_unit(m, c.block, c.vector);
        if (m != best->m) c.splits = units_keeping_waves(c.splits, unit) * unit;
    } else if (c.flat) {  // too many rows to read flat: the per-row-group kernel, one block a row group
        c.flat = false;
        c.threads_along = c.block;
        c.splits = 1;
    }
    // Loads need a vector that divides the dimension along them; where the tuned one does not (only
    // for a table without this class), narrow it and keep the bytes a row group covers per pass.
    if (!c.flat && (layout == gemv::Layout::col ? m : n) % c.vector) {
        const int vector = std::min(c.vector, vector_class);
        const std::int64_t threads = std::int64_t(c.threads_along) * c.vector / vector;
        c.threads_along = static_cast<int>(std::clamp<std::int64_t>(threads, 1, c.block));
        c.vector = vector;
    }
    // Never more threads along a row group than it takes to cover it once: a configuration tuned
    // at n = 12 would leave three of every four threads idle at n = 4.
    const std::int64_t along = layout == gemv::Layout::col ? m : n;
    std::int64_t cover = 1;
    while (cover * c.vector < along) cover *= 2;
    if (!c.flat) c.threads_along = static_cast<int>(std::min<std::int64_t>(c.threads_along, cover));
    if (!c.flat && c.splits > 1 && !c.cluster) {
        const std::int64_t tuned_rows = versatile_row_blocks(best->config, layout, best->m, best->n);
        const std::int64_t rows = versatile_row_blocks(c, layout, m, n);
        if (rows != tuned_rows)
            c.splits = std::min<std::int64_t>(units_keeping_waves(tuned_rows * c.splits, rows), 65535);
    }
    if (!c.flat && c.splits > n) c.splits = n;
    const std::string why = versatile_invalid(c, layout, m, n, elem);
    if (!why.empty())
        return fallback("the tuned configuration does not fit " + std::to_string(m) + " x " + std::to_string(n) + " (" +
                        why + ")");
    return {c, "tuned at " + std::to_string(best->m) + " x " + std::to_string(best->n)};
}
