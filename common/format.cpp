#include "format.hpp"

#include <cmath>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace gemv {

std::string fixed(double v, int digits) {
    if (!std::isfinite(v)) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

std::string number(double v) {
    std::ostringstream s;
    s << std::setprecision(6) << v;
    return s.str();
}

std::string count_of(long long k, const std::string& word) {
    return std::to_string(k) + " " + word + (k == 1 ? "" : "s");
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    std::ostringstream s;
    s << std::fixed << std::setprecision(u ? 1 : 0) << bytes << " " << units[u];
    return s.str();
}

std::string utc_date() {
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    return date;
}

}  // namespace gemv
