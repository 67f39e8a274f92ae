// The one way out: the tables, CSV and JSON every program of the lab prints, from its results
// (result.hpp) or from rows of its own fields.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "format.hpp"
#include "result.hpp"

namespace gemv {

enum class Format { table, csv, json };

void print_results(std::ostream& out, Format format, const Metadata& meta, const std::vector<Result>& results);

// Below this median time a CPU run measures thread start-up and scheduling more than memory (a
// matrix of a few hundred KiB takes tens of microseconds): its % of the ceiling is noise.
constexpr double kCpuNoiseFloorMs = 0.1;

// What the % of the ceiling and the ceiling say, in tables, CSV and JSON alike, where the CPU
// ceiling was taken on a busy host (Result::ceiling_busy).
constexpr const char* kCeilingBusy = "busy";

// The GB/s, % of the ceiling and GFLOP/s as tables show them (the step's and the ladder's): none
// for a run that failed verification (a kernel that did nothing reads as 800 % of the ceiling),
// "noise" for the % of a CPU run under kCpuNoiseFloorMs, and kCeilingBusy where the ceiling was.
struct ShownFigures {
    std::string gbps, pct_ceiling, gflops;
    bool noise = false;
    bool busy = false;
};
ShownFigures shown_figures(double gbps, double pct_ceiling, double gflops, double median_ms, bool failed, bool cpu,
                           bool ceiling_busy);
std::string noise_note();  // the line under a table that shows "noise"
std::string busy_note();   // the line under a table that shows kCeilingBusy

// The writers behind print_results, for a program whose rows are not GEMV results (step 00's
// facts, step 07's products, the ladder's, step 11's benchmark). CSV (the names of the first row
// once, then a line per row, each cell quoted where it holds a comma, a quote or a line break) or
// JSON (an array of objects); not Format::table.
void print_fields(std::ostream& out, Format format, const std::vector<Fields>& rows);
// Columns padded to their widest cell, two spaces apart; the columns in `left` are left-aligned.
// A row with fewer cells than the head (a note such as "skipped") is printed unpadded.
void print_columns(std::ostream& out, const std::vector<std::string>& head,
                   const std::vector<std::vector<std::string>>& rows, const std::vector<std::size_t>& left);

// The pieces of a row that programs with rows of their own share with print_results, in its order
// and with its names: device, units, runtime, driver, build_type, git_revision; median_ms, min_ms,
// max_ms; threads_per_block, registers_per_thread, shared_bytes_per_block, blocks_per_sm,
// occupancy, limiter.
Fields metadata_fields(const Metadata& meta);
Fields time_fields(const Stats& time);
Fields occupancy_fields(const OccupancyReport& o);
// Appends more to row.
void append(Fields& row, const Fields& more);

// "on <device> (132 SMs, CUDA runtime 13.0, driver 13.0), Release build, <revision>", or for a CPU
// "(16 threads)": the line under a table's title.
std::string origin_line(const Metadata& meta);
// "yes", "NO", or "not checked" where the run skipped verification.
std::string verified_text(bool checked, bool ok);
// "75% (registers)" for an occupancy, "-" for none.
std::string occupancy_text(const OccupancyReport& o);

}  // namespace gemv
