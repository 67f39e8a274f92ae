#include "resolve.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "errors.hpp"
#include "shape_rules.hpp"
#include "tuning_table.hpp"

namespace gemv {

namespace {

// Warn once per process and reason, so that a sweep over shapes does not repeat itself.
void warn_once(const std::string& message) {
    static std::set<std::string> said;
    if (said.insert(message).second) std::cerr << "step 11: " << message << "\n";
}

// A table read once per process while its file stays as it was: a sweep looks up thousands of
// shapes in the same few files.
const TuningTable& table_at(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    const auto written = fs::last_write_time(path, error);
    const std::string version =
        error ? std::string("missing")
              : std::to_string(written.time_since_epoch().count()) + " " + std::to_string(fs::file_size(path, error));
    static std::map<std::string, std::tuple<std::string, TuningTable, std::string>> read;  // version, table, why not
    auto& [seen, table, why] = read[path];
    if (seen != version) {
        seen = version;
        why.clear();
        try {
            table = load_tuning_table(path);
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    if (!why.empty()) throw std::runtime_error(why);
    return table;
}

// The nearest point in (log m, log n), by shape and not by size (2^20 x 16 and 16 x 2^20 need
// opposite configurations), of this shape's alignment class: the widest vector that divides the
// dimension along the loads (a table without this class: any point).
const TunedPoint& nearest_point(const TuningTable& t, Layout layout, std::int64_t m, std::int64_t n, std::size_t elem) {
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

// The table's choice, or the heuristic's with the reason there is none.
Resolved from_table(const std::string& path, const DeviceFacts& device, Precision precision, Layout kl, std::int64_t m,
                    std::int64_t n) {
    const std::size_t elem = element_size(precision);
    const auto fallback = [&](const std::string& why) {
        warn_once(why + "; using the heuristic configuration");
        return Resolved{versatile_heuristic(kl, m, n, elem, device.sm_count), ConfigSource::heuristic,
                        "heuristic (" + why + ")"};
    };
    const TuningTable* t = nullptr;
    try {
        t = &table_at(path);
    } catch (const std::exception& e) {
        return fallback(std::string("no usable tuning table: ") + e.what());
    }
    if (t->device != device.name || t->precision != to_string(precision) || t->layout != to_string(kl))
        return fallback("the table " + path + " is for " + t->device + ", " + t->precision + ", " + t->layout +
                        ", not this device and problem");
    const TunedPoint& tuned = nearest_point(*t, kl, m, n, elem);
    const VersatileConfig c = fit_to_shape(tuned.config, tuned.m, tuned.n, kl, m, n, elem, device.sm_count);
    const std::string why = versatile_invalid(c, kl, m, n, elem);
    if (!why.empty())
        return fallback("the tuned configuration does not fit " + std::to_string(m) + " x " + std::to_string(n) + " (" +
                        why + ")");
    return {c, ConfigSource::tuned, "tuned at " + std::to_string(tuned.m) + " x " + std::to_string(tuned.n)};
}

}  // namespace

const char* to_string(ConfigSource s) {
    switch (s) {
        case ConfigSource::tuned:
            return "tuned";
        case ConfigSource::heuristic:
            return "heuristic";
        case ConfigSource::given:
            return "given";
    }
    return "?";
}

std::string table_path(const std::string& table, const std::string& device, Precision precision, Layout layout,
                       std::int64_t m, std::int64_t n) {
    const std::string file = tuning_file_name(device, precision, kernel_layout(layout, m, n));
    if (table.empty() || table == "auto") return default_tuning_dir() + "/" + file;
    if (std::filesystem::is_directory(table)) return table + "/" + file;
    return table;
}

Resolved resolve(const std::string& table, const DeviceFacts& device, Precision precision, Layout layout,
                 std::int64_t m, std::int64_t n, const ConfigOverrides& overrides) {
    Resolved r = from_table(table_path(table, device.name, precision, layout, m, n), device, precision,
                            kernel_layout(layout, m, n), m, n);
    for (const auto& [field, text] : overrides) {
        const std::string why = field->set(r.config, text);
        if (!why.empty()) throw UsageError("--" + field->option() + " " + why);
        r.how = ConfigSource::given;
        r.source = "given on the command line";
    }
    return r;
}

}  // namespace gemv
