// Step 04: one thread per row of column-major A is right on every awkward shape, in both
// precisions, with block sizes that do not divide m; sizes past 32-bit indexing are refused.
#include <climits>

#include "gemv_coalesced.cuh"
#include "support.hpp"

TEMPLATE_TEST_CASE("step 04: one thread per row of column-major A computes y = A*x on every awkward shape",
                   "[step04][gpu]", float, double) {
    for (int block : {256, 96, 32}) {
        for (const auto& d : gemv_test::awkward_shapes()) {
            const gemv::Shape shape{d.m, d.n, gemv::Layout::col};
            const auto p = gemv::make_problem<TestType>(shape, 17);
            const auto launch = gemv_coalesced_launch<TestType>(d.m, d.n, block);
            const auto v = gemv::run_and_verify_gpu<TestType>(
                p, [&](const TestType* A, const TestType* x, TestType* y, cudaStream_t s) {
                    gemv_coalesced(A, x, y, d.m, d.n, launch, s);
                });
            gemv_test::require_verified(
                v, gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())) + ", block " +
                       std::to_string(block));
        }
    }
}

TEST_CASE("step 04: sizes past 32-bit indexing are refused with a message", "[step04][gpu]") {
    // j * m + row past 2^31 - 1.
    REQUIRE_THROWS_AS(gemv_coalesced_launch<float>(50000, 50000, 256), gemv::UsageError);
    // A fits, but the last block's thread indices would run past 2^31 - 1.
    REQUIRE_THROWS_AS(gemv_coalesced_launch<float>(INT_MAX, 1, 256), gemv::UsageError);
    REQUIRE_NOTHROW(gemv_coalesced_launch<float>(INT_MAX - 255, 1, 256));
    REQUIRE_THROWS_AS(gemv_coalesced_launch<float>(1000, 1000, 0), gemv::UsageError);
}
