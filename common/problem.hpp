// The problem every step solves: y = A·x with A m×n in row- or column-major order, seeded
// pseudo-random inputs in [-1, 1), and the 64-bit byte and flop model.
#pragma once

#include <cstdint>
#include <string>

#include "host_array.hpp"

namespace gemv {

enum class Layout { row, col };
enum class Precision { f32, f64 };

const char* to_string(Layout layout);
const char* to_string(Precision precision);
const char* layout_word(Layout layout);  // "row-major" / "column-major"

template <class T>
constexpr Precision precision_of();
template <>
constexpr Precision precision_of<float>() {
    return Precision::f32;
}
template <>
constexpr Precision precision_of<double>() {
    return Precision::f64;
}

inline std::size_t element_size(Precision p) {
    return p == Precision::f32 ? 4 : 8;
}

struct Shape {
    std::int64_t m = 0;  // rows of A, length of y
    std::int64_t n = 0;  // columns of A, length of x
    Layout layout = Layout::row;
};

// Where element (i, j) of A lives in memory.
inline std::int64_t index_of(const Shape& s, std::int64_t i, std::int64_t j) {
    return s.layout == Layout::row ? i * s.n + j : j * s.m + i;
}

// m·n, and a·b, or throws std::overflow_error naming the quantities: never a silent wrap.
std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what);
std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const char* what);

// The one byte model of the lab: A once, x once, y once (the fewest bytes any kernel must move).
std::uint64_t model_bytes(std::int64_t m, std::int64_t n, std::size_t elem_size);
// One multiply and one add per element of A.
std::uint64_t model_flops(std::int64_t m, std::int64_t n);
// The bytes of A alone, checked.
std::uint64_t matrix_bytes(std::int64_t m, std::int64_t n, std::size_t elem_size);

// What a kernel actually loads from and stores to global memory, in elements. CGMA (Greenstreet)
// is multiply-adds per global access; the operational intensity is flops per byte of that traffic.
struct Traffic {
    double a_elems = 0;
    double x_elems = 0;
    double y_elems = 0;
    double total() const { return a_elems + x_elems + y_elems; }
};
// A once, x re-read for every row, y stored once: the traffic of the plain row loop.
Traffic traffic_x_per_row(std::int64_t m, std::int64_t n);
double cgma(const Traffic& t, std::int64_t m, std::int64_t n);
double intensity(const Traffic& t, std::int64_t m, std::int64_t n, std::size_t elem_size);

// A and x filled in parallel (each thread first-touches the rows it writes).
template <class T>
struct HostProblem {
    Shape shape;
    HostArray<T> A;
    HostArray<T> x;
};
template <class T>
HostProblem<T> make_problem(const Shape& shape, std::uint64_t seed);
// Fill an already allocated A (for first-touch by the caller's own schedule).
template <class T>
void fill_matrix(T* A, const Shape& shape, std::uint64_t seed);
template <class T>
void fill_vector(T* x, std::int64_t n, std::uint64_t seed);

}  // namespace gemv
