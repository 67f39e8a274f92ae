#include "gemv_cublas_ex.hpp"

#include "check.hpp"

namespace {

template <class T>
cudaDataType_t cuda_type_of();
template <>
cudaDataType_t cuda_type_of<__nv_bfloat16>() {
    return CUDA_R_16BF;
}
template <>
cudaDataType_t cuda_type_of<__half>() {
    return CUDA_R_16F;
}

}  // namespace

template <class T>
void gemv_cublas_ex(CublasHandle& handle, const T* A, const T* x, float* y, std::int64_t m, std::int64_t n,
                    gemv::Layout layout, cudaStream_t stream) {
    gemv_cublas_require_int_sizes(m, n);
    const cublasHandle_t h = handle.on(stream);
    const int rows = static_cast<int>(m), cols = static_cast<int>(n);
    const float one = 1, zero = 0;  // the scale type of CUBLAS_COMPUTE_32F
    const bool col = layout == gemv::Layout::col;
    // C (m×1) = op(A) (m×n) · B (n×1): x is B, a matrix of one column.
    GEMV_CUBLAS_CHECK(cublasGemmEx(h, col ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, rows, 1, cols, &one, A,
                                   cuda_type_of<T>(), col ? rows : cols, x, cuda_type_of<T>(), cols, &zero, y,
                                   CUDA_R_32F, rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

template void gemv_cublas_ex<__nv_bfloat16>(CublasHandle&, const __nv_bfloat16*, const __nv_bfloat16*, float*,
                                            std::int64_t, std::int64_t, gemv::Layout, cudaStream_t);
template void gemv_cublas_ex<__half>(CublasHandle&, const __half*, const __half*, float*, std::int64_t, std::int64_t,
                                     gemv::Layout, cudaStream_t);
