// Step 16, without a GPU: the byte and flop model for k vectors, CGMA against k, the roofline and
// the FP32 peak from device facts, and the register-blocked plan's edges.
#include <cmath>

#include "catch_compat.hpp"
#include "cli.hpp"
#include "report.hpp"
#include "several_vectors.hpp"

namespace several = gemv::several;

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

TEST_CASE("step 16: the FP32 peak from device facts matches the datasheets", "[step16]") {
    // H100 SXM: 132 SMs, 1980 MHz: 66.9 TFLOP/s FP32; A100 SXM: 108 SMs, 1410 MHz: 19.5 TFLOP/s.
    REQUIRE(several::fma_peak_gflops(132, 1980000, 9, 0) == Approx(66908).epsilon(0.001));
    REQUIRE(several::fma_peak_gflops(108, 1410000, 8, 0) == Approx(19492).epsilon(0.001));
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
                    const int g = several::register_group_for(k);
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
                }
    REQUIRE_THROWS_AS(several::plan_register_blocked(10, 10, 0, Layout::row, 1, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_register_blocked(10, 10, 257, Layout::row, 16, 132), gemv::UsageError);
    REQUIRE_THROWS_AS(several::plan_register_blocked(10, 10, 4, Layout::row, 3, 132), gemv::UsageError);
}

TEST_CASE("step 16: few rows are sliced along the columns; many rows are not", "[step16]") {
    REQUIRE(several::plan_register_blocked(3, 3000000, 1, Layout::row, 1, 132).slices > 1);
    REQUIRE(several::plan_register_blocked(3, 3000000, 1, Layout::col, 1, 132).slices > 1);
    REQUIRE(several::plan_register_blocked(1000000, 3000, 8, Layout::col, 8, 132).slices == 1);
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

TEST_CASE("step 16: a group no kernel was compiled for is refused, not mapped to another", "[step16]") {
    const auto group_of = [](int group) {
        return several::with_compiled(several::RegisterGroups{}, "vectors a thread", group,
                                      [](auto g) { return decltype(g)::value; });
    };
    for (int g : several::kRegisterGroups) REQUIRE(group_of(g) == g);
    for (int g : {0, 3, 17, 32}) REQUIRE_THROWS_AS(group_of(g), gemv::UsageError);
    REQUIRE_THROWS_WITH(group_of(3), "no kernel compiled for 3 vectors a thread (compiled: 1, 2, 4, 8, 16)");
}
