#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace gemv {

template <class T>
Reference compute_reference(const T* A, const T* x, const Shape& s) {
    Reference ref;
    ref.y.assign(static_cast<std::size_t>(s.m), 0.0);
    ref.abs_sum.assign(static_cast<std::size_t>(s.m), 0.0);
    if (s.layout == Layout::row) {
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < s.m; ++i) {
            double sum = 0, abs_sum = 0;
            const T* row = A + i * s.n;
            for (std::int64_t j = 0; j < s.n; ++j) {
                const double p = static_cast<double>(row[j]) * static_cast<double>(x[j]);
                sum += p;
                abs_sum += std::fabs(p);
            }
            ref.y[i] = sum;
            ref.abs_sum[i] = abs_sum;
        }
    } else {
        // Column-major: each thread owns a block of rows and walks the columns, so every load
        // is contiguous.
#pragma omp parallel
        {
            std::vector<double> sum, abs_sum;
#pragma omp for schedule(static)
            for (std::int64_t i0 = 0; i0 < s.m; i0 += 4096) {
                const std::int64_t rows = std::min<std::int64_t>(4096, s.m - i0);
                sum.assign(static_cast<std::size_t>(rows), 0.0);
                abs_sum.assign(static_cast<std::size_t>(rows), 0.0);
                for (std::int64_t j = 0; j < s.n; ++j) {
                    const T* col = A + j * s.m + i0;
                    const double xj = static_cast<double>(x[j]);
                    for (std::int64_t r = 0; r < rows; ++r) {
                        const double p = static_cast<double>(col[r]) * xj;
                        sum[r] += p;
                        abs_sum[r] += std::fabs(p);
                    }
                }
                for (std::int64_t r = 0; r < rows; ++r) {
                    ref.y[i0 + r] = sum[r];
                    ref.abs_sum[i0 + r] = abs_sum[r];
                }
            }
        }
    }
    return ref;
}

double error_bound(double abs_sum, std::int64_t n, Precision precision) {
    // bf16, fp16 and fp8 are added up in float: the reference is computed from the same stored
    // values, so only the float sum's error remains.
    const double eps =
        precision == Precision::f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
    return static_cast<double>(n) * eps * abs_sum;
}

template <class T>
T poison_value() {
    return std::numeric_limits<T>::quiet_NaN();
}

namespace {

const char* unwritten_advice(RunsOn where) {
    switch (where) {
        case RunsOn::cpu:
            return "Does the loop over the rows reach every row (check its bounds), and is each row's sum stored in y?";
        case RunsOn::gpu:
            return "Is every row given to a thread (check the grid and its guard), and is its sum stored in y?";
        case RunsOn::mpi:
            return "Does every rank compute its block of rows, and does the gather bring every block back (check the"
                   " counts and displacements)?";
    }
    return "";
}

}  // namespace

template <class T>
Verification verify(const T* y, const Reference& ref, std::int64_t n, RunsOn where) {
    Verification v;
    v.rows = static_cast<std::int64_t>(ref.y.size());
    constexpr std::size_t kShown = 5;
    std::ostringstream detail;
    for (std::int64_t i = 0; i < v.rows; ++i) {
        const double got = static_cast<double>(y[i]);
        const double want = ref.y[i];
        bool good;
        if (!std::isfinite(want)) {
            good = (std::isnan(want) && std::isnan(got)) || got == want;
        } else {
            // NaN fails this comparison by itself.
            good = std::fabs(got - want) <= error_bound(ref.abs_sum[i], n, precision_of<T>());
        }
        if (good) continue;
        ++v.failed;
        const bool unwritten = std::isnan(got) && std::isfinite(want);
        if (unwritten) ++v.unwritten;
        if (v.first_failed.size() < kShown) {
            v.first_failed.push_back(i);
            detail << "\n  row " << i << ": got " << got << ", expected " << want;
            if (std::isfinite(want) && !std::isnan(got))
                detail << " (error " << std::fabs(got - want) << ", bound "
                       << error_bound(ref.abs_sum[i], n, precision_of<T>()) << ")";
        }
    }
    v.ok = v.failed == 0;
    if (!v.ok) {
        std::ostringstream msg;
        msg << v.failed << " of " << v.rows << " rows of y are wrong";
        if (v.unwritten == v.failed)
            msg << ": they were never written (they still hold the NaN poured in before the run). "
                << unwritten_advice(where);
        else if (v.unwritten > 0)
            msg << " (" << v.unwritten << " of them never written, still NaN; the rest outside the bound"
                << " n*eps*sum|a_ij*x_j|).";
        else
            msg << ": outside the bound n*eps*sum|a_ij*x_j|. Check the indexing of A and x, and that"
                << " every partial sum is counted once.";
        msg << " First failing rows:" << detail.str();
        v.message = msg.str();
    }
    return v;
}

template Reference compute_reference<float>(const float*, const float*, const Shape&);
template Reference compute_reference<double>(const double*, const double*, const Shape&);
template Verification verify<float>(const float*, const Reference&, std::int64_t, RunsOn);
template Verification verify<double>(const double*, const Reference&, std::int64_t, RunsOn);
template float poison_value<float>();
template double poison_value<double>();

}  // namespace gemv
