// Step 17, the host side: the plans of the kernels that keep 8·T vectors (the tensor-core kernels
// in bf16, the staged FMA kernel in float), the bf16 tensor cores' peak, and the chooser among
// them and step 16's register-blocked kernel. Plain C++ (no CUDA) so that the tests check them
// without a GPU. The model, the roofline, the Plan and the register-blocked plan are step 16's
// (several_vectors.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "several_vectors.hpp"

namespace gemv::several {

// The datasheet's bf16 tensor-core peak (dense, float accumulation) from device facts: flops a
// clock an SM of 2048 on compute capability 8.0 (A100: 312 TFLOP/s), 1024 on 8.6 and 8.9 (consumer
// parts with float accumulation), 4096 on 9.0 (Hopper: 4 tensor cores × 512 dense bf16 FMA a
// clock), 8192 on 10.x; 0 before 8.0 (no bf16 MMA). The H100 SXM datasheet's 989 TFLOP/s is 132 ×
// 1.83 GHz × 4096; from the maximum clock the runtime reports (1.98 GHz) the figure is 8 % higher:
// an upper bound, as a roof should be.
double tensor_bf16_flops_per_clock_per_sm(int cc_major, int cc_minor);
double tensor_peak_gflops(int sm_count, int clock_khz, int cc_major, int cc_minor);

// Which compute roof a kernel's figures are held to: the bf16 tensor cores, or FP32 FMA.
constexpr bool on_tensor_cores(Kernel kernel) {
    return kernel == Kernel::tensor_cores || kernel == Kernel::tensor_staged || kernel == Kernel::tensor_bulk;
}

// Vectors a tensor-core warp keeps: 8·T for T = 1, 2, 4, 8 tiles of 16 × 8 × 16 bf16 fragments
// (PTX's mma.sync.m16n8k16, a tile of 8 vectors each). A and X go from global memory straight
// into the fragments, 16 bytes a load, with no shared memory.
using TensorGroups = Compiled<8, 16, 32, 64>;
inline constexpr const auto& kTensorGroups = TensorGroups::values;
// A group of the kernels that keep 8·T vectors worth running k vectors in: 8 always, a larger one
// where k fills more than half of it (the tuner's plans and the tests' cases).
constexpr bool group_half_filled(int group, int k) {
    return group == 8 || group / 2 < k;
}
constexpr int kTensorThreads = 256;  // 8 warps a block
// Rows a block: row-major, a warp's 16 rows are eight apart (they share an alignment), so a block
// of 8 warps takes 128 consecutive rows; column-major, a lane takes 8 consecutive rows, a warp 64.
constexpr int kTensorRowsRow = 128;
constexpr int kTensorRowsCol = 512;
// Columns a warp takes a step: slices of the columns are a multiple of them.
constexpr int kTensorStepRow = 32;
constexpr int kTensorStepCol = 16;
// The staged tensor-core kernel (gemv_tensor_staged.cu): a block of 8 warps takes kStagedRows rows
// (16 a warp) and all of its group's 8·T vectors, and copies chunks of kStagedCols columns of A
// and X (kStagedWideCols where staged_cols says, below) into shared memory kStagedStages - 1 chunks
// ahead of its multiplies (cp.async). Slices of the columns are a multiple of a chunk.
constexpr int kStagedRows = 128;
constexpr int kStagedCols = 64;
constexpr int kStagedStages = 4;
// Where every line of A and X starts on 16 bytes (8 bf16): rows of row-major A where n is a
// multiple of 8, columns of column-major A where m is, and X's vectors where the distance between
// them is (n, or n rounded up where X is packed). Such lines lie whole in shared memory and their
// fragments come with ldmatrix.
constexpr bool staged_whole_lines(gemv::Layout layout, std::int64_t m, std::int64_t n, bool pack_x) {
    const bool x_whole = pack_x || n % 8 == 0;
    return (layout == gemv::Layout::row ? n % 8 == 0 : m % 8 == 0) && x_whole;
}
// With whole lines and up to kStagedWideMost vectors a block, a chunk takes kStagedWideCols
// columns: twice the bytes a barrier and a stage, and one block an SM rather than two. On the H200
// that took 0.84-0.90 of the time at 14336 × 4096 with 4 to 32 vectors, both layouts (0.88-1.03
// on the other shapes); with 64 vectors, where one block an SM no longer keeps up with its
// multiplies, up to 1.15 times as long, and with padded lines, whose multiplies cost more, up to
// 1.38 (slides/data/step16/h200_staged_wide_chunks.csv, h200_staged_wide_chunks_whole_lines.csv,
// h200_staged_wide_chunks_everywhere.csv).
constexpr int kStagedWideCols = 128;
constexpr int kStagedWideMost = 32;
constexpr int staged_cols(bool whole_lines, int group) {
    return whole_lines && group <= kStagedWideMost ? kStagedWideCols : kStagedCols;
}
// With wide chunks (staged_cols), whose blocks DRAM alone holds back, a last wave that fills
// kBusyEnough of the SMs or more takes about as long as its share of a full one: fewer blocks read
// DRAM as fast, each faster. Counted as a full wave, it made the plan slice 28672 × 8192
// row-major (224 blocks, one an SM) with 16 vectors into 4, where one slice (1.7 waves) took 0.89
// of the time. Blocks of narrow chunks, whose multiplies weigh, took up to 1.16 times as long so:
// for them a last wave counts in full (H200, slides/data/step16/h200_staged_slices_wide.csv,
// h200_staged_last_wave.csv).
constexpr double kBusyEnough = 0.8;
// The bulk tensor-core kernel (gemv_tensor_bulk.cu), Hopper's way: compute capability 9.0, code
// built for sm_90a. A block of two warpgroups that multiply takes kBulkRows rows and its group's
// 8·T vectors; one thread of a third warpgroup asks the copy engine (TMA) for each chunk of
// bulk_chunk_cols columns of A and X, bulk_stages chunks ahead, and each multiplying warpgroup
// multiplies its 64 rows with wgmma, its operands read from shared memory by the tensor cores
// themselves. The copy engine needs every line of A and X to start on 16 bytes (row-major A: n a
// multiple of 8; column-major: m and n, X's lines being n long), and the accuracy argument atop
// the kernel needs n >= kBulkLeastCols.
// Its groups: the tensor-core kernels', 96, 128, 144 and 192 (a wgmma takes any multiple of 8 up
// to 256 vectors; at 192 a thread keeps 96 sums beside 96 accumulators, within the 232 registers
// the multiplying warpgroups take from the copying one). With 128 vectors one group of 128 took
// 0.79-0.83 of the time of two groups of 64 at 14336 × 4096, both layouts (H200,
// slides/data/step16/h200_bulk_group_128.csv). Not everywhere: two groups of 64
// side by side took 0.87-0.98 of the time of one of 128 at 8192 × 8192 (96 and 128 vectors, both
// layouts) and 1024 × 4096 (128) (H200, slides/data/step16/h200_bulk_also_64.csv). Past 128
// vectors two groups read A twice, and each reads all of X again: one group of 144 or 192 that
// holds k took 0.61-0.86 of the time of two of 96 on 11 of 13 problems of 130 to 192 vectors, as
// long at 8192 × 8192 with 160, 1.24 times it there with 192 (H200,
// slides/data/step16/h200_bulk_groups_144_192.csv), and 1.15 times it there with 129 once the
// last group's boxes of X stopped at k (h200_bulk_last_group_boxes.csv). So from 65 vectors the
// chooser times the group that holds k and the smallest of 64 or more that takes it in two
// (bulk_timed): 64 and 96 at 65 to 96, 64 and 128 at 97 to 128, 96 and 144 at 129 to 144, 96 and
// 192 at 145 to 192, 128 from 193. From kBulkWide vectors a chunk is half as wide: a stage of 192
// vectors × 128 columns is 80 KiB, 2 in an SM, and a block waits for each copy; 5 of 40 KiB took
// 0.59-0.83 of the time at 192 (and 164) vectors. Groups of 128 keep theirs: halved, 1.04 and
// 1.12 times as long at 14336 × 4096 with 128 and 2472 × 13936 with 207, 0.93 with 256.
using BulkGroups = Compiled<8, 16, 32, 64, 96, 128, 144, 192>;
inline constexpr const auto& kBulkGroups = BulkGroups::values;
bool bulk_timed(int group, int k);
constexpr int kBulkRows = 128;
constexpr int kBulkThreads = 3 * 128;  // two warpgroups that multiply, one whose one thread copies
// Its clusters: C blocks of consecutive rows (one group) that share X, each box of X asked for once
// and written into all C blocks (multicast). Where X's bytes weigh, they cut what L2 hands out: on
// the H200 the bulk kernel's time follows the bytes through L2's slices (6-8 TB/s), and clusters of
// 2 took 7904 × 18328 with 137 vectors from 131.7 to 100.9 µs, of 4 column-major 12024 × 29720
// with 139 from 349.5 to 223.1; where rows are short each block waits for the slowest of its
// cluster (8192 × 8192 with 128 vectors, one group of 128: 46.2 alone, 72.6 in fours; H200,
// slides/data/step16/h200_bulk_clusters.csv). So the chooser times clusters of 2 and 4 beside
// none for group_for's group from kBulkClusteredFrom vectors, where X's boxes are 3/4 of A's bytes
// a chunk or more (bulk_clustered).
using BulkClusters = Compiled<1, 2, 4>;
inline constexpr const auto& kBulkClusters = BulkClusters::values;
constexpr int kBulkClusteredFrom = 96;
bool bulk_clustered(int group, int k);
constexpr int kBulkCols = 128;  // a slice's columns are a multiple of them
constexpr int kBulkWide = 144;
constexpr int bulk_chunk_cols(int group) {
    return group >= kBulkWide ? kBulkCols / 2 : kBulkCols;
}
constexpr int bulk_stage_bytes(int group) {
    return 2 * bulk_chunk_cols(group) * (kBulkRows + group);  // A's lines and X's, 2 bytes an element
}
constexpr int bulk_stages(int group) {  // as many as fit beside the 1024 bytes of alignment; 4 of 128 columns
    const int fit = (227 * 1024 - 1024) / bulk_stage_bytes(group);
    return bulk_chunk_cols(group) == kBulkCols && fit > 4 ? 4 : fit;
}
constexpr std::int64_t kBulkLeastCols = 256;
constexpr bool bulk_fits(gemv::Layout layout, std::int64_t m, std::int64_t n) {
    constexpr std::int64_t coordinates = std::int64_t(1) << 31;  // the copy engine's are 32-bit
    return n % 8 == 0 && (layout == gemv::Layout::row || m % 8 == 0) && n >= kBulkLeastCols && m < coordinates &&
           n < coordinates;
}
// Its slices: the copy engine streams one block's chunks so fast that blocks on half of the SMs
// read DRAM near its rate, and each slice costs a zeroed Y, atomic additions and a pipeline filled
// once more. So the columns are sliced only until the blocks fill bulk_busy_share of the SMs: half
// of them up to 64 vectors a block (on the H200 within 3 % of the best of half, all and twice the
// SMs on 8 of 10 problems, 7 % at worst; all of them cost up to 4 %, twice up to 35 %:
// slides/data/step16/h200_bulk_slices.csv). A block of 128 vectors does twice the multiplies for
// its bytes, and half of the SMs no longer keep up: all of them took 0.82 of the time at
// 8192 × 8192 with 128 vectors, 0.61 at 4096 × 14336 column-major with 256 (h200_bulk_group_128.csv).
constexpr double bulk_busy_share(int group) {
    return group >= 96 ? 1.0 : 0.5;  // 96: as 128, not measured apart
}

// X is packed (pack_x) where 32 vectors a block or more meet an odd n and X is small beside A
// (m >= 16·k: the copy reads and writes X, at most an eighth of A's bytes): there pairs of X's
// columns read as 2 bytes each cost the multiplies more than the copy.
constexpr bool staged_packs_x(std::int64_t m, std::int64_t n, int k, int group) {
    return n % 2 != 0 && group >= 32 && m >= 16 * std::int64_t(k);
}
// The staged FMA kernel (gemv_fma_staged.cu, float): a block of 4 warps takes kFmaRows rows and
// its group's 8·T vectors, and copies chunks of kFmaCols columns of A and X into shared memory
// kFmaStages - 1 chunks ahead. A thread keeps a tile of 4 × 4 to 16 × 8 rows × vectors of sums
// (the kernel's tile_rows, tile_vectors). Its groups step by 8 vectors from 16 on, not by
// doubling: from 17 vectors on the FMA units weigh, and a group of 32 would do the multiply-adds of
// 32 vectors for 17. Groups of 40 and 56 took 0.86-0.97 of the time of 48 and 64 at 33 to 56
// vectors (H200, slides/data/step16/h200_fma_groups_40_56.csv).
using FmaGroups = Compiled<8, 16, 24, 32, 40, 48, 56, 64>;
inline constexpr const auto& kFmaGroups = FmaGroups::values;
constexpr int kFmaThreads = 128;
constexpr int kFmaRows = 256;
constexpr int kFmaCols = 16;
constexpr int kFmaStages = 3;
// Row-major, a chunk copies kFmaCols · 4 = 64 bytes of each of its rows: small pieces far apart
// in memory cost DRAM more than their bytes, and with one group of 8 vectors, where A's bytes are
// the roof, that is what the kernel ran at (48 % of the roofline at 8192 × 8192 on the H200, 59 %
// on the H100). Rows long enough (below) are therefore copied kFmaWideCols columns (128
// bytes) at a time, kFmaWideRows rows a block so that a stage keeps its size (73 % and 80 %).
// With 16 and 32 vectors A's bytes still weigh (8192 × 8192, 16 vectors: 57 % -> 80 % on the
// H100); with 64 the FMA units are the roof, and wide chunks, whose blocks keep smaller tiles,
// were 1-3 % faster on long rows and up to 14 % slower on short ones: none there.
constexpr int kFmaWideRows = 128;
constexpr int kFmaWideCols = 32;
constexpr bool fma_wide_compiled(gemv::Layout layout, int group) {
    return layout == gemv::Layout::row && group <= 32;
}
// From which n wide chunks are as fast or faster, measured on the H100 with rows swizzled in
// shared memory (gemv_fma_staged.cu's Pitch; slides/data/step16/h100_fma_wide_from_swizzled.csv,
// h100_fma_wide_every_group.csv). They pad a row to a multiple of 32 columns, not 16, and the
// multiply-adds on the padding weigh more as the vectors do: with 8 vectors wide from 48 columns
// where rows are copied 16 bytes at a time (n a multiple of 4), from 160 where 4 bytes; with 16
// from 64; with 32 from 128.
constexpr std::int64_t fma_wide_from(int group, std::int64_t n) {
    return group == 8 ? (n % 4 == 0 ? 48 : 160) : group == 16 ? 64 : 128;  // 24: as 32, not measured
}
constexpr bool fma_wide(gemv::Layout layout, int group, std::int64_t n) {
    return fma_wide_compiled(layout, group) && n >= fma_wide_from(group, n);
}
// A matrix of few rows leaves most of a block of kFmaRows rows empty, and the block still does the
// multiply-adds of all of them: with 36 rows, seven times those the rows need. So up to
// kFmaFewRowsMost rows, blocks take kFmaFewRows rows and chunks of kFmaFewCols columns (a stage
// keeps about its size), and the block's warps split a chunk's columns between them (16 each),
// their sums added in shared memory at the end. Both layouts, every group. Their tiles are smaller
// (4 × 2T a thread), so more rows favour the others: on the H200 (A 256 MiB, k = 4 … 64) few rows
// took 0.16-0.97 of the time of the faster of the others up to 160 rows (but 0.92-1.12 at 128
// rows row-major, where wide chunks' blocks are full), 0.80-1.15 at 192
// (slides/data/step16/h200_fma_few_rows.csv). Blocks of 64 rows (8 × 2T) were faster where m
// fills them (36, 128 and 192 rows, and from 40 vectors) and slower where it does not (8, 65, 92).
constexpr int kFmaFewRows = 32;
constexpr int kFmaFewCols = 64;
constexpr std::int64_t kFmaFewRowsMost = 160;
// The chunks a plan copies: few rows first, then wide where fma_wide says, narrow otherwise.
constexpr FmaChunks fma_chunks(gemv::Layout layout, int group, std::int64_t m, std::int64_t n) {
    if (m <= kFmaFewRowsMost) return FmaChunks::few_rows;
    return fma_wide(layout, group, n) ? FmaChunks::wide : FmaChunks::narrow;
}
constexpr int fma_rows(FmaChunks chunks) {
    return chunks == FmaChunks::few_rows ? kFmaFewRows : chunks == FmaChunks::wide ? kFmaWideRows : kFmaRows;
}
constexpr int fma_cols(FmaChunks chunks) {
    return chunks == FmaChunks::few_rows ? kFmaFewCols : chunks == FmaChunks::wide ? kFmaWideCols : kFmaCols;
}
// The parts a chunk's columns are split into, one a warp: the warps of a block of few rows.
constexpr int fma_column_parts(FmaChunks chunks) {
    return chunks == FmaChunks::few_rows ? kFmaThreads / 32 : 1;
}
// A block that holds `shared` groups of vectors side by side takes 1 / shared of them.
constexpr int tensor_rows_per_block(gemv::Layout layout, int shared) {
    return (layout == gemv::Layout::row ? kTensorRowsRow : kTensorRowsCol) / shared;
}

// group must be one of kTensorGroups (kFmaGroups for the staged FMA kernel); throws
// gemv::UsageError for a k or shape it cannot take.
Plan plan_tensor_cores(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count);
// The staged kernel's blocks take much shared memory, so few fit an SM (blocks_per_sm, from the
// occupancy API, of the instance for whole lines where staged_whole_lines says so, else for padded
// ones): the slices are the count whose waves of blocks take the least time, a block costing its
// chunks plus two for filling its pipeline, so that the last wave is not mostly empty (a last wave
// of wide chunks counted as kBusyEnough says). Chunks as staged_cols says, X packed where
// staged_packs_x does.
Plan plan_tensor_staged(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count,
                        int blocks_per_sm);

// The bulk tensor-core kernel's plan (bulk_fits must hold; throws gemv::UsageError otherwise), its
// blocks of rows in clusters of `cluster` (one of kBulkClusters; the rows rounded up to whole
// clusters, the blocks past m storing nothing).
Plan plan_tensor_bulk(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count,
                      int cluster = 1);

// The staged FMA kernel's plan, as the staged tensor-core kernel's (slices by whole waves of
// blocks_per_sm blocks an SM), in the chunks given (fma_chunks; wide ones where fma_wide_compiled,
// or refused).
// X is packed where n is not a multiple of 4 and X is small beside A (m >= 16·k): then every
// vector starts on 16 bytes and is copied 16 bytes at a time, not 4.
Plan plan_fma_staged(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, int group, int sm_count,
                     int blocks_per_sm, FmaChunks chunks);

// The smallest group of the kernel's list that holds k vectors; where none does, the smallest that
// takes k in as few groups as the largest does: 100 vectors in two groups of 56 for the staged FMA
// kernel, not of 64, took 0.94 and 0.97 of the time at 14336 × 4096 row-major and 8192 × 8192
// column-major (H200, slides/data/step16/h200_bulk_groups_144_192.csv).
int group_for(Kernel kernel, int k);

// The chooser. No one kernel is fastest everywhere, and the rules of thresholds first written from
// measurements (which kernel pays from which k, rows and columns) picked a kernel 1.1 to 1.7 times
// slower than the fastest on problems drawn afterwards (slides/data/step16/NOTES.md). So the
// chooser measures, as cuDNN's benchmark mode and Triton's autotuner do: it times each candidate at
// the problem in hand and keeps the fastest (choose_by_timing, gemv_tensor.cuh). The candidates:
// step 16's register-blocked kernel and, on compute capability 8.0 or later (cp.async, bf16 mma),
// in float the staged FMA kernel (FP32 FMA: see tensor_cores_take_float), in bf16 the tensor-core
// kernels (the bulk one on Hopper, where the problem fits it); at k = 1 step 11's versatile kernel
// too (chooser_times_versatile). Each takes the smallest group that holds k (group_for), the
// tensor-core kernel from global memory at most kTensorMostRow or kTensorMostCol vectors a warp:
// beyond, the sums take so many registers that too few warps keep A's bytes in flight, and reading
// A again for another group measured faster (a block holds up to 8 groups side by side, so the
// other reads are mostly cache hits; slides/data/step16/h100_tune_bf16.csv).
constexpr int kTensorMostRow = 8;
constexpr int kTensorMostCol = 32;
struct Candidate {
    Kernel kernel;
    int group;
    int cluster = 1;  // the bulk kernel's
};
// On Hopper (bulk_runs: the GPU runs the bulk kernel, tensor_bulk_runs_here) bf16 also takes the
// bulk tensor-core kernel where the problem fits it (bulk_fits on m and n); from 65 vectors with
// each group bulk_timed names.
std::vector<Candidate> candidates(gemv::Precision precision, int k, gemv::Layout layout, int cc_major,
                                  std::int64_t m = 0, std::int64_t n = 0, bool bulk_runs = false);
// One vector is step 11's problem, GEMV, and step 11's versatile kernel, configured from this
// device's tuning table as step 11 and step 15 configure it (gemv::pick_timed), is made for it:
// the kernels above spend a tile of 8 vectors or more on one, and on the shapes models are made
// of (bf16 14336 × 4096) they stayed below cuBLAS at k = 1. So at k = 1 the chooser times step
// 11's kernel beside them.
constexpr bool chooser_times_versatile(int k) {
    return k == 1;
}
// The rounds the chooser times its candidates in (gemv::fastest_in_turns, device.hpp, says how).
constexpr int kChooserRounds = 5;

// Float on tensor cores would be TF32: A and X rounded to 11 significant bits, an error of up to
// 2^-10·Σ|a·x| a row, outside the bound n·2^-23·Σ|a·x| for n < 2^13. The lab verifies every
// result against that bound, so float stays on FP32 FMA.
constexpr bool tensor_cores_take_float = false;

// What any kernel's plan loads, for CGMA (elements): step 16's traffic_of for the register-blocked
// kernel. Tensor cores: A once a group, X once a warp (16 rows row-major, 64 column-major); staged,
// X once a block of kStagedRows (tensor cores) or kFmaRows (FMA) rows, and twice more where it is
// packed first; bulk, once a block of kBulkRows. Y: once, or once a slice (atomicAdd).
gemv::Traffic planned_traffic(const Plan& plan, std::int64_t m, std::int64_t n, int k, gemv::Layout layout);

}  // namespace gemv::several
