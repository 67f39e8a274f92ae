// Step 14: sizes that do not fit an int are refused, and the distributed product is
// right with either local kernel (cuBLAS, step 11's) on every awkward shape, both layouts, both
// precisions, through host memory and (where the library has it) CUDA-aware MPI, with however many
// ranks mpiexec started (ctest runs this alone and with 2 ranks; on a one-GPU machine both ranks
// share it). Every rank runs every case in the same order and learns rank 0's verdict.
#include <algorithm>
#include <climits>

#include "gemv_mpi_gpu.hpp"
#include "mpi_support.hpp"

namespace {

// The transfers this MPI library can take: always through host memory, and CUDA-aware where
// every rank's library supports it.
std::vector<Transfer> transfers() {
    std::vector<Transfer> t{Transfer::host};
    if (choose_transfer("auto", MPI_COMM_WORLD) == Transfer::cuda_aware) t.push_back(Transfer::cuda_aware);
    return t;
}

using gemv_test::world_rank;
using gemv_test::world_size;

}  // namespace

// The row split is step 13's (common/mpi_rows.hpp), tested there.
TEST_CASE("step 14: sizes MPI and cuBLAS cannot count are refused with a message", "[step14]") {
    REQUIRE_NOTHROW(require_int_counts(INT_MAX, INT_MAX));
    REQUIRE_THROWS_AS(require_int_counts(std::int64_t(INT_MAX) + 1, 3), gemv::UsageError);
    REQUIRE_THROWS_AS(require_int_counts(3, std::int64_t(INT_MAX) + 1), gemv::UsageError);
}

TEST_CASE("step 14: each rank drives a GPU of its node, shared when there are more ranks than GPUs", "[step14]") {
    const LocalDevice dev = pick_local_device(MPI_COMM_WORLD);
    REQUIRE(dev.devices > 0);
    REQUIRE(dev.device == dev.node_rank % dev.devices);
    int current = -1;
    REQUIRE(cudaGetDevice(&current) == cudaSuccess);
    REQUIRE(current == dev.device);
    REQUIRE(dev.gpus >= 1);
    REQUIRE(dev.gpus <= world_size());
}

TEMPLATE_TEST_CASE("step 14: y = A*x over the ranks' GPUs, both kernels, both layouts, every awkward shape", "[step14]",
                   float, double) {
    const LocalDevice dev = pick_local_device(MPI_COMM_WORLD);
    const gemv::DeviceFacts facts = gemv::query_device(dev.device);
    const bool root = world_rank() == 0;
    auto shapes = gemv_test::awkward_shapes();
    shapes.push_back({2, 1000});  // with 3 ranks, one has no rows
    shapes.push_back({5, 3});
    for (const Transfer transfer : transfers())
        for (const gemv::Layout layout : {gemv::Layout::row, gemv::Layout::col})
            for (const auto& dims : shapes) {
                const gemv::Shape shape{dims.m, dims.n, layout};
                gemv::HostProblem<TestType> p;
                gemv::Reference ref;
                if (root) {
                    p = gemv::make_problem<TestType>(shape, 31);
                    ref = gemv::compute_reference(p.A.data(), p.x.data(), shape);
                }
                GpuRank<TestType> d(MPI_COMM_WORLD, shape, transfer);
                set_x(d, p.x.data());
                distribute_A(p.A.data(), d);
                for (const LocalKernel kernel : {LocalKernel::cublas, LocalKernel::versatile}) {
                    const LocalProduct local = make_local_product<TestType>(kernel, d, facts);
                    ProductEvents events;
                    poison_y(d);
                    gemv_mpi_gpu(d, local, events);
                    gemv::Verification v;
                    gemv::HostArray<TestType> y(root ? static_cast<std::size_t>(dims.m) : 0);
                    if (root) {
                        fetch_y(d, y.data());
                        v = gemv::verify(y.data(), ref, dims.n, gemv::RunsOn::mpi);
                    }
                    const std::string what =
                        std::string(to_string(kernel)) + ", " + to_string(transfer) + ", " + gemv_test::ranks_text() +
                        gemv_test::describe(dims, layout, gemv::to_string(gemv::precision_of<TestType>()));
                    gemv_test::require_verified_on_every_rank(
                        v, what, "x reaches every GPU by broadcast_x, y comes back to rank 0 by gather_y");
                }
            }
}

TEST_CASE("step 14: a product run again gives the same y (A stays on the GPUs)", "[step14]") {
    const LocalDevice dev = pick_local_device(MPI_COMM_WORLD);
    const gemv::DeviceFacts facts = gemv::query_device(dev.device);
    const bool root = world_rank() == 0;
    const gemv::Shape shape{1001, 517, gemv::Layout::row};
    gemv::HostProblem<float> p;
    gemv::Reference ref;
    if (root) {
        p = gemv::make_problem<float>(shape, 37);
        ref = gemv::compute_reference(p.A.data(), p.x.data(), shape);
    }
    GpuRank<float> d(MPI_COMM_WORLD, shape, Transfer::host);
    set_x(d, p.x.data());
    distribute_A(p.A.data(), d);
    const LocalProduct local = make_local_product<float>(LocalKernel::versatile, d, facts);
    ProductEvents events;
    int ok = 1;
    for (int rep = 0; rep < 3; ++rep) {
        poison_y(d);
        const ProductTimes t = gemv_mpi_gpu(d, local, events);
        REQUIRE(t.total_s >= t.comm_s);
        REQUIRE(t.compute_s >= 0);
        if (root) {
            gemv::HostArray<float> y(static_cast<std::size_t>(shape.m));
            fetch_y(d, y.data());
            ok &= gemv::verify(y.data(), ref, shape.n, gemv::RunsOn::mpi).ok ? 1 : 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    INFO("rank 0's y after the third product with the same A");
    REQUIRE(ok == 1);
}
