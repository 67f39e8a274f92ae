// Step 13: the split into row blocks is right for any m and any number of ranks, and both
// distributed products are right on every awkward shape with however many ranks mpiexec started
// (ctest runs this alone and with 2 and 3 ranks). Every rank runs every case in the same order and
// learns rank 0's verdict, so all ranks pass or fail the same assertions and none waits alone.
#include <algorithm>

#include "gemv_mpi.hpp"
#include "mpi_support.hpp"

using gemv_test::world_rank;

TEST_CASE("step 13: rows split into contiguous blocks that differ by one row at most", "[step13]") {
    for (std::int64_t m : {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(7),
                           std::int64_t(100), std::int64_t(4097), std::int64_t(INT32_MAX)}) {
        for (int ranks : {1, 2, 3, 4, 7, 64, 1000}) {
            INFO("m = " << m << ", " << ranks << " ranks");
            const RowBlocks b = split_rows(m, ranks);
            REQUIRE(b.rows.size() == std::size_t(ranks));
            REQUIRE(b.first.size() == std::size_t(ranks));
            std::int64_t next = 0;
            for (int r = 0; r < ranks; ++r) {
                REQUIRE(b.first[r] == next);
                REQUIRE(b.rows[r] >= 0);
                REQUIRE(b.rows[r] == (r < m % ranks ? m / ranks + 1 : m / ranks));
                if (r >= m) REQUIRE(b.rows[r] == 0);  // more ranks than rows: the rest own none
                next += b.rows[r];
            }
            REQUIRE(next == m);
        }
    }
}

TEST_CASE("step 13: sizes MPI cannot count are refused with a message", "[step13]") {
    REQUIRE_NOTHROW(require_mpi_counts(INT32_MAX, INT32_MAX));
    REQUIRE_THROWS_AS(require_mpi_counts(std::int64_t(INT32_MAX) + 1, 3), gemv::UsageError);
    REQUIRE_THROWS_AS(require_mpi_counts(3, std::int64_t(INT32_MAX) + 1), gemv::UsageError);
}

TEST_CASE("step 13: the bytes between ranks: A's other blocks when scattered, x to each other rank, y back",
          "[step13]") {
    // 10 rows over 3 ranks: 4, 3, 3; rank 0 keeps its 4 rows, 6 rows travel.
    const RowBlocks b = split_rows(10, 3);
    REQUIRE(bytes_between_ranks(b, 5, 4, true) == 4 * (6 * 5 + 2 * 5 + 6));
    REQUIRE(bytes_between_ranks(b, 5, 8, false) == 8 * (2 * 5 + 6));
    REQUIRE(bytes_between_ranks(split_rows(10, 1), 5, 4, true) == 0);  // one rank moves nothing
    REQUIRE(bytes_between_ranks(split_rows(2, 3), 5, 4, false) == 4 * (2 * 5 + 1));
}

TEMPLATE_TEST_CASE("step 13: both modes and both local kernels compute y = A*x on every awkward shape", "[step13]",
                   float, double) {
    const bool root = world_rank() == 0;
    auto shapes = gemv_test::awkward_shapes();
    shapes.push_back({2, 1000});  // fewer rows than ranks with 3 ranks
    shapes.push_back({5, 3});
    for (const auto& d : shapes) {
        const gemv::Shape shape{d.m, d.n, gemv::Layout::row};
        gemv::HostProblem<TestType> p;
        gemv::Reference ref;
        if (root) {
            p = gemv::make_problem<TestType>(shape, 19);
            ref = gemv::compute_reference(p.A.data(), p.x.data(), shape);
        }
        for (const char* mode : {"scatter", "resident"}) {
            for (LocalKernel local : {LocalKernel::loop, LocalKernel::omp}) {
                RankData<TestType> data(MPI_COMM_WORLD, d.m, d.n, local);
                gemv::HostArray<TestType> y(root ? static_cast<std::size_t>(d.m) : 0);
                std::fill(y.begin(), y.end(), gemv::poison_value<TestType>());
                if (root) std::copy(p.x.begin(), p.x.end(), data.x.begin());
                if (std::string(mode) == "scatter") {
                    gemv_mpi_scatter(p.A.data(), data, y.data());
                } else {
                    scatter_rows(p.A.data(), data);
                    gemv_mpi_resident(data, y.data());
                }
                gemv::Verification v;
                if (root) v = gemv::verify(y.data(), ref, d.n, gemv::RunsOn::mpi);
                const std::string what =
                    std::string(mode) + (local == LocalKernel::omp ? ", OpenMP" : ", loop") + ", " +
                    gemv_test::ranks_text() +
                    gemv_test::describe(d, shape.layout, gemv::to_string(gemv::precision_of<TestType>()));
                gemv_test::require_verified_on_every_rank(
                    v, what, "A's rows reach the ranks by scatter_rows, x by broadcast_x, y comes back by gather_rows");
            }
        }
    }
}
