// Generated from solutions/12_cublas/gemv_cublas.cpp by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 12
#include "gemv_cublas.hpp"

#include <climits>
#include <string>

#include "check.hpp"
#include "errors.hpp"

void gemv_cublas_require_int_sizes(std::int64_t m, std::int64_t n) {
    if (m > INT_MAX || n > INT_MAX)
        throw gemv::UsageError("cuBLAS's ?gemv takes int sizes and cannot take " + std::to_string(m) + " x " +
                               std::to_string(n) + " (at most " + std::to_string(INT_MAX) + " rows and columns)");
}

namespace {

// cublasSgemv and cublasDgemv under one name, so that the template below is written once.
cublasStatus_t cublas_gemv(cublasHandle_t h, cublasOperation_t op, int rows, int cols, const float* alpha,
                           const float* A, int lda, const float* x, int incx, const float* beta, float* y, int incy) {
    return cublasSgemv(h, op, rows, cols, alpha, A, lda, x, incx, beta, y, incy);
}
cublasStatus_t cublas_gemv(cublasHandle_t h, cublasOperation_t op, int rows, int cols, const double* alpha,
                           const double* A, int lda, const double* x, int incx, const double* beta, double* y,
                           int incy) {
    return cublasDgemv(h, op, rows, cols, alpha, A, lda, x, incx, beta, y, incy);
}

}  // namespace

template <class T>
void gemv_cublas(CublasHandle& handle, const T* A, const T* x, T* y, std::int64_t m, std::int64_t n,
                 gemv::Layout layout, cudaStream_t stream) {
    gemv_cublas_require_int_sizes(m, n);
    const cublasHandle_t h = handle.on(stream);
    const int rows = static_cast<int>(m), cols = static_cast<int>(n);
    // alpha and beta are read from host memory (the default pointer mode); beta = 0 tells cuBLAS
    // not to read y, so the NaN poured into it beforehand does no harm.
    const T one = 1, zero = 0;
    // BEGIN EXCERPT calls
    if (layout == gemv::Layout::col) {
        // TODO: column-major A is cuBLAS's own m x n matrix: op N, lda = m, unit strides
    } else {
        // TODO: row-major A is the column-major n x m matrix A^T: op T on it, lda = n
    }
    // END EXCERPT calls
}

template void gemv_cublas<float>(CublasHandle&, const float*, const float*, float*, std::int64_t, std::int64_t,
                                 gemv::Layout, cudaStream_t);
template void gemv_cublas<double>(CublasHandle&, const double*, const double*, double*, std::int64_t, std::int64_t,
                                  gemv::Layout, cudaStream_t);
