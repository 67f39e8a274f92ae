// The shapes step 11's tools measure beyond the mesh: shapes typed on the command line, and odd
// shapes drawn from a seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mesh.hpp"

using Shape2 = gemv::MeshPoint;  // m, n

// "807x168107,3109x23813" as shapes, or why not ("" when the text is good).
std::string parse_shapes(const std::string& text, std::vector<Shape2>* out = nullptr);

// Shapes nobody chose: m and n odd (or prime, every other shape) at footprints of A drawn evenly
// in log from 4 MiB to 2 GiB, any aspect from 1:10^5 to 10^5:1; then m or n of 1, 2 and 3.
std::vector<Shape2> odd_shapes(std::uint64_t seed, int count, std::size_t elem, std::int64_t max_elems);
