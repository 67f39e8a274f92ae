// The problem every step solves: y = A·x with A m×n in row- or column-major order, seeded
// pseudo-random inputs in [-1, 1), and the 64-bit byte and flop model.
#pragma once

#include <cstdint>
#include <string>

#include "host_array.hpp"

namespace gemv {

enum class Layout { row, col };
// How A and x are stored: float and double (steps 01-14), and the formats language models keep
// their weights in (step 15), added up in float: bf16, fp16 and fp8 (e4m3).
enum class Precision { f32, f64, bf16, f16, fp8 };

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
    switch (p) {
        case Precision::f64:
            return 8;
        case Precision::bf16:
        case Precision::f16:
            return 2;
        case Precision::fp8:
            return 1;
        default:
            return 4;
    }
}
// What y is stored in: the precision the products are added up in (float for bf16, fp16, fp8).
inline std::size_t output_size(Precision p) {
    return p == Precision::f64 ? 8 : 4;
}
// Parses "float", "double", "bf16", "fp16", "fp8"; false for anything else.
bool parse_precision(const std::string& text, Precision& out);

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
// The same where y is wider than A and x (step 15's formats: y in float).
std::uint64_t model_bytes(std::int64_t m, std::int64_t n, Precision precision);
// One multiply and one add per element of A.
std::uint64_t model_flops(std::int64_t m, std::int64_t n);
// Y = A·X for k vectors (step 16): A once, X (n×k) and Y (m×k) once; 2·m·n·k flops. The same as
// the one-vector model for k = 1.
std::uint64_t model_bytes(std::int64_t m, std::int64_t n, Precision precision, std::int64_t vectors);
std::uint64_t model_flops(std::int64_t m, std::int64_t n, std::int64_t vectors);
// The bytes of A alone, checked.
std::uint64_t matrix_bytes(std::int64_t m, std::int64_t n, std::size_t elem_size);

// What a kernel actually loads from and stores to global memory, in elements. CGMA (Greenstreet)
// is multiply-adds per global access; the operational intensity is flops per byte of that traffic.
// The scales fp8 weights carry (step 15) are loads too: floats, counted in scale_elems.
struct Traffic {
    double a_elems = 0;
    double x_elems = 0;
    double y_elems = 0;
    double scale_elems = 0;
    double total() const { return a_elems + x_elems + y_elems + scale_elems; }
};
// A once, x re-read for every row, y stored once: the traffic of the plain row loop.
Traffic traffic_x_per_row(std::int64_t m, std::int64_t n);
double cgma(const Traffic& t, std::int64_t m, std::int64_t n);
double intensity(const Traffic& t, std::int64_t m, std::int64_t n, std::size_t elem_size);
// The same for k vectors: m·n·k multiply-adds over the same traffic.
double cgma(const Traffic& t, std::int64_t m, std::int64_t n, std::int64_t vectors);
double intensity(const Traffic& t, std::int64_t m, std::int64_t n, std::size_t elem_size, std::int64_t vectors);

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
