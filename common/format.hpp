// Numbers and sizes as the lab writes them, in tables, CSV and JSON alike: one formatter each.
#pragma once

#include <string>

namespace gemv {

// "12.3" for fixed(12.345, 1); "-" for a value that is not finite (none to show).
std::string fixed(double v, int digits);
// Six significant digits, as CSV and JSON rows carry figures: "0.0123457", "3100.25".
std::string number(double v);
// "1 rank", "3 ranks".
std::string count_of(long long k, const std::string& word);
// Human-readable sizes for tables: "256.0 MiB".
std::string format_bytes(double bytes);
// Today in UTC, "2026-11-23": the date a measurement or a tuning table records.
std::string utc_date();

}  // namespace gemv
