#include "resolve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

// The points nearest in (log m, log n), nearest first, by shape and not by size (2^20 x 16 and
// 16 x 2^20 need opposite configurations), of this shape's alignment class: the widest vector that
// divides the dimension along the loads (a table without this class: any point).
std::vector<const TunedPoint*> nearest_points(const TuningTable& t, Layout layout, std::int64_t m, std::int64_t n,
                                              std::size_t elem, std::size_t count) {
    const int vector_class = widest_vector(layout, m, n, elem);
    const auto class_of = [&](const TunedPoint& p) { return widest_vector(layout, p.m, p.n, elem); };
    const bool classed =
        std::any_of(t.points.begin(), t.points.end(), [&](const TunedPoint& p) { return class_of(p) == vector_class; });
    std::vector<std::pair<double, const TunedPoint*>> by_distance;
    for (const auto& p : t.points) {
        if (classed && class_of(p) != vector_class) continue;
        const double dm = std::log(double(p.m) / double(m)), dn = std::log(double(p.n) / double(n));
        by_distance.push_back({dm * dm + dn * dn, &p});
    }
    count = std::min(count, by_distance.size());
    // Of points equally near, the first in the table.
    std::partial_sort(
        by_distance.begin(), by_distance.begin() + count, by_distance.end(),
        [](const auto& a, const auto& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); });
    std::vector<const TunedPoint*> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(by_distance[i].second);
    return out;
}

// The command an instructor runs once to give this GPU its own tables.
const char* const kTuneThisGpu = "step11_tune --tables all tunes this GPU";

Resolved heuristic(const DeviceFacts& device, Layout kl, std::int64_t m, std::int64_t n, std::size_t elem,
                   const std::string& why) {
    warn_once(why + "; using the heuristic configuration (" + kTuneThisGpu + ")");
    return {versatile_heuristic(kl, m, n, elem, gpu_size(device)), ConfigSource::heuristic, "heuristic (" + why + ")"};
}

// The GPU a table was tuned on, as the shape rules see it. A borrowed table's GPU is of this one's
// architecture: the same threads an SM, other SMs.
GpuSize tuned_gpu(const TuningTable& t, const DeviceFacts& device) {
    return {t.device == device.name || t.sms == 0 ? device.sm_count : t.sms, device.max_threads_per_sm};
}

// A table's point fitted to m×n on this GPU, or why it does not fit (c unset).
std::string fitted(const TuningTable& t, const TunedPoint& point, const DeviceFacts& device, Layout kl, std::int64_t m,
                   std::int64_t n, std::size_t elem, VersatileConfig& c) {
    c = fit_to_shape(point.config, point.m, point.n, tuned_gpu(t, device), kl, m, n, elem, gpu_size(device));
    const std::string why = versatile_invalid(c, kl, m, n, elem);
    if (why.empty()) return "";
    return "the tuned configuration does not fit " + std::to_string(m) + " x " + std::to_string(n) + " (" + why + ")";
}

// Another GPU's table in `folder` for this precision and layout, tuned on this GPU's architecture
// (the same compute capability): the one whose SM count is nearest. None where there is none.
const TuningTable* borrowed_table(const std::string& folder, const DeviceFacts& device, Precision precision,
                                  Layout kl) {
    const std::string suffix = std::string("_") + to_string(precision) + "_" + to_string(kl) + ".csv";
    const TuningTable* best = nullptr;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const std::string path = entry.path().string();
        if (path.size() < suffix.size() || path.compare(path.size() - suffix.size(), suffix.size(), suffix)) continue;
        try {
            const TuningTable& t = table_at(path);
            if (t.device == device.name || t.compute_capability != device.compute_capability() ||
                t.precision != to_string(precision) || t.layout != to_string(kl))
                continue;
            const auto distance = [&](const TuningTable* u) { return std::abs(u->sms - device.sm_count); };
            if (!best || distance(&t) < distance(best) || (distance(&t) == distance(best) && t.device < best->device))
                best = &t;
        } catch (const std::exception&) {  // not a table: another GPU's loss, not this one's
        }
    }
    return best;
}

// The table an m×n problem is looked up in: this GPU's; else, where the table is looked up in a
// folder ("auto" or a folder), the table of the nearest GPU of the same architecture (borrowed);
// else none, and why this GPU has none.
struct Lookup {
    const TuningTable* table = nullptr;
    bool borrowed = false;
    std::string why;
};

Lookup lookup(const std::string& table, const DeviceFacts& device, Precision precision, Layout layout, std::int64_t m,
              std::int64_t n) {
    const Layout kl = kernel_layout(layout, m, n);
    const std::string path = table_path(table, device.name, precision, layout, m, n);
    std::string why;
    try {
        const TuningTable& t = table_at(path);
        if (t.device == device.name && t.precision == to_string(precision) && t.layout == to_string(kl))
            return {&t, false, ""};
        return {nullptr, false,
                "the table " + path + " is for " + t.device + ", " + t.precision + ", " + t.layout +
                    ", not this device and problem"};
    } catch (const std::exception& e) {
        why = std::string("no usable tuning table: ") + e.what();
    }
    const bool in_folder = table.empty() || table == "auto" || std::filesystem::is_directory(table);
    const TuningTable* other =
        in_folder ? borrowed_table(std::filesystem::path(path).parent_path().string(), device, precision, kl) : nullptr;
    return {other, other != nullptr, why};
}

