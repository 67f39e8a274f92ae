// Step 08: several threads per row is right on every awkward shape, in both precisions, with both
// ways of combining the parts of a row, and with BLOCKSIZE and WORKSIZE_n that divide neither m nor
// n (partial blocks, a partial right-most block column, a folded grid.y on 3 x 10^6). A second
// launch on the same y is right again (the zeroing is part of the product), and the two-pass
// result is the same bit for bit; the grid and the traffic model follow Sørensen's formulas.
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "gemv_threads_per_row.cuh"
#include "support.hpp"

namespace {

struct Params {
    int block_size, worksize_n;
};
const Params kParams[] = {{32, 1}, {96, 3}, {256, 8}};

std::string describe(const gemv_test::Dims& d, const char* precision, const Params& p, Combine c) {
    return gemv_test::describe(d, gemv::Layout::col, precision) + ", BLOCKSIZE " + std::to_string(p.block_size) +
           ", WORKSIZE_n " + std::to_string(p.worksize_n) + (c == Combine::atomic ? ", atomicAdd" : ", two-pass");
}

// The product as one call on device buffers, the two-pass workspace (poisoned) included.
template <class T>
struct Product {
    gemv::Launch launch;
    std::shared_ptr<gemv::DeviceArray<T>> workspace;
    std::function<void(const T*, const T*, T*, cudaStream_t)> run;
};

template <class T>
Product<T> product(std::int64_t m, std::int64_t n, const Params& p, Combine c) {
    Product<T> pr;
    pr.launch = gemv_threads_per_row_launch<T>(m, n, p.block_size, p.worksize_n, c);
    const gemv::Launch l = pr.launch;
    if (c == Combine::atomic) {
        pr.run = [=](const T* A, const T* x, T* y, cudaStream_t s) {
            gemv_threads_per_row_atomic(A, x, y, m, n, p.worksize_n, l, s);
        };
    } else {
        auto w = std::make_shared<gemv::DeviceArray<T>>(static_cast<std::size_t>(gemv_threads_per_row_workspace(m, l)));
        w->poison();  // a partial pass 1 never wrote shows as NaN in y
        pr.workspace = w;
        pr.run = [=](const T* A, const T* x, T* y, cudaStream_t s) {
            gemv_threads_per_row_two_pass(A, x, y, w->data(), m, n, p.worksize_n, l, s);
        };
    }
    return pr;
}

// Two launches on the same y, poisoned only before the first: both outputs, both verified.
template <class T>
struct TwoRuns {
    std::vector<T> first, second;
    gemv::Verification v1, v2;
};

template <class T>
TwoRuns<T> run_twice(const gemv::HostProblem<T>& p, const Product<T>& pr) {
    gemv::DeviceArray<T> A(p.A.size()), x(p.x.size()), y(static_cast<std::size_t>(p.shape.m));
    A.upload(p.A.data());
    x.upload(p.x.data());
    const gemv::Reference ref = gemv::compute_reference(p.A.data(), p.x.data(), p.shape);
    TwoRuns<T> r;
    r.first.resize(y.size());
    r.second.resize(y.size());
    y.poison();
    pr.run(A.data(), x.data(), y.data(), 0);
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
    y.download(r.first.data());
    pr.run(A.data(), x.data(), y.data(), 0);  // y still holds the first result
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
    y.download(r.second.data());
    r.v1 = gemv::verify(r.first.data(), ref, p.shape.n, gemv::RunsOn::gpu);
    r.v2 = gemv::verify(r.second.data(), ref, p.shape.n, gemv::RunsOn::gpu);
    return r;
}

}  // namespace

TEMPLATE_TEST_CASE("step 08: several threads per row computes y = A*x on every awkward shape", "[step08][gpu]", float,
                   double) {
    const char* precision = gemv::to_string(gemv::precision_of<TestType>());
    for (const auto& d : gemv_test::awkward_shapes()) {
        const auto p = gemv::make_problem<TestType>({d.m, d.n, gemv::Layout::col}, 17);
        for (const Params& params : kParams) {
            for (Combine c : {Combine::atomic, Combine::two_pass}) {
                const Product<TestType> pr = product<TestType>(d.m, d.n, params, c);
                const auto v = gemv::run_and_verify_gpu<TestType>(p, pr.run);
                gemv_test::require_verified(v, describe(d, precision, params, c));
            }
        }
    }
}

