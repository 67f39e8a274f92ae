// The double-precision CPU reference and the verifier every step runs after its kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem.hpp"

namespace gemv {

// y_ref in double, and Σ_j |a_ij·x_j| per row: the scale of the rounding error a correct kernel
// may make in row i whatever order it sums in.
struct Reference {
    std::vector<double> y;
    std::vector<double> abs_sum;
};

template <class T>
Reference compute_reference(const T* A, const T* x, const Shape& shape);

// The bound row i is held to: n·eps·Σ|a_ij·x_j| (eps of the kernel's precision). Any summation
// order in precision T stays inside it (Higham's γ_n ≤ n·u/(1-n·u) < n·eps for n·u < 1/2).
double error_bound(double abs_sum, std::int64_t n, Precision precision);

struct Verification {
    bool ok = true;
    std::int64_t rows = 0;
    std::int64_t failed = 0;                 // rows outside the bound, NaN where a number was expected included
    std::int64_t unwritten = 0;              // of those, rows still holding the NaN poison
    std::vector<std::int64_t> first_failed;  // the first few failing rows, in order
    std::string message;                     // one paragraph a student can act on; empty when ok
};

// Where the kernel under check ran: the advice for unwritten rows names what to look at there
// (a loop's bounds, a grid's guard, the ranks' blocks of rows).
enum class RunsOn { cpu, gpu, mpi };

// NaN-safe: a row passes only if it is within the bound, or if the reference itself is NaN or
// ±Inf and y holds the same. Rows still NaN where the reference is finite count as unwritten.
template <class T>
Verification verify(const T* y, const Reference& ref, std::int64_t n, RunsOn where);

// The value every output is set to before each launch: a quiet NaN, so unwritten rows show.
template <class T>
T poison_value();

}  // namespace gemv
