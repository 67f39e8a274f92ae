// Step 09: several rows per thread is right on every awkward shape, in both precisions, for every
// compiled WORKSIZE_m and BLOCKSIZE values that divide neither m nor n (a bottom block whose
// threads have some rows past m, a partial last chunk of x); the grid follows Sørensen's formula;
// WORKSIZE_m outside the compiled 1 .. 8 is refused.
#include "gemv_rows_per_thread.cuh"
#include "support.hpp"

TEMPLATE_TEST_CASE("step 09: several rows per thread computes y = A*x on every awkward shape", "[step09][gpu]", float,
                   double) {
    const struct { int block_size, worksize_m; } params[] = {{32, 1}, {96, 3}, {256, 8}, {128, 5}, {32, 8}, {1024, 2}};
    for (const auto& d : gemv_test::awkward_shapes()) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::col};
        const auto p = gemv::make_problem<TestType>(shape, 17);
        for (const auto& q : params) {
            const auto launch = gemv_rows_per_thread_launch<TestType>(d.m, d.n, q.block_size, q.worksize_m);
            const auto v = gemv::run_and_verify_gpu<TestType>(
                p, [&](const TestType* A, const TestType* x, TestType* y, cudaStream_t s) {
                    gemv_rows_per_thread(A, x, y, d.m, d.n, q.worksize_m, launch, s);
                });
            gemv_test::require_verified(
                v, gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())) +
                       ", BLOCKSIZE " + std::to_string(q.block_size) + ", WORKSIZE_m " + std::to_string(q.worksize_m));
        }
    }
}

TEMPLATE_TEST_CASE("step 09: every compiled WORKSIZE_m is right on a tall matrix with a ragged bottom block",
                   "[step09][gpu]", float, double) {
    const gemv::Shape shape{100003, 37, gemv::Layout::col};
    const auto p = gemv::make_problem<TestType>(shape, 29);
    for (int w = 1; w <= kMaxWorksizeM; ++w) {
        const auto launch = gemv_rows_per_thread_launch<TestType>(shape.m, shape.n, 96, w);
        const auto v = gemv::run_and_verify_gpu<TestType>(
            p, [&](const TestType* A, const TestType* x, TestType* y, cudaStream_t s) {
                gemv_rows_per_thread(A, x, y, shape.m, shape.n, w, launch, s);
            });
        gemv_test::require_verified(v, "100003 x 37, BLOCKSIZE 96, WORKSIZE_m " + std::to_string(w));
    }
}

TEST_CASE("step 09: Sørensen's 1-D grid, one chunk of x in shared memory, x counted once per block", "[step09][gpu]") {
    // GRIDSIZE_m = ceil(10000 / (96 * 3)) = 35.
    const auto l = gemv_rows_per_thread_launch<double>(10000, 300, 96, 3);
    REQUIRE(l.grid.x == 35);
    REQUIRE(l.grid.y == 1);
    REQUIRE(l.block.x == 96);
    REQUIRE(l.dynamic_shared == 96 * sizeof(double));
    const gemv::Traffic t = gemv_rows_per_thread_traffic(10000, 300, l);
    REQUIRE(t.a_elems == 10000.0 * 300);
    REQUIRE(t.x_elems == 300.0 * 35);
    REQUIRE(t.y_elems == 10000.0);
    // Each WORKSIZE_m is its own compiled kernel.
    REQUIRE(gemv_rows_per_thread_launch<double>(10000, 300, 96, 4).kernel != l.kernel);
}

TEST_CASE("step 09: WORKSIZE_m outside 1 .. 8 and bad block sizes are refused; 64-bit sizes are not", "[step09][gpu]") {
    REQUIRE_THROWS_AS(gemv_rows_per_thread_launch<float>(1000, 10, 128, 0), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_rows_per_thread_launch<float>(1000, 10, 128, kMaxWorksizeM + 1), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_rows_per_thread_launch<float>(1000, 10, 2000, 2), gemv::UsageError);
    REQUIRE_NOTHROW(gemv_rows_per_thread_launch<float>(3000000000LL, 2, 256, 8));  // 6·10^9 elements
}
