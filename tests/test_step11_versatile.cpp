// Step 11: the versatile kernel is right for every family, way of loading and way of combining
// on every awkward shape, both layouts, both precisions; NaN and Inf reach y where the reference
// puts them; a product past 2^31 elements with odd m and n is right.
#include <cmath>
#include <limits>

#include "gemv_versatile.cuh"
#include "support.hpp"
#include "versatile_families.hpp"

namespace {

template <class T>
void check(const gemv::HostProblem<T>& p, const gemv::VersatileConfig& c, const std::string& what) {
    const auto& s = p.shape;
    const gemv::VersatileGemv<T> gemv(c, s.layout, s.m, s.n);
    const auto v =
        gemv::run_and_verify_gpu<T>(p, [&](const T* A, const T* x, T* y, cudaStream_t st) { gemv(A, x, y, st); });
    gemv_test::require_verified(v, what + ", " + describe(c) + "; " + describe(gemv.plan()));
    // atomic_last and last_block leave their workspace at zero: a second product on it is right too.
    if (c.combine == gemv::Combine::atomic_last || c.combine == gemv::Combine::last_block) {
        const auto again =
            gemv::run_and_verify_gpu<T>(p, [&](const T* A, const T* x, T* y, cudaStream_t st) { gemv(A, x, y, st); });
        gemv_test::require_verified(again, what + ", second run, " + describe(c));
    }
}

}  // namespace

TEMPLATE_TEST_CASE("step 11: the versatile kernel computes y = A*x on every awkward shape", "[step11][gpu]", float,
                   double) {
    for (auto layout : {gemv::Layout::col, gemv::Layout::row})
        for (const auto& d : gemv_test::awkward_shapes()) {
            const gemv::Shape shape{d.m, d.n, layout};
            const auto p = gemv::make_problem<TestType>(shape, 23);
            const auto what = gemv_test::describe(d, layout, gemv::to_string(gemv::precision_of<TestType>()));
            const bool big = d.m * d.n > 100000;
            const auto configs = gemv_test::families(layout, d.m, d.n, sizeof(TestType));
            for (std::size_t k = 0; k < configs.size(); ++k)
                if (!big || k % 5 == 0 || k + 1 == configs.size() || configs[k].loads == gemv::Loads::tiles)
                    check(p, configs[k], what);
        }
}

TEMPLATE_TEST_CASE("step 11: tiles, short rows and the last block are right one past a power of two and on primes",
                   "[step11][gpu]", float, double) {
    const std::vector<gemv_test::Dims> shapes = {{1025, 257}, {257, 1025}, {65537, 3},  {3, 65537},
                                                 {2, 100003}, {100003, 2}, {7919, 997}, {130, 4099},
                                                 {65536, 1},  {2, 7},      {7, 2},      {3, 3}};
    for (auto layout : {gemv::Layout::col, gemv::Layout::row})
        for (const auto& d : shapes) {
            const auto p = gemv::make_problem<TestType>({d.m, d.n, layout}, 31);
            const auto what = gemv_test::describe(d, layout, gemv::to_string(gemv::precision_of<TestType>()));
            for (const auto& c : gemv_test::families(layout, d.m, d.n, sizeof(TestType)))
                if (c.loads == gemv::Loads::tiles || c.combine == gemv::Combine::last_block ||
                    c.combine == gemv::Combine::atomic_last ||
                    gemv::short_rows(c, gemv::kernel_layout(layout, d.m, d.n), d.n))
                    check(p, c, what);
        }
}

TEMPLATE_TEST_CASE("step 11: NaN and Inf in the input reach y exactly where the reference puts them", "[step11][gpu]",
                   float, double) {
    for (auto layout : {gemv::Layout::col, gemv::Layout::row}) {
        const gemv::Shape shape{301, 203, layout};
        auto p = gemv::make_problem<TestType>(shape, 29);
        p.A[std::size_t(gemv::index_of(shape, 7, 11))] = std::numeric_limits<TestType>::quiet_NaN();
        p.A[std::size_t(gemv::index_of(shape, 9, 5))] = std::numeric_limits<TestType>::infinity();
        p.A[std::size_t(gemv::index_of(shape, 10, 202))] = std::numeric_limits<TestType>::infinity();  // a row's end
        for (const auto& c : gemv_test::families(layout, shape.m, shape.n, sizeof(TestType)))
            check(p, c, "NaN and Inf");
    }
}

TEST_CASE("step 11: past 2^31 elements with odd m and n, narrow, realigned and staggered loads are right",
          "[step11][gpu]") {
    const std::int64_t m = 46341, n = 46343;  // 2147580963 elements: 64-bit indexing, misaligned columns and rows
    std::size_t free_bytes = 0, total = 0;
    REQUIRE(cudaMemGetInfo(&free_bytes, &total) == cudaSuccess);
    if (free_bytes < 12ull << 30) {
        WARN("not run: the GPU has " << (free_bytes >> 30) << " GiB free, the test needs 12");
        return;
    }
    for (auto layout : {gemv::Layout::col, gemv::Layout::row}) {
        const auto p = gemv::make_problem<float>({m, n, layout}, 37);
        const bool col = layout == gemv::Layout::col;
        for (const gemv::VersatileConfig& c :
             {gemv::VersatileConfig{256, 1, 16, col ? 1 : 256, 1, gemv::Combine::store},
              gemv::VersatileConfig{256, 1, 8, col ? 4 : 32, 5, gemv::Combine::last_block},
              gemv::VersatileConfig{256, 4, 4, col ? 1 : 256, 1, gemv::Combine::store, gemv::Loads::realigned},
              gemv::VersatileConfig{256, 4, 2, col ? 8 : 32, 7, gemv::Combine::last_block, gemv::Loads::realigned},
              gemv::VersatileConfig{512, 4, 4, col ? 4 : 512, 1, gemv::Combine::store, gemv::Loads::staggered},
              gemv::VersatileConfig{256, 4, 2, col ? 8 : 32, 7, gemv::Combine::atomic_last, gemv::Loads::staggered},
              gemv::versatile_heuristic(layout, m, n, 4, {132, 2048})})
            check(p, c, gemv_test::describe({m, n}, layout, "float"));
    }
}

