// What the MPI steps (13 on CPUs, 14 on GPUs) share: the MPI type of an element, the split of m
// rows over P ranks (whose sizes limits.hpp's require_int_counts checks against MPI's int counts),
// and the slowest rank's time in each phase of a product.
// Header-only, in the MPI-only target gemv_common_mpi: only the programs that link MPI include it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "limits.hpp"

namespace gemv {

template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<float>() {
    return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_type<double>() {
    return MPI_DOUBLE;
}

// Rank r owns rows [first[r], first[r] + rows[r]): m/P rows each and one more for the first m%P
// ranks, so blocks differ by one row at most; ranks past m, when there are more ranks than rows,
// own none. These are the counts and displacements of MPI_Scatterv and MPI_Gatherv, in rows.
struct RowBlocks {
    std::vector<int> rows;
    std::vector<int> first;
};

// Per product, the slowest rank's time in each phase, in ms; rank 0 holds them.
struct SlowestPhases {
    std::vector<double> total_ms, compute_ms, comm_ms;
    // Collective over comm: every rank gives its seconds of each phase; where timed (not a warm-up
    // product), rank 0 keeps the largest of each.
    void add(MPI_Comm comm, double total_s, double compute_s, double comm_s, bool timed) {
        const double mine[3] = {total_s, compute_s, comm_s};
        double slowest[3] = {};
        MPI_Reduce(mine, slowest, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (!timed) return;
        total_ms.push_back(slowest[0] * 1e3);
        compute_ms.push_back(slowest[1] * 1e3);
        comm_ms.push_back(slowest[2] * 1e3);
    }
};

inline RowBlocks split_rows(std::int64_t m, int ranks) {
    require_int_counts(m, 1, "MPI counts are ints, so the row split");
    RowBlocks b;
    b.rows.resize(static_cast<std::size_t>(ranks));
    b.first.resize(static_cast<std::size_t>(ranks));
    const std::int64_t base = m / ranks, extra = m % ranks;
    std::int64_t next = 0;
    for (int r = 0; r < ranks; ++r) {
        b.rows[r] = static_cast<int>(base + (r < extra ? 1 : 0));
        b.first[r] = static_cast<int>(next);
        next += b.rows[r];
    }
    return b;
}

}  // namespace gemv
