// Step 11: the versatile kernel is right for every configuration family on every awkward shape,
// both layouts, both precisions; NaN and Inf reach y where the reference puts them.
#include <cmath>
#include <limits>

#include "gemv_versatile.cuh"
#include "support.hpp"

namespace {

template <class T>
void check(const gemv::HostProblem<T>& p, const VersatileConfig& c, const std::string& what) {
    const auto& s = p.shape;
    const gemv::Launch launch = versatile_launch<T>(c, s.layout, s.m, s.n);
    const auto v = gemv::run_and_verify_gpu<T>(p, [&](const T* A, const T* x, T* y, cudaStream_t st) {
        gemv_versatile(A, x, y, s.m, s.n, s.layout, c, launch, st);
    });
    gemv_test::require_verified(v, what + ", " + c.describe());
}

// The families the tuner explores: one thread per row group, threads along the columns or along
// a row, whole blocks per row, and rows split across blocks with atomics.
std::vector<VersatileConfig> families(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem) {
    std::vector<VersatileConfig> out;
    for (int block : {96, 256})
        for (int along : {1, 4, 32, 64})
            for (int unroll : {1, 4})
                for (std::int64_t splits : {1, 3})
                    for (int vector : {4, 2, 1}) {
                        VersatileConfig c{block, vector, unroll, along, splits};
                        if (versatile_invalid(c, layout, m, n, elem).empty()) {
                            out.push_back(c);
                            break;  // the widest vector this shape allows
                        }
                    }
    for (std::int64_t splits : {2, 3, 8}) {  // clusters of blocks adding in shared memory
        VersatileConfig c{256, 1, 4, layout == gemv::Layout::col ? 32 : 64, splits, true};
        if (versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
    }
    // Read flat, 16-byte loads whatever the shape. Column-major: on the smallest grid and a larger
    // one. Row-major: a block's rows through shared memory, with 1, 4 or 32 threads a row.
    const int vector16 = int(16 / elem);
    for (int block : {96, 256}) {
        const std::int64_t unit = flat_grid_unit(m, block, vector16);
        if (layout == gemv::Layout::col)
            for (std::int64_t grid : {unit, 7 * unit}) {
                VersatileConfig c{block, vector16, 2, 32, grid, false, true};
                if (versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
            }
        else
            for (int along : {1, 4, 32}) {
                VersatileConfig c{block, vector16, 4, along, 1, false, true};
                if (versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
            }
    }
    out.push_back(versatile_heuristic(layout, m, n, elem, 132));
    return out;
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
            const auto configs = families(layout, d.m, d.n, sizeof(TestType));
            for (std::size_t k = 0; k < configs.size(); ++k)
                if (!big || k % 5 == 0 || k + 1 == configs.size()) check(p, configs[k], what);
        }
}

TEMPLATE_TEST_CASE("step 11: NaN and Inf in the input reach y exactly where the reference puts them", "[step11][gpu]",
                   float, double) {
    for (auto layout : {gemv::Layout::col, gemv::Layout::row}) {
        const gemv::Shape shape{300, 200, layout};
        auto p = gemv::make_problem<TestType>(shape, 29);
        p.A[std::size_t(gemv::index_of(shape, 7, 11))] = std::numeric_limits<TestType>::quiet_NaN();
        p.A[std::size_t(gemv::index_of(shape, 9, 5))] = std::numeric_limits<TestType>::infinity();
        for (const auto& c : families(layout, shape.m, shape.n, sizeof(TestType))) check(p, c, "NaN and Inf");
    }
}

TEST_CASE("step 11: invalid configurations are refused, not run", "[step11][gpu]") {
    REQUIRE_THROWS_AS(versatile_launch<float>({256, 4, 4, 256, 1}, gemv::Layout::col, 10, 10), gemv::UsageError);
    REQUIRE_THROWS_AS(versatile_launch<double>({256, 4, 4, 256, 1}, gemv::Layout::row, 16, 16), gemv::UsageError);
    REQUIRE_THROWS_AS(versatile_launch<float>({100, 1, 4, 32, 1}, gemv::Layout::row, 16, 16), gemv::UsageError);
    REQUIRE_THROWS_AS(versatile_launch<float>({256, 1, 4, 48, 1}, gemv::Layout::row, 16, 16), gemv::UsageError);
    REQUIRE_THROWS_AS(versatile_launch<float>({256, 1, 4, 32, 17}, gemv::Layout::row, 16, 16), gemv::UsageError);
    // Flat row-major: whole rows (no splits), at most a warp a row, the block's rows in 48 KiB.
    REQUIRE_THROWS_AS(versatile_launch<float>({256, 4, 4, 1, 2, false, true}, gemv::Layout::row, 16, 43),
                      gemv::UsageError);
    REQUIRE_THROWS_AS(versatile_launch<float>({256, 4, 4, 64, 1, false, true}, gemv::Layout::row, 16, 43),
                      gemv::UsageError);
    REQUIRE_THROWS_AS(versatile_launch<float>({256, 4, 4, 1, 1, false, true}, gemv::Layout::row, 16, 49),
                      gemv::UsageError);
    REQUIRE_NOTHROW(versatile_launch<float>({256, 4, 4, 1, 1, false, true}, gemv::Layout::row, 16, 43));
}
