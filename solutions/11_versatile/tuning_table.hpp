// The auto-tuner's result for one device, precision and layout: the best configuration at each
// point of Sørensen's logarithmic mesh (mesh.hpp), and the file it is kept in. How a configuration
// is looked up in it is resolve.hpp's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "problem.hpp"

namespace gemv {

struct TunedPoint {
    std::int64_t m = 0, n = 0;
    VersatileConfig config;
    double gbps = 0;  // what the tuner measured there
};

struct TuningTable {
    std::string device, precision, layout;
    std::string compute_capability;  // "9.0": a GPU without a table of its own borrows one of its own architecture
    int sms = 0;                     // the tuning GPU's SM count, to which its grids were sized
    std::string git_revision, created;
    double tuning_seconds = 0;
    int resumed_points = 0;  // points taken from the resume file: tuning_seconds does not count them
    std::vector<TunedPoint> points;
};

// A table is a CSV file: "# key: value" lines (device, compute_capability, sms, precision, layout,
// git_revision, created, tuning_seconds, resumed_points), then the header `m,n,<config_fields()>,gbps` and one line per
// point. The tuner's resume file is the same lines without the metadata.
// load throws std::runtime_error naming what is wrong (unreadable, another header, an invalid entry).
TuningTable load_tuning_table(const std::string& path);
void save_tuning_table(const TuningTable& table, const std::string& path);
std::string point_header();
std::string point_line(const TunedPoint& p);
// One line of points; the configuration is checked against the layout and element size.
TunedPoint parse_point(const std::string& line, Layout layout, std::size_t elem_size);

// "NVIDIA_H100_80GB_HBM3_float_col.csv": the file a device's table lives in.
std::string tuning_file_name(const std::string& device, Precision precision, Layout layout);
// The committed tables beside this solution.
std::string default_tuning_dir();

}  // namespace gemv
