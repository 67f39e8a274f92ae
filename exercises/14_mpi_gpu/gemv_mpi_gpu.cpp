// Generated from solutions/14_mpi_gpu/gemv_mpi_gpu.cpp by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 14
#include "gemv_mpi_gpu.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "check.hpp"
#include "errors.hpp"
#include "gemv_cublas.hpp"
#include "gemv_versatile.cuh"
#include "pick_timed.cuh"
#include "verify.hpp"

// Open MPI declares MPIX_Query_cuda_support, and defines MPIX_CUDA_AWARE_SUPPORT, in its
// extensions header; a library without it cannot say, so it is taken as not CUDA-aware.
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

void require_int_counts(std::int64_t m, std::int64_t n) {
    gemv::require_int_counts(m, n, "MPI counts and cuBLAS sizes are ints, so step 14");
}

LocalDevice pick_local_device(MPI_Comm comm) {
    LocalDevice d;
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int host_length = 0;
    MPI_Get_processor_name(host, &host_length);
    d.host.assign(host, static_cast<std::size_t>(host_length));

    // The ranks that share this node's memory share its GPUs: deal them out by rank on the node.
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &d.node_rank);
    MPI_Comm_size(node, &d.node_ranks);
    MPI_Comm_free(&node);

    std::string reason;  // empty: this rank has its GPU
    d.devices = gemv::cuda_device_count(reason);
    if (d.devices > 0) {
        d.device = d.node_rank % d.devices;
        const cudaError_t set = cudaSetDevice(d.device);
        if (set != cudaSuccess) {
            cudaGetLastError();
            reason = "device " + std::to_string(d.device) + ": " + cudaGetErrorString(set);
        }
    }

    // Every rank learns the first rank without a GPU (if any), how many nodes there are, and how
    // many distinct GPUs the run drives, in collectives that every rank reaches.
    const int mine = reason.empty() ? INT_MAX : rank;
    int first_without = INT_MAX;
    MPI_Allreduce(&mine, &first_without, 1, MPI_INT, MPI_MIN, comm);
    const int here[2] = {d.node_rank == 0 ? 1 : 0, d.node_rank == 0 ? std::min(d.node_ranks, d.devices) : 0};
    int total[2] = {0, 0};
    MPI_Allreduce(here, total, 2, MPI_INT, MPI_SUM, comm);
    d.nodes = total[0];
    d.gpus = total[1];
    if (first_without == INT_MAX) return d;

    // That rank's reason, on every rank, so that rank 0 can say it and all stop with 77.
    if (rank == first_without && ranks > 1) reason = "rank " + std::to_string(rank) + " on " + d.host + ": " + reason;
    int length = static_cast<int>(reason.size());
    MPI_Bcast(&length, 1, MPI_INT, first_without, comm);
    reason.resize(static_cast<std::size_t>(length));
    MPI_Bcast(reason.data(), length, MPI_CHAR, first_without, comm);
    throw gemv::NoDevice(reason);
}

const char* to_string(Transfer t) {
    return t == Transfer::cuda_aware ? "CUDA-aware" : "host-staged";
}

CudaAwareness query_cuda_awareness() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    // The compile-time macro says how the library was built; the run-time call what it can do now.
    const bool yes = MPIX_Query_cuda_support() == 1;
    return {yes, std::string("MPIX_Query_cuda_support() = ") + (yes ? "1" : "0") +
                     (MPIX_CUDA_AWARE_SUPPORT ? "" : ", built without CUDA support")};
#else
    return {false, "this MPI library has no MPIX_Query_cuda_support()"};
#endif
}

Transfer choose_transfer(const std::string& asked, MPI_Comm comm, CudaAwareness* awareness) {
    const CudaAwareness here = query_cuda_awareness();
    const int mine = here.supported ? 1 : 0;
    int everywhere = 0;
    MPI_Allreduce(&mine, &everywhere, 1, MPI_INT, MPI_MIN, comm);
    CudaAwareness said = here;
    if (mine && !everywhere) said.how += ", but not on every rank";
    if (awareness) *awareness = said;
    if (asked == "host") return Transfer::host;
    if (everywhere) return Transfer::cuda_aware;
    if (asked == "cuda-aware")
        throw gemv::UsageError("--transfer cuda-aware: this MPI library cannot take GPU memory (" + said.how +
                               "); use --transfer host, or auto to take GPU memory only where it can");
    return Transfer::host;
}

