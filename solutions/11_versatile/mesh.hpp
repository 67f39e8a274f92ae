// Sørensen's logarithmic mesh: the shapes step 11's tuner measures and its table holds.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "problem.hpp"

namespace gemv {

using MeshPoint = std::pair<std::int64_t, std::int64_t>;  // m, n

// Sørensen's mesh axis: points values spaced evenly in log from 10 to max_dim.
std::vector<std::int64_t> mesh_axis(int points, std::int64_t max_dim);

// The mesh point moved to the nearest shape whose widest vector is exactly `vector`: the tuner
// tunes each mesh point once per vector class, because an odd n and a multiple of 4 want
// different configurations, and run time looks up the class of its own shape.
MeshPoint in_vector_class(Layout layout, std::int64_t m, std::int64_t n, int vector, std::size_t elem_size);

// The mesh: every point once per vector class (float: 16-, 8- and 4-byte loads; double: 16 and
// 8), moved to the nearest dimension of that class, that fits in max_elems; then its degenerate
// edges, m or n of 1, 2 and 3 against every value of the axis (the dimension of 1 to 3 stays as it is).
std::vector<MeshPoint> mesh_points(Layout layout, const std::vector<std::int64_t>& axis, std::int64_t max_elems,
                                   std::size_t elem_size);

}  // namespace gemv
