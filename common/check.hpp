// Error checks for CUDA, cuBLAS and cuBLASLt calls: the failing call, the error's name and file:line.
#pragma once

#include "errors.hpp"

namespace gemv {

// Throws CudaError (errors.hpp): step mains turn it into one line on stderr and a non-zero exit.
[[noreturn]] void throw_cuda_error(const char* call, int code, const char* name, const char* file, int line);

}  // namespace gemv

#define GEMV_CUDA_CHECK(call)                                                                                   \
    do {                                                                                                        \
        const cudaError_t gemv_err_ = (call);                                                                   \
        if (gemv_err_ != cudaSuccess)                                                                           \
            ::gemv::throw_cuda_error(#call, static_cast<int>(gemv_err_), cudaGetErrorName(gemv_err_), __FILE__, \
                                     __LINE__);                                                                 \
    } while (0)

// After a kernel launch: launch errors now, and (in debug builds) errors inside the kernel.
#define GEMV_CUDA_CHECK_LAUNCH() GEMV_CUDA_CHECK(cudaGetLastError())

#define GEMV_CUBLAS_CHECK(call)                                                                                  \
    do {                                                                                                         \
        const cublasStatus_t gemv_st_ = (call);                                                                  \
        if (gemv_st_ != CUBLAS_STATUS_SUCCESS)                                                                   \
            ::gemv::throw_cuda_error(#call, static_cast<int>(gemv_st_), cublasGetStatusName(gemv_st_), __FILE__, \
                                     __LINE__);                                                                  \
    } while (0)

// cuBLASLt's calls return cuBLAS's status type; their names come from cuBLASLt's own table.
#define GEMV_CUBLASLT_CHECK(call)                                                                                  \
    do {                                                                                                           \
        const cublasStatus_t gemv_st_ = (call);                                                                    \
        if (gemv_st_ != CUBLAS_STATUS_SUCCESS)                                                                     \
            ::gemv::throw_cuda_error(#call, static_cast<int>(gemv_st_), cublasLtGetStatusName(gemv_st_), __FILE__, \
                                     __LINE__);                                                                    \
    } while (0)