TEMPLATE_TEST_CASE("step 08: a second launch on the same y is right again; the two-pass y is the same bit for bit",
                   "[step08][gpu]", float, double) {
    const char* precision = gemv::to_string(gemv::precision_of<TestType>());
    // Many parts per row (3 x 10^6 folds grid.y with BLOCKSIZE 32), and an ordinary shape.
    for (const gemv_test::Dims d : {gemv_test::Dims{997, 1009}, gemv_test::Dims{3, 1000000}}) {
        const auto p = gemv::make_problem<TestType>({d.m, d.n, gemv::Layout::col}, 23);
        for (const Params& params : kParams) {
            for (Combine c : {Combine::atomic, Combine::two_pass}) {
                const std::string what = describe(d, precision, params, c);
                const TwoRuns<TestType> r = run_twice(p, product<TestType>(d.m, d.n, params, c));
                gemv_test::require_verified(r.v1, what + ", first launch");
                gemv_test::require_verified(r.v2, what + ", second launch on the same y");
                if (c == Combine::two_pass) {
                    INFO(what);
                    REQUIRE(std::memcmp(r.first.data(), r.second.data(), r.first.size() * sizeof(TestType)) == 0);
                }
            }
        }
    }
}

TEST_CASE("step 08: Sørensen's 2-D grid, one chunk of x in shared memory, traffic as the kernel does it",
          "[step08][gpu]") {
    // GRIDSIZE_m = ceil(1000 / 96) = 11, GRIDSIZE_n = ceil(3000 / (96 * 3)) = 11.
    const auto l = gemv_threads_per_row_launch<double>(1000, 3000, 96, 3, Combine::atomic);
    REQUIRE(l.grid.x == 11);
    REQUIRE(l.grid.y == 11);
    REQUIRE(l.block.x == 96);
    REQUIRE(l.dynamic_shared == 96 * sizeof(double));
    const gemv::Traffic t = gemv_threads_per_row_traffic(1000, 3000, l);
    REQUIRE(t.a_elems == 1000.0 * 3000);
    REQUIRE(t.x_elems == 3000.0 * 11);             // x once per block row of the grid
    REQUIRE(t.y_elems == 1000.0 + 2 * 1000 * 11);  // zeroing, then 11 parts a row, each a load and a store
    REQUIRE(gemv_threads_per_row_workspace(1000, l) == 1000 * 11);
    REQUIRE(gemv_threads_per_row_launch<float>(1000, 3000, 96, 3, Combine::two_pass).kernel != l.kernel);
}

TEST_CASE("step 08: GRIDSIZE_n past grid.y's limit folds; bad parameters are refused", "[step08][gpu]") {
    // ceil(3 * 10^6 / 32) = 93750 block columns: grid.y stops at 65535 and the kernel strides.
    REQUIRE(gemv_threads_per_row_launch<float>(3, 3000000, 32, 1, Combine::atomic).grid.y == kMaxGridY);
    REQUIRE(gemv_threads_per_row_launch<float>(3, 3000000, 32, 2, Combine::atomic).grid.y == 46875);
    // 64-bit indices: past 2^31 elements is fine.
    REQUIRE_NOTHROW(gemv_threads_per_row_launch<float>(50000, 50000, 256, 4, Combine::atomic));
    REQUIRE_THROWS_AS(gemv_threads_per_row_launch<float>(1000, 1000, 2000, 1, Combine::atomic), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_threads_per_row_launch<float>(1000, 1000, 0, 1, Combine::atomic), gemv::UsageError);
    REQUIRE_THROWS_AS(gemv_threads_per_row_launch<float>(1000, 1000, 128, 0, Combine::two_pass), gemv::UsageError);
}