// A point of the looked-up table fitted to the problem, said where it came from.
Resolved tuned_at(const Lookup& found, const TunedPoint& point, const VersatileConfig& c, const DeviceFacts& device) {
    const std::string at = std::to_string(point.m) + " x " + std::to_string(point.n);
    if (!found.borrowed) return {c, ConfigSource::tuned, "tuned at " + at};
    return {c, ConfigSource::borrowed,
            "tuned on " + found.table->device + " at " + at + ", fitted to this GPU's " +
                std::to_string(device.sm_count) + " SMs (no table of its own)"};
}

// The looked-up table's `count` nearest points fitted to the problem, nearest first, then (where
// `with_neighbours`) the nearest point's neighbours fitted to it, those that cannot run or repeat
// another left out; the heuristic's choice alone, with the reason, where there is no table or the
// nearest point's fitted configuration cannot run.
std::vector<Resolved> from_table(const Lookup& found, const DeviceFacts& device, Precision precision, Layout kl,
                                 std::int64_t m, std::int64_t n, std::size_t count, bool with_neighbours) {
    const std::size_t elem = element_size(precision);
    if (!found.table) return {heuristic(device, kl, m, n, elem, found.why)};
    const TuningTable& t = *found.table;
    if (found.borrowed)
        warn_once("no tuning table for " + device.name + ", " + to_string(precision) + ", " + to_string(kl) +
                  ": using " + t.device + "'s, tuned on the same architecture (compute capability " +
                  t.compute_capability + ", " + std::to_string(t.sms) + " SMs); " + kTuneThisGpu);
    std::vector<Resolved> out;
    std::set<std::string> seen;
    const std::vector<const TunedPoint*> points = nearest_points(t, kl, m, n, elem, count);
    for (const TunedPoint* point : points) {
        VersatileConfig c;
        const std::string unfit = fitted(t, *point, device, kl, m, n, elem, c);
        if (!unfit.empty()) {
            if (out.empty()) return {heuristic(device, kl, m, n, elem, unfit)};
            continue;
        }
        if (seen.insert(describe(c)).second) out.push_back(tuned_at(found, *point, c, device));
    }
    if (!with_neighbours) return out;
    const TunedPoint& nearest = *points[0];
    for (const Neighbour& neighbour : fitted_neighbours(nearest.config, nearest.m, nearest.n, tuned_gpu(t, device), kl,
                                                        m, n, elem, gpu_size(device))) {
        const VersatileConfig& c = neighbour.config;
        if (!versatile_invalid(c, kl, m, n, elem).empty() || !seen.insert(describe(c)).second) continue;
        Resolved r = tuned_at(found, nearest, c, device);
        r.source += ", " + neighbour.what;
        out.push_back(r);
    }
    return out;
}

}  // namespace

GpuSize gpu_size(const DeviceFacts& device) {
    return {device.sm_count, device.max_threads_per_sm};
}

const char* to_string(ConfigSource s) {
    switch (s) {
        case ConfigSource::tuned:
            return "tuned";
        case ConfigSource::borrowed:
            return "borrowed";
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

const TuningTable* table_for(const std::string& table, const DeviceFacts& device, Precision precision, Layout layout,
                             std::int64_t m, std::int64_t n) {
    return lookup(table, device, precision, layout, m, n).table;
}

Resolved resolve(const std::string& table, const DeviceFacts& device, Precision precision, Layout layout,
                 std::int64_t m, std::int64_t n, const ConfigOverrides& overrides) {
    Resolved r = from_table(lookup(table, device, precision, layout, m, n), device, precision,
                            kernel_layout(layout, m, n), m, n, 1, false)[0];
    for (const auto& [field, text] : overrides) {
        const std::string why = field->set(r.config, text);
        if (!why.empty()) throw UsageError("--" + field->option() + " " + why);
        r.how = ConfigSource::given;
        r.source = "given on the command line";
    }
    return r;
}

std::vector<Resolved> resolve_nearest(const std::string& table, const DeviceFacts& device, Precision precision,
                                      Layout layout, std::int64_t m, std::int64_t n, int count, bool with_neighbours) {
    if (count < 1) throw UsageError("resolve_nearest takes at least one point, not " + std::to_string(count));
    return from_table(lookup(table, device, precision, layout, m, n), device, precision, kernel_layout(layout, m, n), m,
                      n, std::size_t(count), with_neighbours);
}

}  // namespace gemv
