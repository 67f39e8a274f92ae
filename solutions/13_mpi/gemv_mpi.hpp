// Step 13: y = A·x over MPI ranks, row-major A dealt out in blocks of rows (GRNET's MPI version).
// Rank 0 holds A, x and y; each product either scatters A again (the slides' version) or finds
// every rank's block already there (resident), so that only x and y travel.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "host_array.hpp"
#include "mpi_rows.hpp"

using gemv::mpi_type;
using gemv::RowBlocks;
using gemv::split_rows;

// MPI counts are ints: m and n must each fit in one (throws gemv::UsageError otherwise). A row
// travels as one datatype of n elements, so the elements of a block need not fit.
void require_mpi_counts(std::int64_t m, std::int64_t n);

// Each rank's product: step 01's scalar loop (one rank per core, the slides' MPI version) or
// step 02's static OpenMP loop (one rank per node or socket, threads inside: the hybrid).
enum class LocalKernel { loop, omp };

// What one rank holds between products: its block of A, all of x, its block of y. Building it
// is local (no communication), so a failure to allocate can be agreed on before any collective.
template <class T>
struct RankData {
    RankData(MPI_Comm comm, std::int64_t m, std::int64_t n, LocalKernel local);
    ~RankData();
    RankData(const RankData&) = delete;
    RankData& operator=(const RankData&) = delete;
    std::int64_t my_rows() const { return blocks.rows[rank]; }

    MPI_Comm comm;
    int rank = 0;
    std::int64_t m, n;
    LocalKernel local;
    RowBlocks blocks;
    MPI_Datatype row = MPI_DATATYPE_NULL;  // one row of A: n contiguous elements of T
    gemv::HostArray<T> A_block;            // my rows of A, row-major, first-touched as the kernel reads them
    gemv::HostArray<T> x;                  // all of x; rank 0's is the input, the others' receive it
    gemv::HostArray<T> y_block;            // my rows of y
};

// The three collectives. Every rank of d.comm calls each of them; A and y matter on rank 0 only.
template <class T>
void scatter_rows(const T* A, RankData<T>& d);  // rank 0's A -> every rank's A_block
template <class T>
void broadcast_x(RankData<T>& d);  // rank 0's x -> every rank's x
template <class T>
void gather_rows(const RankData<T>& d, T* y);  // every rank's y_block -> rank 0's y

// y_block = A_block · x on this rank alone.
template <class T>
void local_product(RankData<T>& d);

// Seconds this rank spent in one product: all of it, in its local product, and in collectives
// (waiting there for slower ranks included).
struct PhaseTimes {
    double total_s = 0;
    double compute_s = 0;
    double comm_s = 0;
};

// One product with A scattered again: scatter A, broadcast x, multiply, gather y.
template <class T>
PhaseTimes gemv_mpi_scatter(const T* A, RankData<T>& d, T* y);
// One product with A already resident (scatter_rows ran once before): broadcast x, multiply,
// gather y.
template <class T>
PhaseTimes gemv_mpi_resident(RankData<T>& d, T* y);

// Bytes that cross between ranks in one product, counted where they arrive: A's blocks of the
// other ranks (scatter mode only), x once per other rank, y's blocks of the other ranks.
// Rank 0's own block never leaves its memory, so one rank moves nothing.
std::uint64_t bytes_between_ranks(const RowBlocks& blocks, std::int64_t n, std::size_t elem_size, bool scatter_A);
