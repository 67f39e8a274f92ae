// Step 05: x through shared memory is right on every awkward shape, in both precisions, with
// block sizes that divide neither m nor n (a partial last block, a partial last chunk of x, and
// rows past m that still take part in the loads and barriers); sizes past 32-bit indexing are
// refused; the traffic model counts x once per block.
#include <climits>

#include "gemv_shared_x.cuh"
#include "support.hpp"

TEMPLATE_TEST_CASE("step 05: x in shared memory computes y = A*x on every awkward shape", "[step05][gpu]", float,
                   double) {
    for (int block : {256, 96, 32, 1024}) {
        for (const auto& d : gemv_test::awkward_shapes()) {
            const gemv::Shape shape{d.m, d.n, gemv::Layout::col};
            const auto p = gemv::make_problem<TestType>(shape, 17);
            const auto launch = gemv_shared_x_launch<TestType>(d.m, d.n, block);
            const auto v = gemv::run_and_verify_gpu<TestType>(
                p, [&](const TestType* A, const TestType* x, TestType* y, cudaStream_t s) {
                    gemv_shared_x(A, x, y, d.m, d.n, launch, s);
                });
            gemv_test::require_verified(
                v, gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())) + ", block " +
                       std::to_string(block));
        }
    }
}

TEST_CASE("step 05: one chunk of x per block in shared memory, x counted once per block", "[step05][gpu]") {
    const auto launch = gemv_shared_x_launch<double>(1000, 300, 96);
    REQUIRE(launch.grid.x == 11);  // ceil(1000 / 96)
    REQUIRE(launch.dynamic_shared == 96 * sizeof(double));
    const gemv::Traffic t = gemv_shared_x_traffic(1000, 300, launch);
    REQUIRE(t.a_elems == 1000.0 * 300);
    REQUIRE(t.x_elems == 300.0 * 11);
    REQUIRE(t.y_elems == 1000.0);
}

TEST_CASE("step 05: sizes past 32-bit indexing are refused with a message", "[step05][gpu]") {
    // (base + k) * m + row past 2^31 - 1.
    REQUIRE_THROWS_AS(gemv_shared_x_launch<float>(50000, 50000, 256), gemv::UsageError);
    // A fits, but the last block's thread indices, or the last chunk's x indices, would not.
    REQUIRE_THROWS_AS(gemv_shared_x_launch<float>(INT_MAX, 1, 256), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_shared_x_launch<float>(1, INT_MAX, 256), gemv::UsageError);
    REQUIRE_NOTHROW(gemv_shared_x_launch<float>(1, INT_MAX - 255, 256));
    REQUIRE_THROWS_AS(gemv_shared_x_launch<float>(1000, 1000, 2000), gemv::UsageError);
}
