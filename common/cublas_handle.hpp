// One cuBLAS handle for the whole run: creating one costs far more than a small product, so it is
// made once, and the harness's warm-up runs pay for cuBLAS's first-call set-up. Header-only, in
// the target gemv_common_cublas (which links cuBLAS): steps 07 and 12, and those that run 12's calls.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "check.hpp"

namespace gemv {

class CublasHandle {
public:
    CublasHandle() { GEMV_CUBLAS_CHECK(cublasCreate(&handle_)); }
    ~CublasHandle() {
        if (handle_) cublasDestroy(handle_);
    }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    // The handle, bound to stream (cublasSetStream only when the stream changes).
    cublasHandle_t on(cudaStream_t stream) {
        if (stream != stream_) {
            GEMV_CUBLAS_CHECK(cublasSetStream(handle_, stream));
            stream_ = stream;
        }
        return handle_;
    }

private:
    cublasHandle_t handle_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

}  // namespace gemv
