// Step 06: every way of combining a row's partial sums is right on every awkward shape, in both
// precisions, with block sizes, rows per block, threads per row and p that do not divide m or n;
// parameters a kernel cannot take are refused with a message, never run wrong.
#include <functional>
#include <memory>
#include <vector>

#include "gemv_shared_reduction.cuh"
#include "support.hpp"

namespace {

// Runs the suite through one kernel: make(shape) gives the launcher of y = A*x for that shape.
template <class T, class Make>
void check_suite(const std::string& what, Make make) {
    for (const auto& d : gemv_test::awkward_shapes()) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::row};
        const auto p = gemv::make_problem<T>(shape, 17);
        const auto v = gemv::run_and_verify_gpu<T>(p, make(d));
        gemv_test::require_verified(
            v, gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<T>())) + ", " + what);
    }
}

// Rows T per block and threads Z per row of the large and shuffle variants.
struct RowsByThreads {
    int rows, threads;
};

template <class T>
using Kernel = std::function<void(const T*, const T*, T*, cudaStream_t)>;

}  // namespace

TEMPLATE_TEST_CASE("step 06: reduce, one block per row, on every awkward shape", "[step06][gpu]", float, double) {
    using T = TestType;
    // 256 is the default; 100 and 33 are not powers of two, so the tree's guard matters; 1 has no tree.
    for (int block : {256, 100, 33, 1}) {
        check_suite<T>("reduce, block " + std::to_string(block), [&](const gemv_test::Dims& d) -> Kernel<T> {
            const auto l = gemv_reduce_launch<T>(d.m, d.n, block);
            return [=](const T* A, const T* x, T* y, cudaStream_t s) { gemv_reduce(A, x, y, d.m, d.n, l, s); };
        });
    }
}

TEMPLATE_TEST_CASE("step 06: large, T rows x Z threads per block, on every awkward shape", "[step06][gpu]", float,
                   double) {
    using T = TestType;
    // (T, Z): the defaults; rows per block that divide few m and Z not powers of two; one thread per row.
    for (const RowsByThreads b : std::vector<RowsByThreads>{{8, 32}, {3, 24}, {5, 7}, {64, 1}, {1, 1024}}) {
        const int rows = b.rows, threads = b.threads;
        check_suite<T>("large, T " + std::to_string(rows) + " x Z " + std::to_string(threads),
                       [&](const gemv_test::Dims& d) -> Kernel<T> {
                           const auto l = gemv_large_launch<T>(d.m, d.n, rows, threads);
                           return [=](const T* A, const T* x, T* y, cudaStream_t s) {
                               gemv_large(A, x, y, d.m, d.n, l, s);
                           };
                       });
    }
}

TEMPLATE_TEST_CASE("step 06: shuffle, a row's threads in one warp, on every awkward shape", "[step06][gpu]", float,
                   double) {
    using T = TestType;
    // T x Z of 24 and 20 leave the block's last warp partial; Z = 1 has no shuffle at all.
    for (const RowsByThreads b : std::vector<RowsByThreads>{{8, 32}, {3, 8}, {5, 4}, {7, 1}, {32, 32}}) {
        const int rows = b.rows, threads = b.threads;
        check_suite<T>("shuffle, T " + std::to_string(rows) + " x Z " + std::to_string(threads),
                       [&](const gemv_test::Dims& d) -> Kernel<T> {
                           const auto l = gemv_shuffle_launch<T>(d.m, d.n, rows, threads);
                           return [=](const T* A, const T* x, T* y, cudaStream_t s) {
                               gemv_shuffle(A, x, y, d.m, d.n, l, s);
                           };
                       });
    }
}

TEMPLATE_TEST_CASE("step 06: two_pass, p partials per row in global memory, on every awkward shape", "[step06][gpu]",
                   float, double) {
    using T = TestType;
    // p = 7 divides nothing here; p = 100 exceeds n for the narrow shapes (idle threads write zeros).
    for (int p : {16, 7, 100, 1}) {
        check_suite<T>("two_pass, p " + std::to_string(p), [&](const gemv_test::Dims& d) -> Kernel<T> {
            const auto l = gemv_two_pass_launch<T>(d.m, d.n, p);
            // NaN until pass 1 writes it, so a partial never written shows in y as an unwritten row.
            auto partial =
                std::make_shared<gemv::DeviceArray<T>>(static_cast<std::size_t>(gemv_two_pass_workspace(d.m, p)));
            partial->poison();
            return [=](const T* A, const T* x, T* y, cudaStream_t s) {
                gemv_two_pass(A, x, y, partial->data(), d.m, d.n, p, l, s);
            };
        });
    }
}

TEST_CASE("step 06: parameters a kernel cannot take are refused with a message", "[step06][gpu]") {
    // More than 1024 threads in a block.
    REQUIRE_THROWS_AS(gemv_reduce_launch<float>(100, 100, 2048), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_large_launch<float>(100, 100, 33, 32), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_shuffle_launch<double>(100, 100, 64, 32), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_two_pass_launch<float>(100, 100, 2048), gemv::UsageError);
    // A row's lanes must be an aligned power-of-two segment of one warp for the shuffle.
    REQUIRE_THROWS_AS(gemv_shuffle_launch<float>(100, 100, 4, 24), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_shuffle_launch<float>(100, 100, 4, 64), gemv::UsageError);
    REQUIRE_NOTHROW(gemv_large_launch<float>(100, 100, 4, 24));
    // Past 32-bit indexing: A itself, and the two_pass workspace m*p.
    REQUIRE_THROWS_AS(gemv_reduce_launch<float>(50000, 50000, 256), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_large_launch<float>(50000, 50000, 8, 32), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_shuffle_launch<float>(50000, 50000, 8, 32), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_two_pass_launch<float>(50000, 50000, 16), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_two_pass_launch<float>(4000000, 3, 1000), gemv::UsageError);
}
