// What a step measured, and the table, CSV and JSON it prints.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "cli.hpp"
#include "problem.hpp"
#include "timing.hpp"

namespace gemv {

// Where the figures came from: carried by every CSV and JSON row.
struct Metadata {
    std::string device;           // GPU name, or the CPU model for CPU steps
    int units = 0;                // SMs, or CPU threads
    std::string runtime_version;  // CUDA runtime, or "-" on the CPU
    std::string driver_version;   // CUDA driver, or "-"
    std::string build_type;
    std::string git_revision;
};

Metadata cpu_metadata();
const char* build_type();
const char* git_revision();

struct OccupancyReport {
    bool valid = false;
    int threads_per_block = 0;
    int registers_per_thread = 0;
    std::size_t shared_bytes_per_block = 0;  // static + dynamic
    int blocks_per_sm = 0;
    double occupancy = 0;  // active warps over the SM's maximum
    std::string limiter;   // registers, shared memory, threads, blocks per SM
};

// One output row as (name, text, is_number) per field, in one order for CSV and JSON.
using Fields = std::vector<std::tuple<std::string, std::string, bool>>;

struct Result {
    std::string step;     // "03"
    std::string name;     // "naive"
    std::string variant;  // the kernel's name inside the step
    Shape shape;
    Precision precision = Precision::f32;
    bool cold = true;
    Stats time;
    double ceiling_gbps = 0;    // measured on this run
    double datasheet_gbps = 0;  // 0 where there is none
    Traffic traffic;            // what the kernel loads and stores, for CGMA
    std::string launch;         // "grid 32768, block 256" or "16 threads, static"
    OccupancyReport occupancy;
    bool verified = false;
    bool verify_skipped = false;
    // A step's own figures, appended to its CSV and JSON rows: (name, value, is a number).
    Fields extra;
    // Right-hand sides of Y = A·X (step 16): the byte model reads X and writes Y k times over,
    // the flops and CGMA count k multiply-adds per element of A. 1 for every GEMV step.
    std::int64_t vectors = 1;

    std::uint64_t bytes() const;  // the model's: A, x (X) and y (Y) once
    double gbps() const;          // model bytes (A, x, y once) over the median time
    double gflops() const;
    double pct_ceiling() const;
    double pct_datasheet() const;
    double cgma() const;
    double intensity() const;
};

// A result with what every step fills the same way: the step, the variant, the problem and the
// options it ran with (shape, precision, cache, whether it is verified).
Result result_of(const StepSpec& spec, const Options& o, const std::string& variant);

void print_results(std::ostream& out, Format format, const Metadata& meta, const std::vector<Result>& results);

// Below this median time a CPU run measures thread start-up and scheduling more than memory (a
// matrix of a few hundred KiB takes tens of microseconds): its % of the ceiling is noise.
constexpr double kCpuNoiseFloorMs = 0.1;

// The GB/s, % of the ceiling and GFLOP/s as tables show them (the step's and the ladder's): none
// for a run that failed verification (a kernel that did nothing reads as 800 % of the ceiling),
// and "noise" for the % of a CPU run under kCpuNoiseFloorMs.
struct ShownFigures {
    std::string gbps, pct_ceiling, gflops;
    bool noise = false;
};
ShownFigures shown_figures(double gbps, double pct_ceiling, double gflops, double median_ms, bool failed, bool cpu);
std::string noise_note();  // the line under a table that shows "noise"

// The writers behind print_results, for a program whose rows are not GEMV results (step 07).
// CSV (the names once, then a line per row) or JSON (an array of objects); not Format::table.
void print_fields(std::ostream& out, Format format, const std::vector<Fields>& rows);
// Columns padded to their widest cell, two spaces apart; the columns in `left` are left-aligned.
void print_columns(std::ostream& out, const std::vector<std::string>& head,
                   const std::vector<std::vector<std::string>>& rows, const std::vector<std::size_t>& left);
// "12.3" for fixed(12.345, 1); "75% (registers)" for an occupancy, "-" for none.
std::string fixed(double v, int digits);
std::string occupancy_text(const OccupancyReport& o);

// Human-readable sizes for tables: "256.0 MiB".
std::string format_bytes(double bytes);

}  // namespace gemv
