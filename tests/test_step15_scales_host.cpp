// Step 15's fp8 scales, without a GPU: their values (positive, 2^-8 to 2^4, reproducible, apart), which one
// multiplies a_ij (the last block of a row partial), the traffic they add (1/32 of fp8 A's bytes per block of 128),
// and --scales: its words, its default, and its refusals (bf16, fp16, column-major A) before any device.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "gemv_low_precision.cuh"
#include "step15_options.hpp"

namespace {

using gemv::Scales;

// The mode a command line gives, or the refusal's message ("" where it is taken).
std::string refusal(std::vector<const char*> args, Scales* mode = nullptr) {
    args.insert(args.begin(), "step15_low_precision");
    try {
        const Scales s = step15_scales(gemv::parse_options(int(args.size()), args.data(), step15_spec()));
        if (mode) *mode = s;
        return "";
    } catch (const gemv::UsageError& e) {
        return e.what();
    }
}

}  // namespace

TEST_CASE("step 15: scales are positive, from 2^-8 to 2^4, the same for a seed, and apart", "[step15]") {
    float lo = 1e9f, hi = 0;
    int equal_neighbours = 0;
    for (std::uint64_t k = 0; k < 100000; ++k) {
        const float s = gemv::random_scale(42, k);
        REQUIRE(s >= 0x1.0p-8f);
        REQUIRE(s < 0x1.0p4f);
        REQUIRE(s == gemv::random_scale(42, k));
        lo = std::min(lo, s);
        hi = std::max(hi, s);
        equal_neighbours += s == gemv::random_scale(42, k + 1);
    }
    CHECK(lo < 0x1.0p-7f);  // the whole range is used
    CHECK(hi > 0x1.0p3f);
    CHECK(equal_neighbours == 0);  // a scale read from the next block or row is another number
    CHECK(gemv::random_scale(42, 0) != gemv::random_scale(43, 0));
}

TEST_CASE("step 15: which scale multiplies a_ij, and how many there are", "[step15]") {
    const std::int64_t m = 33, n = 128 * 3 + 37;  // four blocks a row, the last of 37 columns
    CHECK(gemv::scale_blocks(n) == 4);
    CHECK(gemv::scale_blocks(100) == 1);
    CHECK(gemv::scale_blocks(128) == 1);
    CHECK(gemv::scale_blocks(129) == 2);
    CHECK(gemv::scale_count(Scales::none, m, n) == 0);
    CHECK(gemv::scale_count(Scales::tensor, m, n) == 1);
    CHECK(gemv::scale_count(Scales::row, m, n) == m);
    CHECK(gemv::scale_count(Scales::block128, m, n) == m * 4);
    CHECK(gemv::scale_index(Scales::tensor, 7, 300, n) == 0);
    CHECK(gemv::scale_index(Scales::row, 7, 300, n) == 7);
    // Row-major m × ceil(n/128): row i's blocks at 4i .. 4i + 3.
    CHECK(gemv::scale_index(Scales::block128, 0, 0, n) == 0);
    CHECK(gemv::scale_index(Scales::block128, 0, 127, n) == 0);
    CHECK(gemv::scale_index(Scales::block128, 0, 128, n) == 1);
    CHECK(gemv::scale_index(Scales::block128, 2, n - 1, n) == 2 * 4 + 3);  // the partial block
    CHECK(gemv::scale_index(Scales::block128, m - 1, n - 1, n) == gemv::scale_count(Scales::block128, m, n) - 1);
}

TEST_CASE("step 15: the warp per row's traffic counts the scales it reads; block scales are 1/32 of fp8 A",
          "[step15]") {
    const std::int64_t m = 14336, n = 4096;
    const gemv::Traffic none = gemv_warp_per_row_traffic(m, n, Scales::none);
    CHECK(none.scale_elems == 0);
    CHECK(gemv_warp_per_row_traffic(m, n, Scales::tensor).scale_elems == m);  // each row's sum times the one scale
    CHECK(gemv_warp_per_row_traffic(m, n, Scales::row).scale_elems == m);
    const gemv::Traffic block = gemv_warp_per_row_traffic(m, n, Scales::block128);
    CHECK(block.scale_elems == m * (n / 128));
    CHECK(block.scale_elems * sizeof(float) == block.a_elems * 1 / 32);  // fp8: a byte an element of A
    // The intensity counts a scale as 4 bytes, an element of A, x or y as one (fp8's size).
    const double bytes = none.total() * 1 + block.scale_elems * 4;
    CHECK(gemv::intensity(block, m, n, 1) == Approx(2.0 * double(m) * double(n) / bytes));
    CHECK(gemv::cgma(block, m, n) < gemv::cgma(none, m, n));
}

TEST_CASE("step 15: --scales takes none, tensor, row and block128 for fp8 row-major A, and refuses the rest",
          "[step15]") {
    Scales mode = Scales::block128;
    CHECK(refusal({}, &mode).empty());  // bf16 by default, without scales
    CHECK(mode == Scales::none);
    for (Scales s : {Scales::none, Scales::tensor, Scales::row, Scales::block128}) {
        INFO(to_string(s));
        CHECK(refusal({"--precision", "fp8", "--scales", to_string(s)}, &mode).empty());
        CHECK(mode == s);
    }
    CHECK(refusal({"--precision", "fp8", "--layout", "col"}, &mode).empty());
    CHECK(mode == Scales::none);
    CHECK(refusal({"--precision", "fp8", "--scales", "column"}) == "--scales does not take 'column'");
    CHECK(refusal({"--scales", "row"}).find("--scales row is for fp8 weights") == 0);
    CHECK(refusal({"--precision", "fp16", "--scales=block128"}).find("--scales block128 is for fp8 weights") == 0);
    CHECK(refusal({"--precision", "fp8", "--layout", "col", "--scales", "tensor"}) ==
          "--scales tensor needs --layout row: the kernels here that take scales read row-major A");
    CHECK(gemv::usage(step15_spec()).find("none|tensor|row|block128") != std::string::npos);
    // The launcher says the same for bf16 and fp16 before any device is asked for.
    CHECK_THROWS_AS(gemv_warp_per_row_launch<__nv_bfloat16>(33, 256, Scales::row), gemv::UsageError);
    CHECK_THROWS_AS(gemv_warp_per_row_launch<__half>(33, 256, Scales::tensor), gemv::UsageError);
}
