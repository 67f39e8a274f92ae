// Step 01: the scalar loop is right on every awkward shape, in both precisions.
#include "gemv_cpu_loop.hpp"
#include "support.hpp"

TEMPLATE_TEST_CASE("step 01: the scalar loop computes y = A*x on every awkward shape", "[step01]", float, double) {
    for (const auto& d : gemv_test::awkward_shapes()) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::row};
        const auto p = gemv::make_problem<TestType>(shape, 7);
        const auto v = gemv::run_and_verify_cpu<TestType>(
            p, [&](const TestType* A, const TestType* x, TestType* y) { gemv_cpu_loop(A, x, y, d.m, d.n); });
        gemv_test::require_verified(
            v, gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())));
    }
}