TEST_CASE("step 11: invalid configurations are refused, not run", "[step11][gpu]") {
    const auto refused = [](const gemv::VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n) {
        INFO(describe(c) << " on " << m << " x " << n);
        REQUIRE_THROWS_AS(gemv::plan_versatile<float>(c, layout, m, n), gemv::UsageError);
    };
    using L = gemv::Layout;
    refused({256, 4, 4, 1, 1}, L::col, 10, 10);  // aligned loads, 4 does not divide m
    refused({256, 2, 4, 1, 1, gemv::Combine::store, gemv::Loads::realigned}, L::col, 10,
            10);  // realigned: 16-byte loads only
    REQUIRE_NOTHROW(
        gemv::plan_versatile<float>({256, 4, 4, 1, 1, gemv::Combine::store, gemv::Loads::realigned}, L::col, 10, 10));
    // Staggered: 16-byte loads; column-major, each thread's columns start at one place in 16 bytes
    // (threads_per_row x m a multiple of the vector) and at least 2 threads down a column.
    refused({256, 2, 4, 4, 1, gemv::Combine::store, gemv::Loads::staggered}, L::col, 11, 10);
    refused({256, 4, 4, 2, 1, gemv::Combine::store, gemv::Loads::staggered}, L::col, 11, 10);
    refused({256, 4, 4, 256, 1, gemv::Combine::store, gemv::Loads::staggered}, L::col, 12, 10);
    REQUIRE_NOTHROW(
        gemv::plan_versatile<float>({256, 4, 4, 2, 1, gemv::Combine::store, gemv::Loads::staggered}, L::col, 10, 10));
    REQUIRE_NOTHROW(
        gemv::plan_versatile<float>({256, 4, 4, 4, 1, gemv::Combine::store, gemv::Loads::staggered}, L::col, 11, 10));
    REQUIRE_NOTHROW(
        gemv::plan_versatile<float>({256, 4, 4, 1, 1, gemv::Combine::store, gemv::Loads::staggered}, L::row, 10, 11));
    refused({100, 1, 4, 32, 1}, L::row, 16, 16);                              // block not a multiple of 32
    refused({256, 1, 4, 48, 1}, L::row, 16, 16);                              // 48 threads a row
    refused({256, 1, 4, 32, 17, gemv::Combine::last_block}, L::row, 16, 16);  // more blocks than columns
    refused({256, 1, 4, 32, 4, gemv::Combine::store}, L::row, 16, 1000);      // four blocks a row cannot just store
    refused({256, 1, 4, 32, 1, gemv::Combine::atomic}, L::row, 16, 1000);     // one block a row has nothing to add
    refused({256, 1, 4, 32, 9, gemv::Combine::cluster}, L::row, 16, 1000);    // a cluster holds at most 8
    refused({256, 4, 8, 32, 1}, L::row, 16, 1024);                            // 8 in flight: narrow loads
    refused({256, 4, 4, 256, 1, gemv::Combine::store, gemv::Loads::tiles}, L::col, 4, 1000);  // tiles: 2 or 3 rows
    refused({256, 4, 4, 1, 1, gemv::Combine::store, gemv::Loads::tiles}, L::row, 1000, 5);    // tiles: 2 or 3 columns
    refused({256, 2, 4, 1, 1, gemv::Combine::store, gemv::Loads::tiles}, L::row, 1000, 3);    // tiles: 16-byte loads
    refused({256, 4, 4, 32, 1, gemv::Combine::store, gemv::Loads::tiles}, L::col, 3,
            1000);  // tiles: every thread, every row
    // Flat row-major: whole rows (one block a row), at most a warp a row, the block's rows in 48 KiB.
    refused({256, 4, 4, 1, 2, gemv::Combine::last_block, gemv::Loads::flat}, L::row, 16, 43);
    refused({256, 4, 4, 256, 2, gemv::Combine::last_block, gemv::Loads::flat}, L::col, 16, 43);  // flat adds atomically
    refused({256, 4, 4, 256, 2, gemv::Combine::last_block, gemv::Loads::tiles}, L::col, 3, 4000);  // and so do tiles
    refused({256, 4, 4, 64, 1, gemv::Combine::store, gemv::Loads::flat}, L::row, 16, 43);
    refused({256, 4, 4, 1, 1, gemv::Combine::store, gemv::Loads::flat}, L::row, 16, 49);
    REQUIRE_NOTHROW(
        gemv::plan_versatile<float>({256, 4, 4, 1, 1, gemv::Combine::store, gemv::Loads::flat}, L::row, 16, 43));
    // A 1 x n column-major matrix is read as the row-major one: a row-major configuration runs.
    REQUIRE(gemv::plan_versatile<float>({256, 4, 4, 256, 4, gemv::Combine::last_block}, L::col, 1, 4096).family ==
            gemv::Family::row);
}
