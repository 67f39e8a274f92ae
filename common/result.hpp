// What a step measured: where it ran (Metadata), how its kernel launched (OccupancyReport), and
// the figures of one kernel on one problem (Result). Plain data, below the device code and the
// report that prints it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

// One field of an output row: its name (the CSV column, the JSON key), its text, and whether JSON
// writes it as a number. A row is its fields in one order, for CSV and JSON alike.
struct Field {
    std::string name;
    std::string text;
    bool number = false;
};
using Fields = std::vector<Field>;

struct Result {
    std::string step;     // "03"
    std::string name;     // "naive"
    std::string variant;  // the kernel's name inside the step
    Shape shape;
    Precision precision = Precision::f32;
    bool cold = true;
    Stats time;
    double ceiling_gbps = 0;    // measured on this run
    bool ceiling_busy = false;  // the CPU ceiling's passes lost their CPUs to other processes: no %
    double datasheet_gbps = 0;  // 0 where there is none
    Traffic traffic;            // what the kernel loads and stores, for CGMA
    std::string launch;         // "grid 32768, block 256" or "16 threads, static"
    OccupancyReport occupancy;
    bool verified = false;
    bool verify_skipped = false;
    // A step's own figures, appended to its CSV and JSON rows.
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

}  // namespace gemv
