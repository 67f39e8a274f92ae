// Generated from solutions/13_mpi/gemv_mpi.cpp by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 13
#include "gemv_mpi.hpp"

#include <algorithm>
#include <string>

#include "gemv_cpu_loop.hpp"
#include "gemv_cpu_openmp.hpp"
#include "limits.hpp"
#include "problem.hpp"

void require_mpi_counts(std::int64_t m, std::int64_t n) {
    gemv::require_int_counts(m, n, "MPI counts are ints, so step 13");
}

template <class T>
RankData<T>::RankData(MPI_Comm c, std::int64_t m_, std::int64_t n_, LocalKernel l) : comm(c), m(m_), n(n_), local(l) {
    require_mpi_counts(m, n);
    int ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    blocks = split_rows(m, ranks);
    const std::int64_t rows = my_rows();
    A_block = gemv::HostArray<T>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n));
    x = gemv::HostArray<T>(static_cast<std::size_t>(n));
    y_block = gemv::HostArray<T>(static_cast<std::size_t>(rows));
    // First touch: with the OpenMP kernel, each thread zeroes the rows its static share will read,
    // so that they live in its own socket's memory (step 02); the scatter then only overwrites them.
    T* a = A_block.data();
    const std::int64_t cols = n;
#pragma omp parallel for schedule(static) if (l == LocalKernel::omp)
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) a[i * cols + j] = T(0);
    std::fill(x.begin(), x.end(), T(0));
    std::fill(y_block.begin(), y_block.end(), T(0));
    MPI_Type_contiguous(static_cast<int>(n), mpi_type<T>(), &row);
    MPI_Type_commit(&row);
}

template <class T>
RankData<T>::~RankData() {
    if (row != MPI_DATATYPE_NULL) MPI_Type_free(&row);
}

template <class T>
void scatter_rows(const T* A, RankData<T>& d) {
    // TODO: MPI_Scatterv of A from rank 0: blocks.rows[r] rows (type d.row) from row first[r] to rank r
}

template <class T>
void broadcast_x(RankData<T>& d) {
    // TODO: MPI_Bcast of rank 0's d.x: d.n elements of mpi_type<T>()
}

template <class T>
void gather_rows(const RankData<T>& d, T* y) {
    // TODO: MPI_Gatherv to rank 0's y: rank r's y_block, blocks.rows[r] elements, lands at first[r]
}

template <class T>
void local_product(RankData<T>& d) {
    if (d.local == LocalKernel::omp)
        gemv_omp_static(d.A_block.data(), d.x.data(), d.y_block.data(), d.my_rows(), d.n);
    else
        gemv_cpu_loop(d.A_block.data(), d.x.data(), d.y_block.data(), d.my_rows(), d.n);
}

// BEGIN EXCERPT modes
template <class T>
PhaseTimes gemv_mpi_scatter(const T* A, RankData<T>& d, T* y) {
    const double t0 = MPI_Wtime();
    scatter_rows(A, d);
    broadcast_x(d);
    const double t1 = MPI_Wtime();
    local_product(d);
    const double t2 = MPI_Wtime();
    gather_rows(d, y);
    const double t3 = MPI_Wtime();
    return {t3 - t0, t2 - t1, (t1 - t0) + (t3 - t2)};
}

template <class T>
PhaseTimes gemv_mpi_resident(RankData<T>& d, T* y) {
    const double t0 = MPI_Wtime();
    broadcast_x(d);
    const double t1 = MPI_Wtime();
    local_product(d);
    const double t2 = MPI_Wtime();
    gather_rows(d, y);
    const double t3 = MPI_Wtime();
    return {t3 - t0, t2 - t1, (t1 - t0) + (t3 - t2)};
}
// END EXCERPT modes

std::uint64_t bytes_between_ranks(const RowBlocks& blocks, std::int64_t n, std::size_t elem_size, bool scatter_A) {
    std::uint64_t other_rows = 0;
    for (std::size_t r = 1; r < blocks.rows.size(); ++r) other_rows += static_cast<std::uint64_t>(blocks.rows[r]);
    const std::uint64_t other_ranks = blocks.rows.empty() ? 0 : blocks.rows.size() - 1;
    std::uint64_t elems = gemv::checked_add(gemv::checked_mul(other_ranks, static_cast<std::uint64_t>(n), "x copies"),
                                            other_rows, "x and y");
    if (scatter_A)
        elems = gemv::checked_add(elems, gemv::checked_mul(other_rows, static_cast<std::uint64_t>(n), "A blocks"),
                                  "A, x and y");
    return gemv::checked_mul(elems, elem_size, "bytes between ranks");
}

#define GEMV_MPI_INSTANTIATE(T)                                          \
    template struct RankData<T>;                                         \
    template void scatter_rows<T>(const T*, RankData<T>&);               \
    template void broadcast_x<T>(RankData<T>&);                          \
    template void gather_rows<T>(const RankData<T>&, T*);                \
    template void local_product<T>(RankData<T>&);                        \
    template PhaseTimes gemv_mpi_scatter<T>(const T*, RankData<T>&, T*); \
    template PhaseTimes gemv_mpi_resident<T>(RankData<T>&, T*);
GEMV_MPI_INSTANTIATE(float)
GEMV_MPI_INSTANTIATE(double)
