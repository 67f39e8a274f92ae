// What the MPI steps (13 on CPUs, 14 on GPUs) share: the MPI type of an element, the check that
// the sizes fit MPI's int counts, and the split of m rows over P ranks. Header-only: only the
// programs that link MPI include it.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"

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

// m and n must each fit in an int (throws UsageError otherwise); `why` says who needs it, e.g.
// "MPI counts are ints, so step 13".
inline void require_int_counts(std::int64_t m, std::int64_t n, const std::string& why) {
    for (const auto& [name, v] : {std::make_pair("--m", m), std::make_pair("--n", n)})
        if (v > INT_MAX)
            throw UsageError(std::string(name) + " " + std::to_string(v) + ": " + why + " takes at most " +
                             std::to_string(INT_MAX) + " rows and columns");
}

// Rank r owns rows [first[r], first[r] + rows[r]): m/P rows each and one more for the first m%P
// ranks, so blocks differ by one row at most; ranks past m, when there are more ranks than rows,
// own none. These are the counts and displacements of MPI_Scatterv and MPI_Gatherv, in rows.
struct RowBlocks {
    std::vector<int> rows;
    std::vector<int> first;
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
