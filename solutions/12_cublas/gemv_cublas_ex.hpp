#pragma once

#include <cstdint>
#include <type_traits>

#include "gemv_cublas.hpp"
#include "storage.hpp"

// The yardstick in the formats of step 15 (not part of step 12's exercise). cuBLAS has no ?gemv for bf16 or fp16: its
// product of a matrix and a vector in those formats is cublasGemmEx with a single column, A and x in T, y in float,
// added up in float (CUBLAS_COMPUTE_32F). GemmEx takes no fp8: there the yardstick is cuBLASLt's fp8 matmul
// (gemv_cublaslt_fp8.hpp), on the shapes it takes.
template <class T>
constexpr bool cublas_gemm_ex_takes = !std::is_same_v<T, __nv_fp8_e4m3>;

// y = A·x for A m×n in the given layout, as step 12 calls it: op N on column-major A, op T on
// row-major A read as its column-major transpose.
template <class T>
void gemv_cublas_ex(CublasHandle& handle, const T* A, const T* x, float* y, std::int64_t m, std::int64_t n,
                    gemv::Layout layout, cudaStream_t stream);
