// Step 17, without a GPU: the bf16 tensor-core peak from device facts, the edges of the plans of the
// kernels that keep 8·T vectors, the chooser's candidates, and the arrays the tensor-core kernels refuse.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "catch_compat.hpp"
#include "chooser.hpp"
#include "cli.hpp"
#include "gemv_tensor.cuh"
#include "report.hpp"

namespace several = gemv::several;

using gemv::Layout;
using gemv::Precision;

TEST_CASE("step 17: the bf16 tensor-core peak from device facts matches the datasheets", "[step17]") {
    // H100 SXM: 132 SMs, bf16 dense 989 TFLOP/s at 1830 MHz; A100 SXM: 108 SMs, 1410 MHz: 312 TFLOP/s.
    REQUIRE(several::tensor_peak_gflops(132, 1830000, 9, 0) == Approx(989400).epsilon(0.001));
    REQUIRE(several::tensor_peak_gflops(108, 1410000, 8, 0) == Approx(311869).epsilon(0.001));
    REQUIRE(several::tensor_peak_gflops(40, 1590000, 7, 5) == 0);  // no bf16 MMA before 8.0
}

TEST_CASE("step 17: the plans cover every row, column and vector once", "[step17]") {
    for (Layout layout : {Layout::row, Layout::col})
        for (std::int64_t m : {1, 31, 33, 4097, 1000000})
            for (std::int64_t n : {1, 13, 4097, 3000000})
                for (int k : {1, 2, 3, 7, 16, 17, 64, 256}) {
                    INFO(m << " x " << n << ", k " << k << ", " << gemv::layout_word(layout));
                    const several::Plan t = several::plan_tensor_cores(
                        m, n, k, layout, several::group_for(several::Kernel::tensor_cores, k), 132);
                    REQUIRE(t.blocks * several::tensor_rows_per_block(layout, t.shared) >= m);
                    // Row-major: a span of 128 rows is `shared` blocks (rows eight apart), all launched.
                    const std::int64_t span = layout == Layout::row ? t.shared : 1;
                    REQUIRE((t.blocks - span) * several::tensor_rows_per_block(layout, t.shared) < m);
                    REQUIRE(std::int64_t(t.slices) * t.per >= n);
                    REQUIRE(std::int64_t(t.slices - 1) * t.per < n);
                    REQUIRE(t.per % (layout == Layout::row ? several::kTensorStepRow : several::kTensorStepCol) == 0);
                    REQUIRE(t.groups * t.group >= k);
                    for (int blocks_per_sm : {1, 2, 64}) {
                        // The staged kernels: blocks of `rows` rows, slices a multiple of a chunk.
                        const auto covers = [&](const several::Plan& st, std::int64_t rows, std::int64_t cols) {
                            INFO(several::to_string(st.kernel) << ", " << blocks_per_sm << " blocks an SM");
                            REQUIRE(st.blocks * rows >= m);
                            REQUIRE((st.blocks - 1) * rows < m);
                            REQUIRE(std::int64_t(st.slices) * st.per >= n);
                            REQUIRE(std::int64_t(st.slices - 1) * st.per < n);
                            REQUIRE(st.per % cols == 0);
                            REQUIRE(st.groups * st.group >= k);
                            REQUIRE((st.groups - 1) * st.group < k);
                        };
                        const int g8 = several::group_for(several::Kernel::tensor_staged, k);
                        const several::Plan st = several::plan_tensor_staged(m, n, k, layout, g8, 132, blocks_per_sm);
                        covers(st, several::kStagedRows, several::staged_cols(st.whole_lines, st.group));
                        using several::FmaChunks;
                        covers(several::plan_fma_staged(m, n, k, layout, g8, 132, blocks_per_sm, FmaChunks::narrow),
                               several::kFmaRows, several::kFmaCols);
                        covers(several::plan_fma_staged(m, n, k, layout, g8, 132, blocks_per_sm, FmaChunks::few_rows),
                               several::kFmaFewRows, several::kFmaFewCols);
                        if (several::fma_wide_compiled(layout, g8))
                            covers(several::plan_fma_staged(m, n, k, layout, g8, 132, blocks_per_sm, FmaChunks::wide),
                                   several::kFmaWideRows, several::kFmaWideCols);
                        // The bulk kernel's lines: n rounded to a multiple of 8, m too (column-major).
                        const std::int64_t m8 = layout == Layout::row ? m : (m + 7) / 8 * 8, n8 = (n + 7) / 8 * 8;
                        if (several::bulk_fits(layout, m8, n8)) {
                            const int gb = several::group_for(several::Kernel::tensor_bulk, k);
                            covers(several::plan_tensor_bulk(m8, n8, k, layout, gb, 132 * blocks_per_sm),
                                   several::kBulkRows, several::kBulkCols);
                        }
                    }
                }
    REQUIRE_THROWS_AS(several::plan_tensor_cores(10, 10, 4, Layout::row, 12, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_tensor_staged(10, 10, 4, Layout::row, 12, 132, 2), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_fma_staged(10, 10, 4, Layout::row, 16 + 1, 132, 2, several::FmaChunks::narrow),
                      gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_fma_staged(10, 10, 0, Layout::col, 8, 132, 2, several::FmaChunks::narrow),
                      gemv::UsageError);
}

TEST_CASE(
    "step 17: the bulk kernel takes lines on 16 bytes, and slices until half of the SMs have blocks "
    "(all of them at 128 vectors)",
    "[step17]") {
    REQUIRE(several::bulk_fits(Layout::row, 14335, 4096));
    REQUIRE_FALSE(several::bulk_fits(Layout::col, 14335, 4096));  // a column of A starts on 2 bytes
    REQUIRE_FALSE(several::bulk_fits(Layout::row, 14336, 4097));  // a row of A and a vector of X
    REQUIRE_FALSE(several::bulk_fits(Layout::col, 14336, 4100));  // a vector of X
    REQUIRE_FALSE(several::bulk_fits(Layout::row, 14336, several::kBulkLeastCols - 8));
    REQUIRE(several::bulk_fits(Layout::col, 8, several::kBulkLeastCols));
    REQUIRE_THROWS_AS(several::plan_tensor_bulk(14336, 4097, 64, Layout::row, 64, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_tensor_bulk(14336, 4096, 64, Layout::row, 12, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_tensor_bulk(14336, 4096, 64, Layout::row, 64, 132, 3), gemv::UsageError);
    // Clusters: the blocks of rows rounded up to whole clusters, the block's threads three warpgroups.
    REQUIRE(several::plan_tensor_bulk(136, 4096, 64, Layout::row, 64, 132, 4).blocks == 4);
    REQUIRE(several::plan_tensor_bulk(136, 4096, 64, Layout::row, 64, 132, 2).blocks == 2);
    REQUIRE(several::plan_tensor_bulk(1000, 4096, 64, Layout::col, 64, 132, 1).blocks == 8);
    REQUIRE(several::plan_tensor_bulk(1000, 4096, 64, Layout::col, 64, 132, 4).cluster == 4);
    REQUIRE(several::plan_tensor_bulk(1000, 4096, 64, Layout::col, 64, 132).threads == several::kBulkThreads);
    const auto slices = [](std::int64_t m, std::int64_t n, int k) {
        return several::plan_tensor_bulk(m, n, k, Layout::row, several::group_for(several::Kernel::tensor_bulk, k), 132)
            .slices;
    };
    REQUIRE(slices(14336, 4096, 64) == 1);  // 112 blocks
    REQUIRE(slices(8192, 8192, 64) == 1);   // 64 blocks: half of the SMs
    REQUIRE(slices(4096, 14336, 64) == 2);  // 32 blocks
    REQUIRE(slices(1024, 4096, 64) == 8);   // 8 blocks
    REQUIRE(slices(8, 256, 1) == 2);        // never more than the chunks
    // From 65 vectors, groups of 96 to 192, sliced until all of the SMs have blocks.
    REQUIRE(several::group_for(several::Kernel::tensor_bulk, 65) == 96);
    REQUIRE(several::group_for(several::Kernel::tensor_bulk, 97) == 128);
    REQUIRE(several::group_for(several::Kernel::tensor_bulk, 137) == 144);
    REQUIRE(several::group_for(several::Kernel::tensor_bulk, 164) == 192);
    REQUIRE(several::group_for(several::Kernel::tensor_bulk, 256) == 128);  // two of 128, not of 192
    REQUIRE(slices(8192, 8192, 96) == 2);                                   // 64 blocks
    REQUIRE(slices(8192, 8192, 128) == 2);                                  // 64 blocks
    REQUIRE(slices(1024, 4096, 256) == 8);                                  // 8 blocks in 2 groups
}

TEST_CASE("step 17: the staged kernel's slices fill whole waves of blocks", "[step17]") {
    // 97 blocks of rows on 132 SMs × 2: 8 slices make 776 blocks, 2.94 waves (11 would make 4.04,
    // the fifth wave almost empty).
    const several::Plan odd = several::plan_tensor_staged(12345, 43483, 16, Layout::col, 16, 132, 2);
    REQUIRE(odd.blocks == 97);
    REQUIRE(odd.groups == 1);
    const double waves = double(odd.blocks * odd.groups * odd.slices) / (132 * 2);
    INFO(odd.slices << " slices, " << waves << " waves");
    REQUIRE(std::ceil(waves) - waves < 0.1);
    // Few rows: sliced; rows for many waves: one slice.
    REQUIRE(several::plan_tensor_staged(128, 1 << 20, 8, Layout::row, 8, 132, 2).slices > 100);
    REQUIRE(several::plan_tensor_staged(1 << 22, 1024, 8, Layout::row, 8, 132, 2).slices == 1);
    // X packed only with 32 vectors or more, an odd n and X small beside A; then counted twice more.
    REQUIRE(several::plan_tensor_staged(12345, 43483, 64, Layout::col, 64, 132, 2).pack_x);
    REQUIRE_FALSE(several::plan_tensor_staged(12345, 43483, 16, Layout::col, 16, 132, 2).pack_x);
    REQUIRE_FALSE(several::plan_tensor_staged(12346, 43482, 64, Layout::col, 64, 132, 2).pack_x);
    REQUIRE_FALSE(several::plan_tensor_staged(33, 4194301, 64, Layout::col, 64, 132, 2).pack_x);
    const several::Plan packed = several::plan_tensor_staged(12345, 43483, 64, Layout::col, 64, 132, 2);
    REQUIRE(several::planned_traffic(packed, 12345, 43483, 64, Layout::col).x_elems ==
            (gemv::div_up(12345, several::kStagedRows) + 2) * 43483.0 * 64);
}

TEST_CASE("step 17: the staged tensor-core kernel takes wide chunks where every line starts on 16 bytes", "[step17]") {
    const auto plan = [](std::int64_t m, std::int64_t n, int k, Layout layout) {
        return several::plan_tensor_staged(m, n, k, layout, several::group_for(several::Kernel::tensor_staged, k), 132,
                                           1);
    };
    // Row-major: rows on 16 bytes where n is a multiple of 8 (X's vectors then are too).
    const several::Plan row = plan(14336, 4104, 16, Layout::row);  // 4104 columns: 32.06 wide chunks
    REQUIRE(row.whole_lines);
    REQUIRE(row.per % several::kStagedWideCols == 0);
    REQUIRE_FALSE(plan(14336, 4100, 16, Layout::row).whole_lines);
    REQUIRE_FALSE(plan(14336, 4097, 64, Layout::row).whole_lines);  // X packed, rows still odd
    // Column-major: columns where m is, and X's vectors where n is or X is packed.
    REQUIRE(plan(14336, 4096, 16, Layout::col).whole_lines);
    REQUIRE_FALSE(plan(14337, 4096, 16, Layout::col).whole_lines);
    REQUIRE_FALSE(plan(14336, 4097, 16, Layout::col).whole_lines);  // X where it lies: odd vectors
    const several::Plan packed = plan(14336, 4097, 64, Layout::col);
    REQUIRE(packed.pack_x);
    REQUIRE(packed.whole_lines);
    // Wide chunks' blocks are held back by DRAM alone: a last wave of 92 blocks on 132 SMs (28672
    // rows, one block an SM) counts as its share of a full one, and one slice beats four; few
    // blocks are still sliced.
    REQUIRE(plan(28672, 8192, 16, Layout::row).slices == 1);
    REQUIRE(plan(4096, 14336, 16, Layout::row).slices == 4);
    // Padded lines keep the narrower chunks.
    REQUIRE_FALSE(plan(12345, 43483, 16, Layout::col).whole_lines);
    // Wide chunks up to kStagedWideMost vectors a block; beyond, and with padded lines, narrow ones.
    REQUIRE(several::staged_cols(true, several::kStagedWideMost) == several::kStagedWideCols);
    REQUIRE(several::staged_cols(true, 2 * several::kStagedWideMost) == several::kStagedCols);
    REQUIRE(several::staged_cols(false, 8) == several::kStagedCols);
    REQUIRE(plan(14336, 4104, 64, Layout::row).per % several::kStagedWideCols != 0);  // 64 vectors: narrow
}

TEST_CASE("step 17: the staged FMA kernel packs X where n is not a multiple of 4 and X is small", "[step17]") {
    REQUIRE(several::plan_fma_staged(12345, 43483, 16, Layout::col, 16, 132, 2, several::FmaChunks::narrow).pack_x);
    REQUIRE_FALSE(
        several::plan_fma_staged(12345, 43484, 16, Layout::col, 16, 132, 2, several::FmaChunks::narrow).pack_x);
    REQUIRE_FALSE(several::plan_fma_staged(100, 43483, 16, Layout::col, 16, 132, 2, several::FmaChunks::narrow)
                      .pack_x);  // m < 16·k
    const several::Plan packed =
        several::plan_fma_staged(12345, 43483, 64, Layout::row, 64, 132, 2, several::FmaChunks::narrow);
    REQUIRE(packed.pack_x);
    REQUIRE(several::planned_traffic(packed, 12345, 43483, 64, Layout::row).x_elems ==
            (gemv::div_up(12345, several::kFmaRows) + 2) * 43483.0 * 64);
}

TEST_CASE("step 17: the staged FMA kernel copies long row-major rows in wide chunks", "[step17]") {
    // Wide: row-major with at most 32 vectors a block, from fma_wide_from's n on. Longer rows
    // copied alike (4 or 16 bytes at a time, as n is a multiple of 4 or not) stay wide, and rows
    // copied 4 bytes at a time need as many columns as whole ones or more (so measured).
    for (int group : {8, 16, 32}) {
        INFO(group << " vectors a block");
        const std::int64_t whole = several::fma_wide_from(group, 4096), split = several::fma_wide_from(group, 4097);
        REQUIRE(whole >= several::kFmaCols);
        REQUIRE(split >= whole);
        for (std::int64_t n = 1; n <= 4 * split; ++n) {
            INFO("n = " << n);
            REQUIRE(several::fma_wide(Layout::row, group, n) == (n >= (n % 4 == 0 ? whole : split)));
            REQUIRE_FALSE(several::fma_wide(Layout::col, group, n));
        }
    }
    REQUIRE_FALSE(several::fma_wide(Layout::row, 64, 1 << 20));
    // A wide plan takes blocks of kFmaWideRows rows and slices of whole wide chunks; the kernel
    // has no other wide instance, so the plan refuses the rest.
    const several::Plan wide =
        several::plan_fma_staged(8192, 8192, 4, Layout::row, 8, 132, 3, several::FmaChunks::wide);
    REQUIRE(wide.chunks == several::FmaChunks::wide);
    REQUIRE(wide.blocks == 8192 / several::kFmaWideRows);
    REQUIRE(wide.per % several::kFmaWideCols == 0);
    REQUIRE(several::planned_traffic(wide, 8192, 8192, 4, Layout::row).x_elems ==
            double(8192 / several::kFmaWideRows) * 8192.0 * 4);
    REQUIRE_THROWS_AS(several::plan_fma_staged(8192, 8192, 4, Layout::col, 8, 132, 3, several::FmaChunks::wide),
                      gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_fma_staged(8192, 8192, 64, Layout::row, 64, 132, 2, several::FmaChunks::wide),
                      gemv::UsageError);
}

TEST_CASE("step 17: the staged FMA kernel takes few rows in blocks of few rows, whatever the layout and n",
          "[step17]") {
    using several::FmaChunks;
    for (Layout layout : {Layout::row, Layout::col})
        for (int group : several::kFmaGroups)
            for (std::int64_t n : {1, 4097, 1000003}) {
                INFO(gemv::layout_word(layout) << ", " << group << " vectors a block, n " << n);
                for (std::int64_t m : {std::int64_t(1), std::int64_t(33), several::kFmaFewRowsMost})
                    REQUIRE(several::fma_chunks(layout, group, m, n) == FmaChunks::few_rows);
                const FmaChunks more = several::fma_chunks(layout, group, several::kFmaFewRowsMost + 1, n);
                REQUIRE(more == (several::fma_wide(layout, group, n) ? FmaChunks::wide : FmaChunks::narrow));
            }
    // Few rows: blocks of kFmaFewRows rows, slices of whole chunks of kFmaFewCols columns, X read
    // once a block; a block's warps take parts of a chunk's columns, whole granules each.
    const several::Plan few = several::plan_fma_staged(65, 2191578, 22, Layout::col, 24, 132, 4, FmaChunks::few_rows);
    REQUIRE(few.blocks == 3);
    REQUIRE(few.per % several::kFmaFewCols == 0);
    REQUIRE(several::planned_traffic(few, 65, 2191578, 22, Layout::col).x_elems == 3 * 2191578.0 * 22);
    REQUIRE(several::kFmaFewCols % (4 * several::fma_column_parts(FmaChunks::few_rows)) == 0);
    REQUIRE(several::fma_column_parts(FmaChunks::narrow) == 1);
}

TEST_CASE("step 17: few rows are sliced along the columns", "[step17]") {
    REQUIRE(several::plan_tensor_cores(16, 1000000, 16, Layout::row, 16, 132).slices > 1);
}

TEST_CASE("step 17: the chooser times every kernel that can run, each with the smallest group that holds k",
          "[step17]") {
    using several::Kernel;
    const auto kernels = [](Precision precision, int k, Layout layout, int cc_major) {
        std::vector<Kernel> out;
        for (const several::Candidate& c : several::candidates(precision, k, layout, cc_major)) {
            INFO(several::to_string(c.kernel) << ", k " << k);
            // The kernel's own group for k: the smallest that holds it (the tensor-core kernel from
            // global memory capped by layout).
            int group = several::group_for(c.kernel, k);
            if (c.kernel == Kernel::tensor_cores)
                group = std::min(group, layout == Layout::row ? several::kTensorMostRow : several::kTensorMostCol);
            REQUIRE(c.group == group);
            out.push_back(c.kernel);
        }
        return out;
    };
    for (int k : {1, 2, 3, 7, 8, 15, 16, 17, 33, 64, 256})
        for (auto layout : {Layout::row, Layout::col}) {
            INFO("k " << k << ", " << gemv::layout_word(layout));
            REQUIRE(kernels(Precision::f32, k, layout, 9) == std::vector{Kernel::register_blocked, Kernel::fma_staged});
            REQUIRE(kernels(Precision::bf16, k, layout, 8) ==
                    std::vector{Kernel::register_blocked, Kernel::tensor_cores, Kernel::tensor_staged});
            // Before compute capability 8.0: no cp.async, no bf16 mma.
            for (Precision precision : {Precision::f32, Precision::bf16})
                REQUIRE(kernels(precision, k, layout, 7) == std::vector{Kernel::register_blocked});
        }
    // The bulk kernel: bf16 only, where the GPU runs it and the problem fits it.
    using V = std::vector<Kernel>;
    const auto with_bulk = [](Precision precision, Layout layout, std::int64_t m, std::int64_t n, bool runs) {
        V out;
        for (const several::Candidate& c : several::candidates(precision, 16, layout, 9, m, n, runs)) {
            out.push_back(c.kernel);
            if (c.kernel == Kernel::tensor_bulk) REQUIRE(c.group == 16);
        }
        return out;
    };
    const V staged = {Kernel::register_blocked, Kernel::tensor_cores, Kernel::tensor_staged};
    V bulk = staged;
    bulk.push_back(Kernel::tensor_bulk);
    REQUIRE(with_bulk(Precision::bf16, Layout::row, 14336, 4096, true) == bulk);
    REQUIRE(with_bulk(Precision::bf16, Layout::col, 14336, 4096, true) == bulk);
    REQUIRE(with_bulk(Precision::bf16, Layout::row, 14336, 4096, false) == staged);
    REQUIRE(with_bulk(Precision::bf16, Layout::col, 14335, 4096, true) == staged);
    REQUIRE(with_bulk(Precision::f32, Layout::row, 14336, 4096, true) ==
            V{Kernel::register_blocked, Kernel::fma_staged});
    // From 65 vectors the bulk kernel is timed with the group that holds k and the smallest of 64
    // or more that takes it in two; group_for's group from 96 vectors also in clusters of 2 and 4.
    using G = std::vector<std::pair<int, int>>;  // group, cluster
    for (const auto& [k, timed] : std::vector<std::pair<int, G>>{{64, {{64, 1}}},
                                                                 {65, {{64, 1}, {96, 1}, {96, 2}, {96, 4}}},
                                                                 {96, {{64, 1}, {96, 1}, {96, 2}, {96, 4}}},
                                                                 {97, {{64, 1}, {128, 1}, {128, 2}, {128, 4}}},
                                                                 {128, {{64, 1}, {128, 1}, {128, 2}, {128, 4}}},
                                                                 {129, {{96, 1}, {144, 1}, {144, 2}, {144, 4}}},
                                                                 {144, {{96, 1}, {144, 1}, {144, 2}, {144, 4}}},
                                                                 {145, {{96, 1}, {192, 1}, {192, 2}, {192, 4}}},
                                                                 {192, {{96, 1}, {192, 1}, {192, 2}, {192, 4}}},
                                                                 {193, {{128, 1}, {128, 2}, {128, 4}}},
                                                                 {256, {{128, 1}, {128, 2}, {128, 4}}}}) {
        INFO("k " << k);
        G groups;
        for (const several::Candidate& c : several::candidates(Precision::bf16, k, Layout::row, 9, 8192, 8192, true))
            if (c.kernel == Kernel::tensor_bulk) groups.push_back({c.group, c.cluster});
        REQUIRE(groups == timed);
    }
    REQUIRE(several::candidates(Precision::bf16, 64, Layout::row, 9)[1].group == several::kTensorMostRow);
    REQUIRE(several::candidates(Precision::bf16, 64, Layout::col, 9)[1].group == several::kTensorMostCol);
    REQUIRE_THROWS_AS(several::candidates(Precision::f32, 0, Layout::row, 9), gemv::UsageError);
    REQUIRE_FALSE(several::tensor_cores_take_float);
    // The roof each kernel is held to: the staged FMA kernel is FP32 FMA, like the register-blocked one.
    REQUIRE(several::on_tensor_cores(Kernel::tensor_cores));
    REQUIRE(several::on_tensor_cores(Kernel::tensor_staged));
    REQUIRE(several::on_tensor_cores(Kernel::tensor_bulk));
    REQUIRE_FALSE(several::on_tensor_cores(Kernel::fma_staged));
    REQUIRE_FALSE(several::on_tensor_cores(Kernel::register_blocked));
    REQUIRE(several::group_for(Kernel::register_blocked, 3) == 4);
    REQUIRE(several::group_for(Kernel::register_blocked, 17) == 16);
    REQUIRE(several::group_for(Kernel::tensor_cores, 3) == 8);
    REQUIRE(several::group_for(Kernel::tensor_cores, 17) == 32);
    REQUIRE(several::group_for(Kernel::tensor_cores, 256) == 64);
    REQUIRE(several::group_for(Kernel::fma_staged, 17) == 24);
    REQUIRE(several::group_for(Kernel::fma_staged, 33) == 40);
    REQUIRE(several::group_for(Kernel::fma_staged, 49) == 56);
    REQUIRE(several::group_for(Kernel::fma_staged, 57) == 64);
    REQUIRE(several::group_for(Kernel::fma_staged, 256) == 64);
    REQUIRE(several::group_for(Kernel::fma_staged, 100) == 56);  // two groups either way: 112 vectors, not 128
}

TEST_CASE("step 17: a group no tensor-core or staged kernel was compiled for is refused", "[step17]") {
    const auto tiles_of = [](int group) {
        return several::with_compiled(several::TensorGroups{}, "vectors a warp or block", group,
                                      [](auto g) { return decltype(g)::value / 8; });
    };
    REQUIRE(tiles_of(8) == 1);
    REQUIRE(tiles_of(64) == 8);
    for (int g : {1, 4, 12, 24, 48, 128}) REQUIRE_THROWS_AS(tiles_of(g), gemv::UsageError);
    // The staged FMA kernel's own groups: plans for them, none for the others.
    for (int g : several::kFmaGroups)
        REQUIRE(several::plan_fma_staged(100, 100, 3, Layout::row, g, 132, 3, several::FmaChunks::narrow).group == g);
    for (int g : {4, 12, 44, 128})
        REQUIRE_THROWS_AS(several::plan_fma_staged(100, 100, 3, Layout::row, g, 132, 3, several::FmaChunks::narrow),
                          gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_tensor_staged(100, 100, 3, Layout::row, 24, 132, 3), gemv::UsageError);
}

TEST_CASE("step 17: the tensor-core kernels refuse A or X that does not start on 16 bytes, before launching",
          "[step17]") {
    // Addresses nothing reads: the check comes before any CUDA call, so it runs without a GPU.
    const auto at = [](std::uintptr_t address) { return reinterpret_cast<const __nv_bfloat16*>(address); };
    const several::Plan direct = several::plan_tensor_cores(100, 100, 3, Layout::row, 8, 132);
    const several::Plan staged = several::plan_tensor_staged(100, 100, 3, Layout::row, 8, 132, 2);
    for (std::uintptr_t a : {0x1000u, 0x1002u})
        for (std::uintptr_t x : {0x2000u, 0x2008u}) {
            if (a % 16 == 0 && x % 16 == 0) continue;
            INFO("A at " << a << ", X at " << x);
            REQUIRE_THROWS_AS(several::gemv_tensor_cores(direct, Layout::row, at(a), at(x), nullptr, 100, 100, 3, 0),
                              gemv::UsageError);
            REQUIRE_THROWS_AS(several::gemv_tensor_staged(staged, Layout::row, at(a), at(x), nullptr, 100, 100, 3, 0),
                              gemv::UsageError);
        }
}
