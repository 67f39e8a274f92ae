// What the MPI tests (steps 13 and 14) share: this rank in MPI_COMM_WORLD, and a verdict that rank 0
// reaches and every rank asserts, so that all ranks pass or fail the same assertion and none
// waits alone in a collective.
#pragma once

#include <mpi.h>

#include <string>

#include "support.hpp"

namespace gemv_test {

inline int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

inline int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

// "2 ranks, " for the description of a case.
inline std::string ranks_text() {
    return std::to_string(world_size()) + (world_size() == 1 ? " rank, " : " ranks, ");
}

// Rank 0 verified y (v); every rank takes its verdict. `route` says how the data travelled, for
// rank 0's message.
inline void require_verified_on_every_rank(const gemv::Verification& v, const std::string& what,
                                           const std::string& route) {
    int ok = v.ok ? 1 : 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world_rank() == 0) {
        require_verified(v, route + "; " + what);
    } else {
        INFO(what << ": rank 0 found y wrong (its output says how)");
        REQUIRE(ok == 1);
    }
}

}  // namespace gemv_test
