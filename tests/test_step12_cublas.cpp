// Step 12: cuBLAS called right for both layouts (op N on column-major A, op T on row-major A),
// in both precisions, on every awkward shape, with one handle reused across calls; sizes past
// cuBLAS's int arguments are refused.
#include <climits>

#include "gemv_cublas.hpp"
#include "support.hpp"

TEMPLATE_TEST_CASE("step 12: cuBLAS computes y = A*x on every awkward shape, in both layouts", "[step12][gpu]", float,
                   double) {
    CublasHandle handle;
    for (gemv::Layout layout : {gemv::Layout::col, gemv::Layout::row}) {
        for (const auto& d : gemv_test::awkward_shapes()) {
            const gemv::Shape shape{d.m, d.n, layout};
            const auto p = gemv::make_problem<TestType>(shape, 17);
            const auto v = gemv::run_and_verify_gpu<TestType>(
                p, [&](const TestType* A, const TestType* x, TestType* y, cudaStream_t s) {
                    gemv_cublas(handle, A, x, y, d.m, d.n, layout, s);
                });
            gemv_test::require_verified(
                v, gemv_test::describe(d, layout, gemv::to_string(gemv::precision_of<TestType>())));
        }
    }
}

TEST_CASE("step 12: sizes past cuBLAS's int arguments are refused with a message", "[step12][gpu]") {
    REQUIRE_THROWS_AS(gemv_cublas_require_int_sizes(std::int64_t{INT_MAX} + 1, 1), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_cublas_require_int_sizes(1, std::int64_t{INT_MAX} + 1), gemv::UsageError);
    REQUIRE_NOTHROW(gemv_cublas_require_int_sizes(INT_MAX, INT_MAX));
}
