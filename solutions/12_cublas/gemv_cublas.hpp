#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cublas_handle.hpp"
#include "problem.hpp"

// Step 12: y = A·x through cuBLAS, the yardstick of the ladder. cuBLAS is column-major, like
// Fortran BLAS: column-major A is its own matrix (op N, lda = m); row-major A, read column by
// column, is the n×m matrix Aᵀ, so y = A·x is op T on it (lda = n). No copy, no transpose.

// One cuBLAS handle for the whole run (common/cublas_handle.hpp).
using gemv::CublasHandle;

// cuBLAS takes int sizes: refuses (UsageError) m or n past INT_MAX rather than truncate them.
void gemv_cublas_require_int_sizes(std::int64_t m, std::int64_t n);

// y = A·x for A m×n in the given layout; y need not hold anything before (beta is 0).
template <class T>
void gemv_cublas(CublasHandle& handle, const T* A, const T* x, T* y, std::int64_t m, std::int64_t n,
                 gemv::Layout layout, cudaStream_t stream);
