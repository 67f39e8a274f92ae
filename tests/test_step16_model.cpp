// Step 16, without a GPU: the byte and flop model for k vectors, CGMA against k, the roofline and
// its peaks from device facts, the plans' edges and the chooser's rule.
#include <cmath>

#include "catch_compat.hpp"
#include "cli.hpp"
#include "report.hpp"
#include "several_vectors.hpp"

using gemv::Layout;
using gemv::Precision;

TEST_CASE("step 16: the model reads A once and X and Y k times over", "[step16]") {
    // k = 1 is the one-vector model of every earlier step.
    REQUIRE(gemv::model_bytes(300, 257, Precision::f32, 1) == gemv::model_bytes(300, 257, Precision::f32));
    REQUIRE(gemv::model_bytes(300, 257, Precision::bf16, 1) == gemv::model_bytes(300, 257, Precision::bf16));
    REQUIRE(gemv::model_flops(300, 257, 1) == gemv::model_flops(300, 257));
    // A in bf16 (2 bytes), X in bf16, Y in float (4 bytes).
    REQUIRE(gemv::model_bytes(1000, 3000, Precision::bf16, 8) ==
            1000ull * 3000 * 2 + 8ull * 3000 * 2 + 8ull * 1000 * 4);
    REQUIRE(gemv::model_bytes(1000, 3000, Precision::f32, 256) == 1000ull * 3000 * 4 + 256ull * (3000 + 1000) * 4);
    REQUIRE(gemv::model_flops(1000, 3000, 7) == 2ull * 1000 * 3000 * 7);
    // 64-bit: a 256 MiB bf16 matrix with 256 vectors, flops past 2^32.
    REQUIRE(gemv::model_flops(16384, 8192, 256) == 2ull * 16384 * 8192 * 256);
    REQUIRE_THROWS_AS(gemv::model_flops(std::int64_t(1) << 31, std::int64_t(1) << 31, 1 << 20), std::overflow_error);
}

TEST_CASE("step 16: the Result's GB/s, GFLOP/s and CGMA count k vectors, and are unchanged for k = 1", "[step16]") {
    gemv::Result r;
    r.shape = {4096, 4096, Layout::col};
    r.precision = Precision::f32;
    r.time.median_ms = 1.0;
    r.traffic = {4096.0 * 4096, 4096.0, 4096.0};
    const double gbps1 = r.gbps(), gflops1 = r.gflops(), cgma1 = r.cgma();
    REQUIRE(r.bytes() == gemv::model_bytes(4096, 4096, Precision::f32));
    REQUIRE(gflops1 == Approx(2.0 * 4096 * 4096 / 1e6));
    r.vectors = 16;
    r.traffic = {4096.0 * 4096, 4096.0 * 16, 4096.0 * 16};
    REQUIRE(r.gflops() == Approx(16 * gflops1));
    REQUIRE(r.gbps() == Approx(gbps1 + 15 * 2 * 4096 * 4.0 / 1e6));
    REQUIRE(r.cgma() > 15 * cgma1);  // 16 multiply-adds an element of A, loaded once
}

TEST_CASE("step 16: intensity grows with k, as 2k/s flops a byte for a large square matrix", "[step16]") {
    double last = 0;
    for (int k : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
        const double f = several::model_intensity(16384, 16384, k, Precision::f32);
        const double b = several::model_intensity(16384, 16384, k, Precision::bf16);
        REQUIRE(f > last);
        last = f;
        REQUIRE(f == Approx(2.0 * k / 4).epsilon(0.05));  // X and Y are a few percent of the bytes at k = 256
        REQUIRE(b == Approx(2.0 * k / 2).epsilon(0.1));
    }
    // One vector in float: 2 flops for each 4-byte element of A, half a flop a byte.
    REQUIRE(several::model_intensity(8192, 8192, 1, Precision::f32) == Approx(0.5).epsilon(0.001));
}

TEST_CASE("step 16: the compute peaks from device facts match the datasheets", "[step16]") {
    // H100 SXM: 132 SMs, 1980 MHz: 66.9 TFLOP/s FP32; bf16 dense 989 TFLOP/s at 1830 MHz.
    REQUIRE(several::fma_peak_gflops(132, 1980000, 9, 0) == Approx(66908).epsilon(0.001));
    REQUIRE(several::tensor_peak_gflops(132, 1830000, 9, 0) == Approx(989400).epsilon(0.001));
    // A100 SXM: 108 SMs, 1410 MHz: 19.5 TFLOP/s FP32, 312 TFLOP/s bf16.
    REQUIRE(several::fma_peak_gflops(108, 1410000, 8, 0) == Approx(19492).epsilon(0.001));
    REQUIRE(several::tensor_peak_gflops(108, 1410000, 8, 0) == Approx(311869).epsilon(0.001));
    REQUIRE(several::tensor_peak_gflops(40, 1590000, 7, 5) == 0);  // no bf16 MMA before 8.0
}

