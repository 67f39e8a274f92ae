// Step 03: one thread per row is right on every awkward shape, in both precisions, with block
// sizes that do not divide m; sizes past 32-bit indexing are refused, not wrapped.
#include "gemv_naive.cuh"
#include "support.hpp"

TEMPLATE_TEST_CASE("step 03: one thread per row computes y = A*x on every awkward shape", "[step03][gpu]", float,
                   double) {
    for (int block : {256, 96}) {
        for (const auto& d : gemv_test::awkward_shapes()) {
            const gemv::Shape shape{d.m, d.n, gemv::Layout::row};
            const auto p = gemv::make_problem<TestType>(shape, 17);
            const auto launch = gemv_naive_launch<TestType>(d.m, d.n, block);
            const auto v = gemv::run_and_verify_gpu<TestType>(
                p, [&](const TestType* A, const TestType* x, TestType* y, cudaStream_t s) {
                    gemv_naive(A, x, y, d.m, d.n, launch, s);
                });
            gemv_test::require_verified(
                v, gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())) + ", block " +
                       std::to_string(block));
        }
    }
}

TEST_CASE("step 03: a matrix past 2^31 elements is refused with a message", "[step03][gpu]") {
    REQUIRE_THROWS_AS(gemv_naive_launch<float>(50000, 50000, 256), gemv::UsageError);
}
