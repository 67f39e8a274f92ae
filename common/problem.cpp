#include "problem.hpp"

#include <stdexcept>

#include "random.hpp"

namespace gemv {

const char* to_string(Layout layout) {
    return layout == Layout::row ? "row" : "col";
}
const char* to_string(Precision p) {
    switch (p) {
        case Precision::f64:
            return "double";
        case Precision::bf16:
            return "bf16";
        case Precision::f16:
            return "fp16";
        case Precision::fp8:
            return "fp8";
        default:
            return "float";
    }
}

bool parse_precision(const std::string& text, Precision& out) {
    for (Precision p : {Precision::f32, Precision::f64, Precision::bf16, Precision::f16, Precision::fp8})
        if (text == to_string(p)) {
            out = p;
            return true;
        }
    return false;
}
const char* layout_word(Layout layout) {
    return layout == Layout::row ? "row-major" : "column-major";
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) throw std::overflow_error(std::string(what) + " overflows 64 bits");
    return r;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const char* what) {
    std::uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) throw std::overflow_error(std::string(what) + " overflows 64 bits");
    return r;
}

std::uint64_t matrix_bytes(std::int64_t m, std::int64_t n, std::size_t elem_size) {
    const auto elems = checked_mul(static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n), "m*n");
    return checked_mul(elems, elem_size, "the bytes of A");
}

std::uint64_t model_bytes(std::int64_t m, std::int64_t n, std::size_t elem_size) {
    const auto a = matrix_bytes(m, n, elem_size);
    const auto xy =
        checked_mul(static_cast<std::uint64_t>(m) + static_cast<std::uint64_t>(n), elem_size, "the bytes of x and y");
    return checked_add(a, xy, "the bytes of A, x and y");
}

std::uint64_t model_bytes(std::int64_t m, std::int64_t n, Precision precision) {
    const std::size_t elem = element_size(precision), out = output_size(precision);
    const auto ax =
        checked_add(matrix_bytes(m, n, elem), checked_mul(static_cast<std::uint64_t>(n), elem, "x"), "A, x");
    return checked_add(ax, checked_mul(static_cast<std::uint64_t>(m), out, "the bytes of y"),
                       "the bytes of A, x and y");
}

std::uint64_t model_flops(std::int64_t m, std::int64_t n) {
    return checked_mul(2, checked_mul(static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n), "m*n"),
                       "2*m*n flops");
}

std::uint64_t model_bytes(std::int64_t m, std::int64_t n, Precision precision, std::int64_t vectors) {
    const auto k = static_cast<std::uint64_t>(vectors);
    const std::size_t elem = element_size(precision), out = output_size(precision);
    const auto x = checked_mul(checked_mul(static_cast<std::uint64_t>(n), k, "n*k"), elem, "the bytes of X");
    const auto y = checked_mul(checked_mul(static_cast<std::uint64_t>(m), k, "m*k"), out, "the bytes of Y");
    return checked_add(checked_add(matrix_bytes(m, n, elem), x, "A, X"), y, "the bytes of A, X and Y");
}

std::uint64_t model_flops(std::int64_t m, std::int64_t n, std::int64_t vectors) {
    return checked_mul(model_flops(m, n), static_cast<std::uint64_t>(vectors), "2*m*n*k flops");
}

Traffic traffic_x_per_row(std::int64_t m, std::int64_t n) {
    const double mn = static_cast<double>(m) * static_cast<double>(n);
    return {mn, mn, static_cast<double>(m)};
}

double cgma(const Traffic& t, std::int64_t m, std::int64_t n) {
    return static_cast<double>(m) * static_cast<double>(n) / t.total();
}

double intensity(const Traffic& t, std::int64_t m, std::int64_t n, std::size_t elem_size) {
    const double bytes =
        (t.a_elems + t.x_elems + t.y_elems) * static_cast<double>(elem_size) + t.scale_elems * sizeof(float);
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) / bytes;
}

double cgma(const Traffic& t, std::int64_t m, std::int64_t n, std::int64_t vectors) {
    return cgma(t, m, n) * static_cast<double>(vectors);
}

double intensity(const Traffic& t, std::int64_t m, std::int64_t n, std::size_t elem_size, std::int64_t vectors) {
    return intensity(t, m, n, elem_size) * static_cast<double>(vectors);
}

template <class T>
void fill_matrix(T* A, const Shape& s, std::uint64_t seed) {
    // Value (i, j) depends only on (seed, i, j): identical matrices in both layouts. The loop runs
    // in memory order so that each thread first-touches the pages it will use.
    const std::int64_t outer = s.layout == Layout::row ? s.m : s.n;
    const std::int64_t inner = s.layout == Layout::row ? s.n : s.m;
#pragma omp parallel for schedule(static)
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < inner; ++k) {
            const std::int64_t i = s.layout == Layout::row ? o : k;
            const std::int64_t j = s.layout == Layout::row ? k : o;
            A[o * inner + k] = static_cast<T>(
                random_value(seed, 1, static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(s.n) + j));
        }
}

template <class T>
void fill_vector(T* x, std::int64_t n, std::uint64_t seed) {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) x[j] = static_cast<T>(random_value(seed, 2, static_cast<std::uint64_t>(j)));
}

template <class T>
HostProblem<T> make_problem(const Shape& shape, std::uint64_t seed) {
    HostProblem<T> p;
    p.shape = shape;
    p.A = HostArray<T>(static_cast<std::size_t>(matrix_bytes(shape.m, shape.n, sizeof(T)) / sizeof(T)));
    p.x = HostArray<T>(static_cast<std::size_t>(shape.n));
    fill_matrix(p.A.data(), shape, seed);
    fill_vector(p.x.data(), shape.n, seed);
    return p;
}

template HostProblem<float> make_problem<float>(const Shape&, std::uint64_t);
template HostProblem<double> make_problem<double>(const Shape&, std::uint64_t);
template void fill_matrix<float>(float*, const Shape&, std::uint64_t);
template void fill_matrix<double>(double*, const Shape&, std::uint64_t);
template void fill_vector<float>(float*, std::int64_t, std::uint64_t);
template void fill_vector<double>(double*, std::int64_t, std::uint64_t);

}  // namespace gemv
