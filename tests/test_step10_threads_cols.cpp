// Step 10: threads laid along the columns are right on every awkward shape, in both precisions,
// with BLOCKSIZE and WORKSIZE_n that divide neither m nor n: few rows and many lanes, rows that
// leave threads without a row (BLOCKSIZE not a multiple of m), m just below, at and above
// BLOCKSIZE (one lane, step 08's layout), and a folded grid.y. A second launch on the same y is
// right again (the zeroing is part of the product); the layout and the traffic model are checked.
#include <vector>

#include "gemv_threads_cols.cuh"
#include "support.hpp"

namespace {

struct Params {
    int block_size, worksize_n;
};

template <class T>
void require_threads_cols(const gemv::HostProblem<T>& p, const Params& q) {
    const std::int64_t m = p.shape.m, n = p.shape.n;
    const auto launch = gemv_threads_cols_launch<T>(m, n, q.block_size, q.worksize_n);
    const auto v = gemv::run_and_verify_gpu<T>(p, [&](const T* A, const T* x, T* y, cudaStream_t s) {
        gemv_threads_cols(A, x, y, m, n, q.worksize_n, launch, s);
    });
    gemv_test::require_verified(
        v, gemv_test::describe({m, n}, gemv::Layout::col, gemv::to_string(gemv::precision_of<T>())) + ", BLOCKSIZE " +
               std::to_string(q.block_size) + ", WORKSIZE_n " + std::to_string(q.worksize_n));
}

}  // namespace

TEMPLATE_TEST_CASE("step 10: threads along the columns compute y = A*x on every awkward shape", "[step10][gpu]", float,
                   double) {
    for (const auto& d : gemv_test::awkward_shapes()) {
        const auto p = gemv::make_problem<TestType>({d.m, d.n, gemv::Layout::col}, 17);
        for (const Params q : {Params{32, 1}, Params{96, 3}, Params{256, 8}, Params{1024, 2}})
            require_threads_cols(p, q);
    }
}

TEMPLATE_TEST_CASE("step 10: every number of rows around BLOCKSIZE, lanes full or not", "[step10][gpu]", float,
                   double) {
    for (const std::int64_t m : {2, 3, 5, 17, 31, 32, 33, 47, 48, 49, 95, 96, 97, 200, 255, 256, 257, 1000}) {
        const auto p = gemv::make_problem<TestType>({m, 5003, gemv::Layout::col}, 19);
        for (const Params q : {Params{96, 3}, Params{256, 1}}) require_threads_cols(p, q);
    }
}

TEMPLATE_TEST_CASE("step 10: a second launch on the same y is right again", "[step10][gpu]", float, double) {
    for (const gemv_test::Dims d : {gemv_test::Dims{7, 100000}, gemv_test::Dims{3, 1000000}}) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::col};
        const auto p = gemv::make_problem<TestType>(shape, 23);
        const gemv::Reference ref = gemv::compute_reference(p.A.data(), p.x.data(), shape);
        gemv::DeviceArray<TestType> A(p.A.size()), x(p.x.size()), y(static_cast<std::size_t>(d.m));
        A.upload(p.A.data());
        x.upload(p.x.data());
        for (const Params q : {Params{32, 1}, Params{96, 3}, Params{256, 8}}) {
            const auto launch = gemv_threads_cols_launch<TestType>(d.m, d.n, q.block_size, q.worksize_n);
            y.poison();
            std::vector<TestType> out(y.size());
            for (const char* which : {"first launch", "second launch on the same y"}) {
                gemv_threads_cols(A.data(), x.data(), y.data(), d.m, d.n, q.worksize_n, launch, 0);
                GEMV_CUDA_CHECK(cudaDeviceSynchronize());
                y.download(out.data());
                gemv_test::require_verified(
                    gemv::verify(out.data(), ref, d.n, gemv::RunsOn::gpu),
                    gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>())) +
                        ", BLOCKSIZE " + std::to_string(q.block_size) + ", " + which);
            }
        }
    }
}

TEST_CASE("step 10: the block's threads along the columns, Sørensen's grid, traffic as the kernel does it",
          "[step10][gpu]") {
    // 3 rows in BLOCKSIZE 256: 85 lanes of 3 threads, one thread left without a row.
    REQUIRE(gemv_threads_cols_lanes(3, 256).rows == 3);
    REQUIRE(gemv_threads_cols_lanes(3, 256).lanes == 85);
    REQUIRE(gemv_threads_cols_lanes(1, 32).lanes == 32);
    REQUIRE(gemv_threads_cols_lanes(200, 256).lanes == 1);  // above BLOCKSIZE / 2: one lane, 56 threads idle
    REQUIRE(gemv_threads_cols_lanes(1000, 256).rows == 256);
    REQUIRE(gemv_threads_cols_lanes(1000, 256).lanes == 1);  // step 08's layout
    // GRIDSIZE_n = ceil(10^6 / (256 * 8)) = 489.
    const auto l = gemv_threads_cols_launch<float>(3, 1000000, 256, 8);
    REQUIRE(l.grid.x == 1);
    REQUIRE(l.grid.y == 489);
    REQUIRE(l.dynamic_shared == 256 * sizeof(float));
    const gemv::Traffic t = gemv_threads_cols_traffic(3, 1000000, l);
    REQUIRE(t.a_elems == 3.0 * 1000000);
    REQUIRE(t.x_elems == 1000000.0);
    REQUIRE(t.y_elems == 3.0 + 2 * 3.0 * 85 * 489);  // zeroing, then one atomicAdd per working thread
    // m >= BLOCKSIZE: GRIDSIZE_m = ceil(1000 / 96) blocks of 96 rows.
    REQUIRE(gemv_threads_cols_launch<double>(1000, 3000, 96, 3).grid.x == 11);
}

TEST_CASE("step 10: GRIDSIZE_n past grid.y's limit folds; bad parameters are refused", "[step10][gpu]") {
    REQUIRE(gemv_threads_cols_launch<float>(3, 3000000, 32, 1).grid.y == kMaxGridYCols);
    REQUIRE_NOTHROW(gemv_threads_cols_launch<float>(4, 1000000000, 256, 4));  // 4·10^9 elements: 64-bit indices
    REQUIRE_THROWS_AS(gemv_threads_cols_launch<float>(10, 1000, 2000, 1), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_threads_cols_launch<float>(10, 1000, 256, 0), gemv::UsageError);
}