namespace {

template <class T>
void poison(gemv::DeviceArray<T>& a) {
    if (a.size()) a.poison();
}

template <class T>
void poison(PinnedArray<T>& a) {
    std::fill(a.data(), a.data() + a.size(), gemv::poison_value<T>());
}

}  // namespace

template <class T>
GpuRank<T>::GpuRank(MPI_Comm c, const gemv::Shape& s, Transfer t) : comm(c), shape(s), transfer(t) {
    require_int_counts(s.m, s.n);
    int ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    blocks = split_rows(s.m, ranks);
    const auto rows = static_cast<std::size_t>(my_rows()), n = static_cast<std::size_t>(s.n);
    A = gemv::DeviceArray<T>(rows * n);  // rows * n <= m * n, whose bytes the command line checked
    x = gemv::DeviceArray<T>(n);
    y = gemv::DeviceArray<T>(rows);
    poison(x);
    poison(y);
    if (transfer == Transfer::host) {
        x_host = PinnedArray<T>(n);
        y_host = PinnedArray<T>(rows);
        poison(x_host);
        poison(y_host);
    }
    if (root()) {
        if (transfer == Transfer::host)
            y_all_host = PinnedArray<T>(static_cast<std::size_t>(s.m));
        else
            y_all_device = gemv::DeviceArray<T>(static_cast<std::size_t>(s.m));
    }
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
void distribute_A(const T* A, GpuRank<T>& d) {
    const int m = static_cast<int>(d.shape.m), n = static_cast<int>(d.shape.n), rows = static_cast<int>(d.my_rows());
    const MPI_Datatype elem = mpi_type<T>();
    // One row of A as an MPI datatype, so that counts and displacements are in rows (and a block
    // past 2^31 elements still has an int count). Row-major: n contiguous elements. Column-major:
    // n elements m apart (mine: my_rows() apart), with the extent cut to one element so that the
    // next row starts one element later.
    MPI_Datatype send_row = MPI_DATATYPE_NULL, recv_row = MPI_DATATYPE_NULL;
    if (d.shape.layout == gemv::Layout::row) {
        MPI_Type_contiguous(n, elem, &send_row);
        MPI_Type_contiguous(n, elem, &recv_row);
    } else {
        const auto strided_row = [&](int stride, MPI_Datatype* out) {
            MPI_Datatype vector;
            MPI_Type_vector(n, 1, stride, elem, &vector);
            MPI_Type_create_resized(vector, 0, static_cast<MPI_Aint>(sizeof(T)), out);
            MPI_Type_free(&vector);
        };
        strided_row(m, &send_row);
        strided_row(std::max(rows, 1), &recv_row);
    }
    MPI_Type_commit(&send_row);
    MPI_Type_commit(&recv_row);
    gemv::HostArray<T> block(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n));
    MPI_Scatterv(A, d.blocks.rows.data(), d.blocks.first.data(), send_row, block.data(), rows, recv_row, 0, d.comm);
    MPI_Type_free(&send_row);
    MPI_Type_free(&recv_row);
    if (rows) d.A.upload(block.data());  // after the collective: a failure here is this rank's alone
}

template <class T>
void set_x(GpuRank<T>& d, const T* x) {
    if (!d.root()) return;
    if (d.transfer == Transfer::host)
        std::copy(x, x + d.shape.n, d.x_host.data());
    else
        d.x.upload(x);
}

// BEGIN EXCERPT transfers
template <class T>
void broadcast_x(GpuRank<T>& d) {
    if (d.transfer == Transfer::cuda_aware) {
        // TODO: MPI_Bcast of d.x itself (GPU memory, d.shape.n elements) from rank 0
    } else {
        // TODO: MPI_Bcast of the pinned d.x_host from rank 0, then cudaMemcpy it into d.x on this rank's GPU
    }
}

template <class T>
void gather_y(GpuRank<T>& d) {
    if (d.transfer == Transfer::cuda_aware) {
        // TODO: MPI_Gatherv of d.y (GPU) to rank 0's d.y_all_device: blocks.rows[r] elements at first[r]
    } else {
        // TODO: cudaMemcpy d.y into the pinned d.y_host, then MPI_Gatherv of it into rank 0's d.y_all_host
    }
}
// END EXCERPT transfers

