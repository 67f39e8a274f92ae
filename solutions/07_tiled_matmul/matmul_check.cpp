#include "matmul_check.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "device.hpp"
#include "problem.hpp"

template <class T>
MatmulProblem<T> make_matmul_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed) {
    MatmulProblem<T> p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.A = gemv::HostArray<T>(static_cast<std::size_t>(gemv::matrix_bytes(m, k, sizeof(T)) / sizeof(T)));
    p.B = gemv::HostArray<T>(static_cast<std::size_t>(gemv::matrix_bytes(k, n, sizeof(T)) / sizeof(T)));
    gemv::fill_matrix(p.A.data(), gemv::Shape{m, k, gemv::Layout::row}, seed);
    gemv::fill_matrix(p.B.data(), gemv::Shape{k, n, gemv::Layout::row}, seed + 1);
    return p;
}

template <class T>
gemv::Reference matmul_reference(const MatmulProblem<T>& p) {
    const std::int64_t m = p.m, n = p.n, k = p.k;
    gemv::Reference ref;
    ref.y.assign(static_cast<std::size_t>(m * n), 0.0);
    ref.abs_sum.assign(static_cast<std::size_t>(m * n), 0.0);
    // Row i of C is a sum of rows of B scaled by row i of A: contiguous loads throughout.
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < m; ++i) {
        double* c = ref.y.data() + i * n;
        double* c_abs = ref.abs_sum.data() + i * n;
        for (std::int64_t l = 0; l < k; ++l) {
            const double a = static_cast<double>(p.A[static_cast<std::size_t>(i * k + l)]);
            const T* b = p.B.data() + l * n;
            for (std::int64_t j = 0; j < n; ++j) {
                const double prod = a * static_cast<double>(b[j]);
                c[j] += prod;
                c_abs[j] += std::fabs(prod);
            }
        }
    }
    return ref;
}

template <class T>
gemv::Verification verify_matmul(const T* C, const gemv::Reference& ref, std::int64_t m, std::int64_t n,
                                 std::int64_t k) {
    // The GEMV verifier sees C as m·n "rows" of length k: the same bound, k·eps·Σ|a_il·b_lj|.
    gemv::Verification v = gemv::verify(C, ref, k, gemv::RunsOn::gpu);
    if (v.ok) return v;
    std::ostringstream msg;
    msg << v.failed << " of " << m * n << " elements of C (" << m << " x " << n << ") are wrong";
    if (v.unwritten == v.failed)
        msg << ": they were never written (they still hold the NaN poured in before the launch). Does every element"
            << " of C get a thread, past the last full tile too, and does that thread store its sum?";
    else if (v.unwritten > 0)
        msg << " (" << v.unwritten << " never written, still NaN; the rest outside the bound k*eps*sum|a_il*b_lj|).";
    else
        msg << ": outside the bound k*eps*sum|a_il*b_lj|. Check the indexing of A and B, and the zeros loaded past"
            << " the edges of partial tiles.";
    msg << " First failing elements:";
    for (const std::int64_t e : v.first_failed) {
        const std::size_t idx = static_cast<std::size_t>(e);
        msg << "\n  C(" << e / n << ", " << e % n << "): got " << static_cast<double>(C[idx]) << ", expected "
            << ref.y[idx];
    }
    v.message = msg.str();
    return v;
}

template <class T>
gemv::Verification run_and_verify_matmul_gpu(const MatmulProblem<T>& p,
                                             const std::function<void(const T*, const T*, T*, cudaStream_t)>& kernel) {
    gemv::DeviceArray<T> A(p.A.size()), B(p.B.size()), C(static_cast<std::size_t>(p.m * p.n));
    A.upload(p.A.data());
    B.upload(p.B.data());
    C.poison();
    kernel(A.data(), B.data(), C.data(), 0);
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> out(C.size());
    C.download(out.data());
    return verify_matmul(out.data(), matmul_reference(p), p.m, p.n, p.k);
}

#define GEMV_STEP07_CHECK_INSTANTIATE(T)                                                                       \
    template MatmulProblem<T> make_matmul_problem<T>(std::int64_t, std::int64_t, std::int64_t, std::uint64_t); \
    template gemv::Reference matmul_reference<T>(const MatmulProblem<T>&);                                     \
    template gemv::Verification verify_matmul<T>(const T*, const gemv::Reference&, std::int64_t, std::int64_t, \
                                                 std::int64_t);                                                \
    template gemv::Verification run_and_verify_matmul_gpu<T>(                                                  \
        const MatmulProblem<T>&, const std::function<void(const T*, const T*, T*, cudaStream_t)>&);

GEMV_STEP07_CHECK_INSTANTIATE(float)
GEMV_STEP07_CHECK_INSTANTIATE(double)
