#include "shapes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "integer.hpp"

namespace {

bool is_prime(std::int64_t v) {
    if (v < 2) return false;
    for (std::int64_t d = 2; d * d <= v; ++d)
        if (v % d == 0) return false;
    return true;
}

}  // namespace

std::string parse_shapes(const std::string& text, std::vector<Shape2>* out) {
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find(',', at), text.size());
        const std::string one = text.substr(at, end - at);
        const std::size_t x = one.find('x');
        const std::optional<std::int64_t> m = gemv::whole_number(one.substr(0, x)),
                                          n = x == std::string::npos ? std::nullopt
                                                                     : gemv::whole_number(one.substr(x + 1));
        if (!m || !n || *m < 1 || *n < 1) return "takes shapes as MxN,MxN,... with positive M and N, not '" + one + "'";
        if (out) out->push_back({*m, *n});
        at = end + 1;
    }
    return "";
}

std::vector<Shape2> odd_shapes(std::uint64_t seed, int count, std::size_t elem, std::int64_t max_elems) {
    std::mt19937_64 rng(seed);
    const double lo = std::log(4.0 * (1 << 20) / elem),
                 hi = std::log(std::min(2.0 * (1 << 30) / elem, double(max_elems)));
    std::uniform_real_distribution<double> log_elems(lo, hi), aspect(-5, 5);
    const auto odd = [](std::int64_t v, bool prime) {
        v = std::max<std::int64_t>(v, 5) | 1;
        while (prime && !is_prime(v)) v += 2;
        return v;
    };
    std::vector<Shape2> out;
    for (int k = 0; k < count; ++k) {
        const double elems = std::exp(log_elems(rng)), ratio = std::pow(10.0, aspect(rng));
        const std::int64_t m = odd(std::llround(std::sqrt(elems * ratio)), k % 2 == 0);
        out.push_back({m, odd(std::llround(elems / double(m)), k % 2 == 0)});
    }
    for (std::int64_t d : {1, 2, 3}) {
        const std::int64_t other = odd(std::llround(std::exp(log_elems(rng)) / double(d)), d == 3);
        out.push_back({d, other});
        out.push_back({odd(std::llround(std::exp(log_elems(rng)) / double(d)), d == 2), d});
    }
    return out;
}