TEST_CASE("step 16: the roofline is the lower of the memory and the compute roof", "[step16]") {
    const double ceiling = 3100, fma = 66908, tensor = 1070000;
    REQUIRE(several::roof_gflops(ceiling, 0.5, fma) == Approx(1550));   // one vector: memory-bound
    REQUIRE(several::roof_gflops(ceiling, 100.0, fma) == Approx(fma));  // far right: compute-bound
    REQUIRE(several::ridge_intensity(ceiling, fma) == Approx(21.58).epsilon(0.001));
    // Where k meets the ridge on a large square matrix: about 43 in float on FP32 FMA, about 22 in
    // bf16 on FP32 FMA, and past 300 in bf16 on the tensor cores (beyond the step's 256).
    const auto ridge_k = [&](Precision p, double peak) {
        for (int k = 1; k <= 1024; ++k)
            if (ceiling * several::model_intensity(16384, 16384, k, p) >= peak) return k;
        return 0;
    };
    REQUIRE(ridge_k(Precision::f32, fma) == Approx(43).margin(2));
    REQUIRE(ridge_k(Precision::bf16, fma) == Approx(22).margin(1));
    REQUIRE(ridge_k(Precision::bf16, tensor) > several::kMaxVectors);
}

TEST_CASE("step 16: the plans cover every row, column and vector once", "[step16]") {
    for (Layout layout : {Layout::row, Layout::col})
        for (std::int64_t m : {1, 31, 33, 4097, 1000000})
            for (std::int64_t n : {1, 13, 4097, 3000000})
                for (int k : {1, 2, 3, 7, 16, 17, 64, 256}) {
                    const int g = several::group_for(several::Kernel::register_blocked, k);
                    const several::Plan p = several::plan_register_blocked(m, n, k, layout, g, 132);
                    INFO(m << " x " << n << ", k " << k << ", " << gemv::layout_word(layout));
                    const std::int64_t rows_per_block =
                        layout == Layout::col ? p.threads * p.rows_per_warp : p.threads / 32 * p.rows_per_warp;
                    REQUIRE(p.blocks * rows_per_block >= m);
                    REQUIRE((p.blocks - 1) * rows_per_block < m);
                    REQUIRE(std::int64_t(p.slices) * p.per >= n);
                    REQUIRE(std::int64_t(p.slices - 1) * p.per < n);
                    REQUIRE(p.groups * p.group >= k);
                    REQUIRE((p.groups - 1) * p.group < k);
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
                        covers(several::plan_tensor_staged(m, n, k, layout, g8, 132, blocks_per_sm),
                               several::kStagedRows, several::kStagedCols);
                        covers(several::plan_fma_staged(m, n, k, layout, g8, 132, blocks_per_sm), several::kFmaRows,
                               several::kFmaCols);
                    }
                }
    REQUIRE_THROWS_AS(several::plan_register_blocked(10, 10, 0, Layout::row, 1, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_register_blocked(10, 10, 257, Layout::row, 16, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_register_blocked(10, 10, 4, Layout::row, 3, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_tensor_cores(10, 10, 4, Layout::row, 12, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_tensor_staged(10, 10, 4, Layout::row, 12, 132, 2), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_fma_staged(10, 10, 4, Layout::row, 16 + 1, 132, 2), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_fma_staged(10, 10, 0, Layout::col, 8, 132, 2), gemv::UsageError);
}

TEST_CASE("step 16: the staged kernel's slices fill whole waves of blocks", "[step16]") {
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
    REQUIRE(several::traffic_of(packed, 12345, 43483, 64, Layout::col).x_elems ==
            (several::div_up(12345, several::kStagedRows) + 2) * 43483.0 * 64);
}

TEST_CASE("step 16: float takes the staged FMA kernel where it pays, the register-blocked one elsewhere", "[step16]") {
    const auto kernel = [](std::int64_t m, std::int64_t n, int k, Layout layout) {
        return several::choose(Precision::f32, m, n, k, layout, 9).kernel;
    };
    for (int k : {1, 2, 3, 4, 15, 16, 17, 64, 256}) {
        INFO("k " << k);
        // Column-major from 4 vectors, row-major (its tile transposed) from 16, and from 4 with
        // fewer than 64 columns.
        REQUIRE((kernel(4096, 4096, k, Layout::col) == several::Kernel::fma_staged) == (k >= 4));
        REQUIRE((kernel(4096, 4096, k, Layout::row) == several::Kernel::fma_staged) == (k >= 16));
        REQUIRE((kernel(1 << 22, 33, k, Layout::row) == several::Kernel::fma_staged) == (k >= 4));
        REQUIRE((kernel(1 << 22, 64, k, Layout::row) == several::Kernel::fma_staged) == (k >= 16));
        // A quarter of a block's rows at least; in column-major a chunk's columns.
        REQUIRE(kernel(several::kFmaRows / 4 - 1, 1 << 20, k, Layout::col) == several::Kernel::register_blocked);
        REQUIRE(kernel(several::kFmaRows / 4 - 1, 1 << 20, k, Layout::row) == several::Kernel::register_blocked);
        REQUIRE(kernel(1 << 20, several::kFmaCols - 1, k, Layout::col) == several::Kernel::register_blocked);
        const several::Choice c = several::choose(Precision::f32, 4096, 4096, k, Layout::col, 9);
        REQUIRE(c.group == several::group_for(c.kernel, k));
    }
    // Its copies (cp.async) need compute capability 8.0.
    REQUIRE(several::choose(Precision::f32, 4096, 4096, 64, Layout::col, 7).kernel ==
            several::Kernel::register_blocked);
}

TEST_CASE("step 16: the staged FMA kernel packs X where n is not a multiple of 4 and X is small", "[step16]") {
    REQUIRE(several::plan_fma_staged(12345, 43483, 16, Layout::col, 16, 132, 2).pack_x);
    REQUIRE_FALSE(several::plan_fma_staged(12345, 43484, 16, Layout::col, 16, 132, 2).pack_x);
    REQUIRE_FALSE(several::plan_fma_staged(100, 43483, 16, Layout::col, 16, 132, 2).pack_x);  // m < 16·k
    const several::Plan packed = several::plan_fma_staged(12345, 43483, 64, Layout::row, 64, 132, 2);
    REQUIRE(packed.pack_x);
    REQUIRE(several::traffic_of(packed, 12345, 43483, 64, Layout::row).x_elems ==
            (several::div_up(12345, several::kFmaRows) + 2) * 43483.0 * 64);
}

TEST_CASE("step 16: few rows are sliced along the columns; many rows are not", "[step16]") {
    REQUIRE(several::plan_register_blocked(3, 3000000, 1, Layout::row, 1, 132).slices > 1);
    REQUIRE(several::plan_register_blocked(3, 3000000, 1, Layout::col, 1, 132).slices > 1);
    REQUIRE(several::plan_register_blocked(1000000, 3000, 8, Layout::col, 8, 132).slices == 1);
    REQUIRE(several::plan_tensor_cores(16, 1000000, 16, Layout::row, 16, 132).slices > 1);
    REQUIRE(several::plan_register_blocked(3, 100, 1, Layout::row, 1, 132).slices == 1);  // too short to split
    // 33 rows are two warps of a block of eight (the other six idle): enough slices for the warps
    // with rows to fill the GPU, 1024 columns each at least.
    const several::Plan wide = several::plan_register_blocked(33, 4194301, 1, Layout::col, 1, 132);
    REQUIRE(wide.slices >= 1024);
    REQUIRE(wide.per >= 1024);
    REQUIRE(2 * wide.slices <= 32 * 132 + 2);
}

TEST_CASE("step 16: CGMA grows with the group of vectors a thread keeps", "[step16]") {
    double last = 0;
    for (int g : several::kRegisterGroups) {
        const several::Plan p = several::plan_register_blocked(16384, 16384, g, Layout::col, g, 132);
        gemv::Result r;
        r.shape = {16384, 16384, Layout::col};
        r.vectors = g;
        r.traffic = several::traffic_of(p, 16384, 16384, g, Layout::col);
        INFO("group " << g << ": CGMA " << r.cgma());
        REQUIRE(r.cgma() > last);
        last = r.cgma();
    }
    // With 256 vectors in groups of 16, A is read 16 times: CGMA stays below 16.
    const several::Plan p = several::plan_register_blocked(16384, 16384, 256, Layout::col, 16, 132);
    REQUIRE(p.groups == 16);
    gemv::Result r;
    r.shape = {16384, 16384, Layout::col};
    r.vectors = 256;
    r.traffic = several::traffic_of(p, 16384, 16384, 256, Layout::col);
    REQUIRE(r.cgma() < 16);
    REQUIRE(r.cgma() > 8);
}

TEST_CASE("step 16: the chooser takes tensor cores for bf16 where they pay, FP32 FMA otherwise", "[step16]") {
    for (int k : {1, 2, 3, 7, 8, 15, 16, 17, 33, 64, 256})
        for (auto layout : {Layout::row, Layout::col}) {
            const several::Choice c = several::choose(Precision::bf16, 4096, 4096, k, layout, 9);
            INFO("k " << k << ", " << gemv::layout_word(layout));
            REQUIRE(c.kernel == several::Kernel::tensor_staged);
            REQUIRE(c.group == several::group_for(several::Kernel::tensor_staged, k));
            REQUIRE(several::choose(Precision::bf16, 4096, 4096, k, layout, 7).kernel ==
                    several::Kernel::register_blocked);
        }
    // Column-major with too few columns for a chunk but a step's: the tensor cores from global
    // memory below 8 vectors, staged from 8; row-major, staged whatever n.
    REQUIRE(several::choose(Precision::bf16, 4096, 40, 4, Layout::col, 9).kernel == several::Kernel::tensor_cores);
    REQUIRE(several::choose(Precision::bf16, 4096, 40, 8, Layout::col, 9).kernel == several::Kernel::tensor_staged);
    REQUIRE(several::choose(Precision::bf16, 1 << 26, 3, 2, Layout::row, 9).kernel == several::Kernel::tensor_staged);
    // Column-major with fewer than 16 rows: staged from 8 vectors.
    REQUIRE(several::choose(Precision::bf16, 3, 1 << 26, 4, Layout::col, 9).kernel ==
            several::Kernel::register_blocked);
    REQUIRE(several::choose(Precision::bf16, 3, 1 << 26, 8, Layout::col, 9).kernel == several::Kernel::tensor_staged);
    // One vector: staged only where both sides are long.
    REQUIRE(several::choose(Precision::bf16, 1000, 1 << 20, 1, Layout::col, 9).kernel ==
            several::Kernel::register_blocked);
    REQUIRE(several::choose(Precision::bf16, 1 << 20, 1000, 1, Layout::row, 9).kernel ==
            several::Kernel::register_blocked);
    // Row-major with few rows: staged from k = 16 with 16 rows, from k = 32 with any.
    REQUIRE(several::choose(Precision::bf16, 33, 1 << 22, 8, Layout::row, 9).kernel ==
            several::Kernel::register_blocked);
    REQUIRE(several::choose(Precision::bf16, 33, 1 << 22, 16, Layout::row, 9).kernel == several::Kernel::tensor_staged);
    REQUIRE(several::choose(Precision::bf16, 3, 1 << 22, 16, Layout::row, 9).kernel ==
            several::Kernel::register_blocked);
    REQUIRE(several::choose(Precision::bf16, 3, 1 << 22, 32, Layout::row, 9).kernel == several::Kernel::tensor_staged);
    // Too few columns for a step: the register-blocked kernel.
    REQUIRE(several::choose(Precision::bf16, 1 << 26, 3, 8, Layout::col, 9).kernel ==
            several::Kernel::register_blocked);
    REQUIRE_FALSE(several::tensor_cores_take_float);
    // The roof each kernel is held to: the staged FMA kernel is FP32 FMA, like the register-blocked one.
    REQUIRE(several::on_tensor_cores(several::Kernel::tensor_cores));
    REQUIRE(several::on_tensor_cores(several::Kernel::tensor_staged));
    REQUIRE_FALSE(several::on_tensor_cores(several::Kernel::fma_staged));
    REQUIRE_FALSE(several::on_tensor_cores(several::Kernel::register_blocked));
    REQUIRE(several::group_for(several::Kernel::register_blocked, 3) == 4);
    REQUIRE(several::group_for(several::Kernel::register_blocked, 17) == 16);
    REQUIRE(several::group_for(several::Kernel::tensor_cores, 3) == 8);
    REQUIRE(several::group_for(several::Kernel::tensor_cores, 17) == 32);
    REQUIRE(several::group_for(several::Kernel::tensor_cores, 256) == 64);
}
