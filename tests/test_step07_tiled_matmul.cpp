// Step 07: mmult1 and mmult2 (every TILE) compute C = A*B right for square sizes that are and are
// not multiples of the tile, for rectangular m x k times k x n, in both precisions; a TILE that
// is not compiled in, and sizes past 32-bit indexing, are refused with a message.
#include <functional>
#include <string>
#include <vector>

#include "matmul_check.hpp"
#include "matmul_tiled.cuh"
#include "support.hpp"

namespace {

struct Dims3 {
    std::int64_t m, n, k;
};

std::string describe(const Dims3& d, const char* precision) {
    return "A " + std::to_string(d.m) + " x " + std::to_string(d.k) + " times B " + std::to_string(d.k) + " x " +
           std::to_string(d.n) + ", " + precision;
}

// Square n = 1, 31, 33, 64, 100 (Greenstreet's n x n), then rectangles with one side of 1 and sides
// that are multiples of no tile.
std::vector<Dims3> matmul_shapes() {
    std::vector<Dims3> shapes;
    for (std::int64_t n : {1, 31, 33, 64, 100}) shapes.push_back({n, n, n});
    for (const Dims3 d :
         {Dims3{33, 17, 70}, Dims3{1, 100, 31}, Dims3{100, 1, 33}, Dims3{31, 64, 1}, Dims3{65, 97, 129}})
        shapes.push_back(d);
    return shapes;
}

template <class T>
using Kernel = std::function<void(const T*, const T*, T*, cudaStream_t)>;

}  // namespace

TEMPLATE_TEST_CASE("step 07: mmult1, one thread per element of C, on square and rectangular sizes", "[step07][gpu]",
                   float, double) {
    using T = TestType;
    for (const Dims3& d : matmul_shapes()) {
        const auto p = make_matmul_problem<T>(d.m, d.n, d.k, 17);
        const auto l = matmul_brute_force_launch<T>(d.m, d.n, d.k);
        const auto v = run_and_verify_matmul_gpu<T>(
            p, [&](const T* A, const T* B, T* C, cudaStream_t s) { matmul_brute_force(A, B, C, d.m, d.n, d.k, l, s); });
        gemv_test::require_verified(v, "mmult1, " + describe(d, gemv::to_string(gemv::precision_of<T>())));
    }
}

TEMPLATE_TEST_CASE("step 07: mmult2, tiled in shared memory, every TILE, partial tiles included", "[step07][gpu]",
                   float, double) {
    using T = TestType;
    for (int tile : {8, 16, 32}) {
        for (const Dims3& d : matmul_shapes()) {
            const auto p = make_matmul_problem<T>(d.m, d.n, d.k, 17);
            const auto l = matmul_tiled_launch<T>(d.m, d.n, d.k, tile);
            const auto v = run_and_verify_matmul_gpu<T>(p, [&](const T* A, const T* B, T* C, cudaStream_t s) {
                matmul_tiled(A, B, C, d.m, d.n, d.k, tile, l, s);
            });
            gemv_test::require_verified(v, "mmult2 TILE " + std::to_string(tile) + ", " +
                                               describe(d, gemv::to_string(gemv::precision_of<T>())));
        }
    }
}

TEST_CASE("step 07: a TILE that is not compiled in, and sizes past 32-bit indexing, are refused", "[step07][gpu]") {
    REQUIRE_THROWS_AS(matmul_tiled_launch<float>(64, 64, 64, 12), gemv::UsageError);
    REQUIRE_THROWS_AS(matmul_tiled_launch<float>(64, 64, 64, 64), gemv::UsageError);
    REQUIRE_THROWS_AS(matmul_brute_force_launch<float>(50000, 50000, 4), gemv::UsageError);
    REQUIRE_THROWS_AS(matmul_tiled_launch<double>(4, 50000, 50000, 16), gemv::UsageError);
    // More rows of tiles than gridDim.y takes.
    REQUIRE_THROWS_AS(matmul_tiled_launch<float>(1000000, 1, 1, 8), gemv::UsageError);
}

TEST_CASE("step 07: the CGMA model gives 1/2 for mmult1 and TILE/2 for mmult2", "[step07]") {
    // Square n a multiple of TILE: mmult2 loads 2n^3/TILE elements and stores n^2.
    const std::int64_t n = 4096;
    REQUIRE(matmul_cgma(n, n, n, matmul_brute_force_accesses(n, n, n)) == Approx(0.5).epsilon(1e-3));
    for (int tile : {8, 16, 32})
        REQUIRE(matmul_cgma(n, n, n, matmul_tiled_accesses(n, n, n, tile)) == Approx(tile / 2.0).epsilon(1e-2));
    // A partial tile loads no more than it needs: n = 33 with TILE 32 is two tiles a side.
    REQUIRE(matmul_tiled_accesses(33, 33, 33, 32) == Approx(2.0 * 33 * 33 * 2 + 33 * 33));
}
