// The checks that a problem fits what runs it, each refusing with a UsageError that names the
// limit: kernels, drivers and the MPI steps include them without reaching the command line.
#pragma once

#include <cstdint>
#include <string>

#include "errors.hpp"

namespace gemv {

// Refuses a problem whose host arrays would not fit in this machine's memory.
void require_host_memory(std::uint64_t bytes, const char* what);

// Checks that an index of count elements fits the kernel's 32-bit arithmetic.
void require_int32_indexing(std::uint64_t count, const std::string& kernel);

// m and n must each fit in an int; `why` says who needs it, e.g. "MPI counts are ints, so step 13".
void require_int_counts(std::int64_t m, std::int64_t n, const std::string& why);

}  // namespace gemv