template <class T>
void poison_y(GpuRank<T>& d) {
    poison(d.y);
    poison(d.y_host);
    poison(d.y_all_host);
    poison(d.y_all_device);
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
void fetch_y(const GpuRank<T>& d, T* y) {
    if (!d.root()) return;
    if (d.transfer == Transfer::host)
        std::copy(d.y_all_host.data(), d.y_all_host.data() + d.shape.m, y);
    else
        d.y_all_device.download(y);
}

const char* to_string(LocalKernel k) {
    return k == LocalKernel::cublas ? "cublas" : "versatile";
}

template <class T>
LocalProduct make_local_product(LocalKernel k, GpuRank<T>& d, const gemv::DeviceFacts& facts,
                                const std::string& table) {
    const std::int64_t rows = d.my_rows(), n = d.shape.n;
    const gemv::Layout layout = d.shape.layout;
    const T* A = d.A.data();
    const T* x = d.x.data();
    T* y = d.y.data();
    LocalProduct p;
    p.run = [](cudaStream_t) {};  // a rank without rows still takes part in every transfer
    if (k == LocalKernel::cublas) {
        p.name = std::string(sizeof(T) == 4 ? "cublasSgemv" : "cublasDgemv") +
                 (layout == gemv::Layout::col ? " op N" : " op T");
        p.traffic = {double(rows) * double(n), double(n), double(rows)};  // the least, as in step 12
        p.note = "library call";
        if (rows == 0) return p;
        auto handle = std::make_shared<CublasHandle>();  // made once: the warm-up pays cuBLAS's first call
        p.run = [=](cudaStream_t s) { gemv_cublas(*handle, A, x, y, rows, n, layout, s); };
        return p;
    }
    p.name = "versatile";
    if (rows == 0) {
        p.note = "no rows on this rank";
        return p;
    }
    // This rank's block is a rows x n problem of its own: step 11 picks its configuration for
    // that shape from this GPU's tuning table, the nearest points' picks (and the nearest's
    // neighbours) timed on this block.
    const gemv::Resolved choice = gemv::pick_timed(table, facts, layout, rows, n, A, x, y);
    const gemv::VersatileGemv<T> gemv(choice.config, layout, rows, n);
    p.name += std::string(" (") + to_string(choice.how) + ")";
    p.launch = gemv.plan().launch;
    p.traffic = gemv.plan().traffic;
    p.note = describe(choice.config) + " (" + choice.source + ")";
    p.run = [=](cudaStream_t s) { gemv(A, x, y, s); };
    return p;
}

ProductEvents::ProductEvents() {
    GEMV_CUDA_CHECK(cudaEventCreate(&start));
    GEMV_CUDA_CHECK(cudaEventCreate(&stop));
}

ProductEvents::~ProductEvents() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
}

template <class T>
ProductTimes gemv_mpi_gpu(GpuRank<T>& d, const LocalProduct& local, const ProductEvents& events) {
    const double t0 = MPI_Wtime();
    broadcast_x(d);
    const double t1 = MPI_Wtime();
    GEMV_CUDA_CHECK(cudaEventRecord(events.start, 0));
    local.run(0);
    GEMV_CUDA_CHECK(cudaEventRecord(events.stop, 0));
    GEMV_CUDA_CHECK(cudaEventSynchronize(events.stop));  // y is complete before the copy or MPI reads it
    const double t2 = MPI_Wtime();
    gather_y(d);
    const double t3 = MPI_Wtime();
    float compute_ms = 0;
    GEMV_CUDA_CHECK(cudaEventElapsedTime(&compute_ms, events.start, events.stop));
    return {t3 - t0, compute_ms * 1e-3, (t1 - t0) + (t3 - t2)};
}

#define GEMV_MPI_GPU_INSTANTIATE(T)                                                                 \
    template struct GpuRank<T>;                                                                     \
    template void distribute_A<T>(const T*, GpuRank<T>&);                                           \
    template void set_x<T>(GpuRank<T>&, const T*);                                                  \
    template void broadcast_x<T>(GpuRank<T>&);                                                      \
    template void gather_y<T>(GpuRank<T>&);                                                         \
    template void poison_y<T>(GpuRank<T>&);                                                         \
    template void fetch_y<T>(const GpuRank<T>&, T*);                                                \
    template LocalProduct make_local_product<T>(LocalKernel, GpuRank<T>&, const gemv::DeviceFacts&, \
                                                const std::string&);                                \
    template ProductTimes gemv_mpi_gpu<T>(GpuRank<T>&, const LocalProduct&, const ProductEvents&);
GEMV_MPI_GPU_INSTANTIATE(float)
GEMV_MPI_GPU_INSTANTIATE(double)
