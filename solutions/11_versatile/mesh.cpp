#include "mesh.hpp"

#include <algorithm>
#include <cmath>

#include "shape_rules.hpp"

namespace gemv {

std::vector<std::int64_t> mesh_axis(int points, std::int64_t max_dim) {
    std::vector<std::int64_t> axis;
    for (int k = 0; k < points; ++k) {
        const double v = 10.0 * std::pow(double(max_dim) / 10.0, double(k) / double(points - 1));
        const auto value = static_cast<std::int64_t>(std::llround(v));
        if (axis.empty() || value > axis.back()) axis.push_back(value);
    }
    return axis;
}

MeshPoint in_vector_class(Layout layout, std::int64_t m, std::int64_t n, int vector, std::size_t elem) {
    std::int64_t& along = layout == Layout::col ? m : n;
    const bool widest = 2 * vector * elem > 16;
    along = std::max<std::int64_t>(vector, (along + vector / 2) / vector * vector);
    if (!widest && along % (2 * vector) == 0) along += vector;  // exactly this class, not a wider one
    return {m, n};
}

std::vector<MeshPoint> mesh_points(Layout layout, const std::vector<std::int64_t>& axis, std::int64_t max_elems,
                                   std::size_t elem) {
    std::vector<MeshPoint> points;
    const auto add = [&](MeshPoint p) {
        if (p.first * p.second <= max_elems && p.first <= axis.back() && p.second <= axis.back() &&
            std::find(points.begin(), points.end(), p) == points.end())
            points.push_back(p);
    };
    const bool col = layout == Layout::col;
    for (std::int64_t m : axis)
        for (std::int64_t n : axis)
            for (int v = widest_vector_of(elem); v >= 1; v /= 2) add(in_vector_class(layout, m, n, v, elem));
    for (std::int64_t d : {1, 2, 3})
        for (std::int64_t a : axis)
            for (int v = widest_vector_of(elem); v >= 1; v /= 2) {
                add(col ? MeshPoint{d, a} : in_vector_class(layout, d, a, v, elem));  // loads along m (n) stay d long
                add(col ? in_vector_class(layout, a, d, v, elem) : MeshPoint{a, d});
            }
    return points;
}

}  // namespace gemv
