#include "limits.hpp"

#include <unistd.h>

#include <climits>
#include <utility>

#include "format.hpp"

namespace gemv {

void require_host_memory(std::uint64_t bytes, const char* what) {
    const double total = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (total > 0 && static_cast<double>(bytes) > 0.75 * total)
        throw UsageError(std::string(what) + " needs " + format_bytes(static_cast<double>(bytes)) +
                         " of host memory; this machine has " + format_bytes(total));
}

void require_int32_indexing(std::uint64_t count, const std::string& kernel) {
    if (count > static_cast<std::uint64_t>(INT_MAX))
        throw UsageError(kernel + " indexes A with 32-bit integers and cannot address " + std::to_string(count) +
                         " elements (at most " + std::to_string(INT_MAX) + "); a later step uses 64-bit indices");
}

void require_int_counts(std::int64_t m, std::int64_t n, const std::string& why) {
    for (const auto& [name, v] : {std::make_pair("--m", m), std::make_pair("--n", n)})
        if (v > INT_MAX)
            throw UsageError(std::string(name) + " " + std::to_string(v) + ": " + why + " takes at most " +
                             std::to_string(INT_MAX) + " rows and columns");
}

}  // namespace gemv
