// Step 11: Sørensen's versatile kernel, with the parameters a Hopper GPU needs. A configuration
// (config.hpp; chosen for a problem by resolve.hpp) is turned once, on the host, into a plan:
// which kernel family runs, on which grid, how the blocks that share a row add up, what it loads
// and stores. The plan is what is launched, counted and reported. The kernels are one file per
// family in kernels/ (versatile_kernels.cuh lists the formats they are compiled for, and counts
// them):
//   col_kernel.cu       column-major, row groups in place (05, 08, 09 and 10 as special cases)
//   col_short_kernel.cu column-major rows of a few columns, several row groups a thread
//   col_flat_kernel.cu  column-major with few rows, A read as one flat array
//   col_tiles_kernel.cu column-major with 2 or 3 rows, tiles of whole columns
//   row_kernel.cu       row-major, threads and blocks along a row
//   row_short_kernel.cu row-major rows of one load, several rows a thread
//   row_flat_kernel.cu  row-major rows of any length, a block's rows through shared memory
//   row_tiles_kernel.cu row-major with 2 or 3 columns, tiles of whole rows
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "config.hpp"
#include "device.hpp"
#include "problem.hpp"
#include "storage.hpp"

namespace gemv {

enum class Family { col, col_short, col_flat, col_tiles, row, row_short, row_flat, row_tiles };
const char* to_string(Family f);

// BEGIN EXCERPT plan
// One configuration on one m×n problem, worked out once on the host.
struct VersatilePlan {
    VersatileConfig config;
    Layout layout = Layout::col;  // the layout the kernels read A in (kernel_layout)
    std::int64_t m = 0, n = 0;
    Family family = Family::col;
    Launch launch;                    // grid, block, dynamic shared memory and the kernel itself
    std::int64_t cols_per_block = 0;  // one block's slice of a row: a multiple of the vector
    bool zero_y_first = false;        // atomic: a memset of y before the kernel
    std::size_t workspace_bytes = 0;  // atomic_last, last_block: the partial sums and the arrival counters
    Traffic traffic;                  // what the kernel loads and stores, in elements, for the CGMA
};
// END EXCERPT plan

// The plan of a configuration for A m×n in `layout`; UsageError naming the reason when the
// configuration cannot run there.
template <class T>
VersatilePlan plan_versatile(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n);

// "col kernel, read as row-major (the same bytes)": what runs, for the report.
std::string describe(const VersatilePlan& p);

// c with its row split in one wave of the blocks its kernel holds on this GPU, added up by the last
// block (atomic's memset of y first is a launch of its own). The tuner's candidates and the fit
// count a wave's blocks at full occupancy, rounded to whole row blocks: a kernel whose registers
// hold fewer, or a grid rounded past a wave, leaves a last wave part empty (H200, bf16 14336 x 4096
// column-major, 45 registers: 19 blocks a row of 128 threads run in 1.6 waves, 34.3 µs; 9 a row of
// 512 threads, one wave, 32.3 µs; slides/data/step11/h200_one_wave_1555957058.csv). None where c
// does not split a row in place, or where that split is c's own, under two blocks or cannot run.
template <class T>
std::optional<VersatileConfig> split_in_one_wave(const VersatileConfig& c, const DeviceFacts& device, Layout layout,
                                                 std::int64_t m, std::int64_t n);

// y = A·x with one plan, A and x stored in T (float, double, or step 15's bf16, fp16 and fp8), y
// in the type the products are added up in. It owns the workspace the plan needs (zeroed once;
// the kernels leave it zeroed), so it runs one product at a time, in stream order; copies share
// the workspace.
template <class T>
class VersatileGemv {
public:
    VersatileGemv(const VersatileConfig& c, Layout layout, std::int64_t m, std::int64_t n);
    // A, x and y 16-byte aligned (as cudaMalloc returns them): UsageError otherwise. Realigned
    // loads read the whole 16 bytes that hold A's last element: A's allocation must reach their
    // end (DeviceArray's do).
    void operator()(const T* A, const T* x, accumulator_t<T>* y, cudaStream_t stream) const;
    const VersatilePlan& plan() const { return plan_; }

private:
    VersatilePlan plan_;
    std::shared_ptr<DeviceArray<unsigned char>> workspace_;
};

}  // namespace gemv
