// Whole-number helpers every step shares: grid arithmetic and the one parser of a whole number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gemv {

// Ceiling division for grids.
constexpr long long div_up(long long a, long long b) {
    return (a + b - 1) / b;
}

constexpr bool power_of_two(std::int64_t v) {
    return v > 0 && (v & (v - 1)) == 0;
}

// The smallest power of two at least v (1 for v <= 1).
constexpr std::int64_t pow2_at_least(std::int64_t v) {
    std::int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

// A whole number written in decimal (an optional sign, then digits only) that fits in 64 bits;
// nothing for any other text. The command line (parse_int) and step 11's configuration fields
// read numbers through it.
std::optional<std::int64_t> whole_number(const std::string& text);

}  // namespace gemv
