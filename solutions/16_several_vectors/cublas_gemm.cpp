#include "cublas_gemm.hpp"

#include "check.hpp"

template <class T>
void gemm_cublas(CublasHandle& handle, const T* A, const T* X, float* Y, std::int64_t m, std::int64_t n, int k,
                 gemv::Layout layout, cudaStream_t stream) {
    gemv_cublas_require_int_sizes(m, n);
    const cublasHandle_t h = handle.on(stream);
    const int rows = static_cast<int>(m), cols = static_cast<int>(n);
    const float one = 1, zero = 0;
    const bool col = layout == gemv::Layout::col;
    const cublasOperation_t op = col ? CUBLAS_OP_N : CUBLAS_OP_T;
    const int lda = col ? rows : cols;
    if constexpr (std::is_same_v<T, float>) {
        GEMV_CUBLAS_CHECK(cublasSgemm(h, op, CUBLAS_OP_N, rows, k, cols, &one, A, lda, X, cols, &zero, Y, rows));
    } else {
        GEMV_CUBLAS_CHECK(cublasGemmEx(h, op, CUBLAS_OP_N, rows, k, cols, &one, A, CUDA_R_16BF, lda, X, CUDA_R_16BF,
                                       cols, &zero, Y, CUDA_R_32F, rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
}

template void gemm_cublas<float>(CublasHandle&, const float*, const float*, float*, std::int64_t, std::int64_t, int,
                                 gemv::Layout, cudaStream_t);
template void gemm_cublas<__nv_bfloat16>(CublasHandle&, const __nv_bfloat16*, const __nv_bfloat16*, float*,
                                         std::int64_t, std::int64_t, int, gemv::Layout, cudaStream_t);
