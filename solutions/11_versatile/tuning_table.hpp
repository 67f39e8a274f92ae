#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "versatile_config.hpp"

// The auto-tuner's result for one device, precision and layout: the best configuration at each
// point of Sørensen's logarithmic mesh. Step 11 picks the nearest point in (log m, log n): by
// shape, not by size (2^20 x 16 and 16 x 2^20 need opposite configurations).
struct TunedPoint {
    std::int64_t m = 0, n = 0;
    VersatileConfig config;
    double gbps = 0;  // what the tuner measured there
};

struct TuningTable {
    std::string device, precision, layout;
    std::string git_revision, created;
    double tuning_seconds = 0;
    int resumed_points = 0;  // points taken from the resume file: tuning_seconds does not count them
    std::vector<TunedPoint> points;
};

// A table is a CSV file: "# key: value" lines (device, precision, layout, git_revision, created,
// tuning_seconds, resumed_points), then the header `m,n,<config_fields()>,gbps` and one line per
// point. The tuner's resume file is the same lines without the metadata.
// load throws std::runtime_error naming what is wrong (unreadable, another header, an invalid entry).
TuningTable load_tuning_table(const std::string& path);
void save_tuning_table(const TuningTable& table, const std::string& path);
std::string point_header();
std::string point_line(const TunedPoint& p);
// One line of points; the configuration is checked against the layout and element size.
TunedPoint parse_point(const std::string& line, gemv::Layout layout, std::size_t elem_size);

// "NVIDIA_H100_80GB_HBM3_float_col.csv": the file a device's table lives in.
std::string tuning_file_name(const std::string& device, gemv::Precision precision, gemv::Layout layout);
// The committed tables beside this solution.
std::string default_tuning_dir();
// The committed table an m×n problem is looked up in: that of the layout the kernels read it in.
std::string default_table_path(const std::string& device, gemv::Precision precision, gemv::Layout layout,
                               std::int64_t m, std::int64_t n);

// Sørensen's mesh axis: points values spaced evenly in log from 10 to max_dim.
std::vector<std::int64_t> mesh_axis(int points, std::int64_t max_dim);

// The mesh point moved to the nearest shape whose widest vector is exactly `vector`: the tuner
// tunes each mesh point once per vector class, because an odd n and a multiple of 4 want
// different configurations, and run time looks up the class of its own shape.
std::pair<std::int64_t, std::int64_t> in_vector_class(gemv::Layout layout, std::int64_t m, std::int64_t n, int vector,
                                                      std::size_t elem_size);

struct Choice {
    VersatileConfig config;
    std::string source;  // "tuned at 1000 x 100" or "heuristic (<why>)"
};

// The configuration for an m×n problem: the table's nearest point, adapted to the shape, or the
// heuristic with a warning on stderr when there is no usable table. Never a configuration that
// fails versatile_invalid for kernel_layout(layout, m, n).
Choice choose_config(const std::string& table_path, const std::string& device, int sm_count, gemv::Layout layout,
                     gemv::Precision precision, std::int64_t m, std::int64_t n);
