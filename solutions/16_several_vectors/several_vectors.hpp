// Step 16, the host side: the model, the roofline and the register-blocked kernel's plan. Plain C++
// (no CUDA) so that the tests check them without a GPU. Step 17 (chooser.hpp) adds the plans of
// its kernels and the chooser among them.
//
// Y = A·X for k right-hand sides. A is m×n, row- or column-major; X (n×k) and Y (m×k) are
// column-major, as cuBLAS takes them: vector c of X starts at X + c·n, column c of Y at Y + c·m.
// A and X are stored in float or bf16; Y is float, and bf16 products are added up in float.
#pragma once

#include <cstdint>
#include <string>

#include "compiled.hpp"
#include "integer.hpp"
#include "problem.hpp"

namespace gemv::several {

constexpr int kMaxVectors = 256;

// ---- The model and the roofline ---------------------------------------------------------------

// Flops per byte of the model (A once, X and Y once): 2·m·n·k over m·n·s + k·(n·s + 4·m). For a
// square matrix it grows about as 2k/s: A's bytes are shared by k vectors (step 07's lesson).
double model_intensity(std::int64_t m, std::int64_t n, std::int64_t k, gemv::Precision precision);

// The datasheet's FP32 FMA peak from device facts (SMs, the clock cudaDevAttrClockRate reports,
// the compute capability), so that it follows the GPU: 2 flops × lanes a clock × SMs × clock.
// 128 FP32 lanes an SM from compute capability 8.6 on (Hopper's 9.0 included: 132 SMs × 1.98 GHz ×
// 256 = 66.9 TFLOP/s on an H100 SXM), 64 on 8.0 (A100: 108 × 1.41 GHz × 128 = 19.5 TFLOP/s).
double fp32_lanes_per_sm(int cc_major, int cc_minor);
double fma_peak_gflops(int sm_count, int clock_khz, int cc_major, int cc_minor);

// The roofline: the lower of the memory roof (the measured read ceiling × intensity) and the
// compute roof of the units the kernel uses.
double roof_gflops(double ceiling_gbps, double intensity, double peak_gflops);
// The intensity where the two roofs meet (the ridge point), flops per byte.
double ridge_intensity(double ceiling_gbps, double peak_gflops);

// ---- The plans --------------------------------------------------------------------------------

// The kernels of this step and the next (step 17 adds the four that keep 8·T vectors).
enum class Kernel { register_blocked, tensor_cores, tensor_staged, fma_staged, tensor_bulk };
const char* to_string(Kernel kernel);
// The chunks step 17's staged FMA kernel copies (chooser.hpp): narrow (its default), wide (long
// row-major rows) or few rows (a matrix of few rows).
enum class FmaChunks { narrow, wide, few_rows };
const char* to_string(FmaChunks chunks);

// One launch: blocks of rows, grid.y slices of the columns (the partial sums of a row are added
// into a zeroed Y with atomicAdd when there are several), and groups of `group` vectors (A is read
// once for each group). The register-blocked kernel puts the groups in grid.z; step 17's kernels
// in grid.x beside the blocks (blocks × groups), so that the groups of one block of rows run side
// by side and read A's bytes from L2 the second time.
struct Plan {
    Kernel kernel = Kernel::register_blocked;
    int group = 1;             // vectors a thread (register-blocked), warp or block (step 17's) keeps
    int rows_per_warp = 1;     // register-blocked: R (rows_per_warp_for, rows_per_lane_col)
    std::int64_t blocks = 0;   // blocks of rows
    int threads = 256;         // a block
    int slices = 1;            // grid.y
    std::int64_t per = 0;      // columns of A a slice takes
    int groups = 1;            // ceil(k / group)
    int shared = 1;            // step 17, tensor cores: groups of vectors a block holds side by side
    bool pack_x = false;       // step 17, staged kernels: X copied first into vectors on 16 bytes
    bool whole_lines = false;  // step 17, staged tensor cores: every line of A and X on 16 bytes
    int cluster = 1;           // step 17, bulk tensor cores: blocks of rows a cluster, sharing X's copies
    // step 17, staged FMA kernel: the chunks it copies (narrow, wide or of few rows)
    FmaChunks chunks = FmaChunks::narrow;
    bool atomic() const { return slices > 1; }
};

// Vectors a register-blocked thread keeps: 1, 2, 4, 8 or 16 (each a compiled kernel).
using RegisterGroups = Compiled<1, 2, 4, 8, 16>;
inline constexpr const auto& kRegisterGroups = RegisterGroups::values;
// Rows R the register-blocked kernel adds up at once, so that each x value it loads serves R
// rows. Row-major: a warp adds up R rows, 8, 4 with 8 vectors and 2 with 16 (32 sums a lane at
// most, so that the registers leave room for several blocks an SM). Column-major: a lane adds up
// R rows 32 apart, 1, and 2 with 16 vectors: there a warp's lanes already share each x value (one
// broadcast load for 32 rows), and more rows a lane would leave fewer warps to keep the bytes of A
// in flight; at 16 vectors the FMAs dominate and a second row halves the loads of x a multiply-add.
constexpr int rows_per_warp_for(int group) {
    return group >= 16 ? 2 : group >= 8 ? 4 : 8;
}
constexpr int rows_per_lane_col(int group) {
    return group >= 16 ? 2 : 1;
}

// Throws gemv::UsageError for a k outside 1 … kMaxVectors, or a grid of more than INT_MAX blocks.
void require_k(int k);
void require_grid(std::int64_t blocks);

// Slices of the columns, so that a problem with few rows still fills the GPU: enough slices for
// about 32 warps with rows to add up an SM (half of what an H100 SM holds) across the groups of
// vectors, each slice at least `least` columns, `align` a multiple. `warps`: the warps that have
// rows, in one slice and group (a block of a few rows has idle warps, which do not count).
void slice_columns(Plan& p, std::int64_t n, int sm_count, std::int64_t warps, std::int64_t least, std::int64_t align);

// group must be one of kRegisterGroups; throws gemv::UsageError for a k or shape it cannot take.
Plan plan_register_blocked(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count);

// The smallest group that holds k vectors (16 beyond: A is read ceil(k/16) times).
int register_group_for(int k);

// What the register-blocked kernel loads, for CGMA (elements). Column-major: a lane R rows 32
// apart; A once a group, and a warp's 32 lanes share each X value (one broadcast load a warp for
// 32·R rows). Row-major: a warp adds up R rows, each lane loading its own x values: X once a warp.
// Y: once, or once a slice (atomicAdd).
gemv::Traffic traffic_of(const Plan& plan, std::int64_t m, std::int64_t n, int k, gemv::Layout layout);

}  // namespace gemv::several
