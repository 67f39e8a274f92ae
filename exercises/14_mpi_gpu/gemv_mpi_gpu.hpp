// Generated from solutions/14_mpi_gpu/gemv_mpi_gpu.hpp by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.
// Step 14: y = A·x over MPI ranks with one GPU each (GRNET's hybrid MPI + multi-GPU cuBLAS version).
// Blocks of rows as in step 13; each rank's block of A is uploaded to its GPU once and stays there,
// so a product moves only x (broadcast) and y (gathered). Between MPI and the GPU the vectors go
// through pinned host memory (host-staged), or, where the MPI library says it is CUDA-aware, MPI
// reads and writes GPU memory itself.
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"
#include "mpi_rows.hpp"
#include "problem.hpp"

using gemv::mpi_type;
using gemv::RowBlocks;
using gemv::split_rows;  // step 13's split of the rows

// MPI counts, cuBLAS sizes and MPI_Type_vector strides are ints: m and n must each fit in one
// (throws gemv::UsageError otherwise).
void require_int_counts(std::int64_t m, std::int64_t n);

// The GPU this rank drives: its rank among the ranks of its node (MPI_Comm_split_type, shared
// memory), modulo the devices the node's runtime sees, so two ranks on a one-GPU machine share it.
struct LocalDevice {
    int device = 0;      // cudaSetDevice has been called with it
    int node_rank = 0;   // this rank among its node's
    int node_ranks = 1;  // ranks on this node
    int devices = 0;     // GPUs this node's runtime sees
    int nodes = 1;       // nodes of the run
    int gpus = 1;        // distinct GPUs the run drives (over all nodes)
    std::string host;    // MPI_Get_processor_name
};
// Collective over comm. Where any rank sees no usable GPU, every rank throws gemv::NoDevice with
// that rank's reason (the first such rank's), so all of them stop together with exit 77.
LocalDevice pick_local_device(MPI_Comm comm);

// How x and y travel between MPI and the GPUs.
enum class Transfer { host, cuda_aware };
const char* to_string(Transfer t);

// What this MPI library says about passing device pointers (MPIX_Query_cuda_support where the
// library has the extension): supported or not, and the words that say how we know.
struct CudaAwareness {
    bool supported = false;
    std::string how;
};
CudaAwareness query_cuda_awareness();

// --transfer host|cuda-aware|auto, agreed by every rank of comm (collective): cuda-aware only where
// every rank's library supports it. Asking for cuda-aware where it is not supported is bad input:
// gemv::UsageError on every rank.
Transfer choose_transfer(const std::string& asked, MPI_Comm comm, CudaAwareness* awareness = nullptr);

using gemv::PinnedArray;  // page-locked host memory (common/device.hpp)

// What one rank holds between products. Building it is local (allocations, no communication), so
// a failure can be agreed on before any collective. Device buffers start as NaN, so a vector that
// never arrives shows in y.
template <class T>
struct GpuRank {
    GpuRank(MPI_Comm comm, const gemv::Shape& shape, Transfer transfer);
    std::int64_t my_rows() const { return blocks.rows[rank]; }
    bool root() const { return rank == 0; }

    MPI_Comm comm;
    int rank = 0;
    gemv::Shape shape;  // the whole problem
    Transfer transfer;
    RowBlocks blocks;
    gemv::DeviceArray<T> A;  // my rows of A on my GPU, in the problem's layout (lda = n row-major, my_rows() col-major)
    gemv::DeviceArray<T> x;  // all of x on my GPU
    gemv::DeviceArray<T> y;  // my rows of y on my GPU
    PinnedArray<T> x_host;   // host-staged: x as MPI delivers it (rank 0: the input)
    PinnedArray<T> y_host;   // host-staged: my rows of y on their way to MPI
    PinnedArray<T> y_all_host;          // rank 0, host-staged: y, gathered
    gemv::DeviceArray<T> y_all_device;  // rank 0, CUDA-aware: y, gathered on rank 0's GPU
};

// Rank 0's A (the whole problem, in its layout) to every rank's GPU, once (collective, untimed):
// MPI_Scatterv of rows into host memory, then one upload. A row of row-major A is n contiguous
// elements; a row of column-major A is n elements m apart, an MPI vector type.
template <class T>
void distribute_A(const T* A, GpuRank<T>& d);

// Rank 0's input x to where the products take it from: its pinned host buffer (host-staged) or
// its GPU (CUDA-aware). Not timed: in an iterative method x would already be there.
template <class T>
void set_x(GpuRank<T>& d, const T* x);

// The two transfers of every product (collectives: every rank calls them).
template <class T>
void broadcast_x(GpuRank<T>& d);  // rank 0's x -> every rank's d.x on its GPU
template <class T>
void gather_y(GpuRank<T>& d);  // every rank's d.y -> rank 0's gathered y

// NaN in this rank's y (GPU and staging) and rank 0's gathered y, before a product.
template <class T>
void poison_y(GpuRank<T>& d);
// Rank 0: the gathered y into host memory y (m elements), after the products (untimed).
template <class T>
void fetch_y(const GpuRank<T>& d, T* y);

// The product each rank runs on its block: cuBLAS (step 12) or step 11's versatile kernel.
enum class LocalKernel { cublas, versatile };
const char* to_string(LocalKernel k);

struct LocalProduct {
    std::string name;                       // "cublasSgemv op T", "versatile (tuned)"
    std::function<void(cudaStream_t)> run;  // d.y = d.A · d.x on this rank's GPU; nothing where it has no rows
    gemv::Launch launch;                    // kernel == nullptr for cuBLAS (no occupancy)
    gemv::Traffic traffic;                  // of this rank's block
    std::string note;                       // the configuration, and where it came from
};
// table: step 11's tuning table ("auto": this device's committed one).
template <class T>
LocalProduct make_local_product(LocalKernel k, GpuRank<T>& d, const gemv::DeviceFacts& facts,
                                const std::string& table = "auto");

// Seconds this rank spent in one product: all of it (MPI_Wtime), its GPU compute (CUDA events
// around the local product), and its communication (MPI_Wtime around the broadcast and the
// gather with their staging copies, waiting in them for slower ranks included).
struct ProductTimes {
    double total_s = 0;
    double compute_s = 0;
    double comm_s = 0;
};

// The two CUDA events around this rank's local product.
struct ProductEvents {
    ProductEvents();
    ~ProductEvents();
    ProductEvents(const ProductEvents&) = delete;
    ProductEvents& operator=(const ProductEvents&) = delete;
    cudaEvent_t start = nullptr, stop = nullptr;
};

// One product: broadcast x, multiply on the GPU, gather y.
template <class T>
ProductTimes gemv_mpi_gpu(GpuRank<T>& d, const LocalProduct& local, const ProductEvents& events);
