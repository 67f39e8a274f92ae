// The one place step 11's configuration is decided for a problem: from this device's tuning table
// (its nearest point fitted to the shape), else the heuristic, and then any field given on the
// command line. Steps 11, 14 and 15 and the benchmark all take it from here (resolve(), or
// resolve_nearest() for pick_timed.cuh).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"
#include "device.hpp"
#include "problem.hpp"
#include "shape_rules.hpp"

namespace gemv {

// tuned: this GPU's table; borrowed: the table of another GPU of the same architecture (this one has
// none); heuristic: no table to use; given: fields given on the command line.
enum class ConfigSource { tuned, borrowed, heuristic, given };
const char* to_string(ConfigSource s);  // "tuned", "borrowed", "heuristic", "given"

struct Resolved {
    VersatileConfig config;  // never one that fails versatile_invalid unless a field was given
    ConfigSource how = ConfigSource::heuristic;
    std::string source;  // "tuned at 1000 x 100", "heuristic (<why>)", "given on the command line"
};

// Fields given on the command line, each with its text ("table" fields are left out by the caller).
using ConfigOverrides = std::vector<std::pair<const ConfigField*, std::string>>;

// The table file an m×n problem is looked up in: that of the layout the kernels read it in.
// table: "auto" or "" (this device's committed table, beside the solution), a folder of tables,
// or a table file.
std::string table_path(const std::string& table, const std::string& device, Precision precision, Layout layout,
                       std::int64_t m, std::int64_t n);

struct TuningTable;

// This GPU as the shape rules see it: its SMs and the threads an SM holds.
GpuSize gpu_size(const DeviceFacts& device);

// The table resolve() looks an m×n problem up in: this GPU's; else, where the table is looked up in
// a folder, the one it borrows; nullptr where there is none. (The benchmark's mesh suite measures
// its points.)
const TuningTable* table_for(const std::string& table, const DeviceFacts& device, Precision precision, Layout layout,
                             std::int64_t m, std::int64_t n);

// The configuration for an m×n problem on this device: the table's nearest point of the shape's
// vector class, fitted to the shape. Where the table is looked up in a folder ("auto" or a folder)
// and this GPU has none there: the table of the GPU of the same compute capability with the
// nearest SM count, its grids resized to this GPU's SMs. The heuristic, with a warning on stderr
// once per reason, when there is no usable table or the fitted configuration cannot run. Then the
// overrides, each field's text checked (UsageError "--<option> <why>").
Resolved resolve(const std::string& table, const DeviceFacts& device, Precision precision, Layout layout,
                 std::int64_t m, std::int64_t n, const ConfigOverrides& overrides = {});

// What resolve() would take, and the configurations of the table's next nearest points (up to
// `count` points in all), each fitted to the shape, then where `with_neighbours` the nearest
// point's neighbours (shape_rules.hpp), fitted; those that cannot run or repeat another left out:
// the candidates pick_timed (pick_timed.cuh) times at the shape. Where resolve() takes the
// heuristic: that alone.
std::vector<Resolved> resolve_nearest(const std::string& table, const DeviceFacts& device, Precision precision,
                                      Layout layout, std::int64_t m, std::int64_t n, int count,
                                      bool with_neighbours = false);

}  // namespace gemv
