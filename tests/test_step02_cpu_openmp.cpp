// Step 02: both OpenMP schedules are right on every awkward shape, in both precisions.
#include "gemv_cpu_openmp.hpp"
#include "support.hpp"

TEMPLATE_TEST_CASE("step 02: the dynamic-schedule loop computes y = A*x on every awkward shape", "[step02]", float,
                   double) {
    for (const auto& d : gemv_test::awkward_shapes()) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::row};
        const auto p = gemv::make_problem<TestType>(shape, 11);
        const auto v = gemv::run_and_verify_cpu<TestType>(
            p, [&](const TestType* A, const TestType* x, TestType* y) { gemv_omp_dynamic(A, x, y, d.m, d.n); });
        gemv_test::require_verified(
            v, "dynamic: " + gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())));
    }
}

TEMPLATE_TEST_CASE("step 02: the static-schedule loop computes y = A*x on every awkward shape", "[step02]", float,
                   double) {
    for (const auto& d : gemv_test::awkward_shapes()) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::row};
        const auto p = gemv::make_problem<TestType>(shape, 13);
        const auto v = gemv::run_and_verify_cpu<TestType>(
            p, [&](const TestType* A, const TestType* x, TestType* y) { gemv_omp_static(A, x, y, d.m, d.n); });
        gemv_test::require_verified(
            v, "static: " + gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())));
    }
}

TEMPLATE_TEST_CASE("step 02: the four-rows-a-pass loop computes y = A*x on every awkward shape", "[step02]", float,
                   double) {
    for (const auto& d : gemv_test::awkward_shapes()) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::row};
        const auto p = gemv::make_problem<TestType>(shape, 19);
        const auto v = gemv::run_and_verify_cpu<TestType>(
            p, [&](const TestType* A, const TestType* x, TestType* y) { gemv_omp_static_4rows(A, x, y, d.m, d.n); });
        gemv_test::require_verified(
            v,
            "static, 4 rows: " + gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())));
    }
}
