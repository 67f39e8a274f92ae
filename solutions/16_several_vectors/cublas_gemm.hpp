#pragma once

#include <cstdint>

#include "gemv_cublas.hpp"
#include "storage.hpp"

// The yardstick of step 16: Y = A·X as cuBLAS's gemm, called as step 12 calls gemv, without
// copies: column-major A is op N (lda = m), row-major A is op T on its column-major transpose
// (lda = n). X is B (n×k, ldb = n), Y is C (m×k, ldc = m). Float: cublasSgemm (FP32, no TF32: the
// handle's default math mode). bf16: cublasGemmEx, A and X in bf16, Y in float, CUBLAS_COMPUTE_32F
// (float sums; cuBLAS may use the tensor cores for it).
template <class T>
void gemm_cublas(CublasHandle& handle, const T* A, const T* X, float* Y, std::int64_t m, std::int64_t n, int k,
                 gemv::Layout layout, cudaStream_t stream);
