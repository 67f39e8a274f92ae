#pragma once

#include <cublasLt.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "device.hpp"
#include "problem.hpp"

// The yardstick of step 15's fp8 (not part of step 12's exercise). cuBLAS's ?gemv and GemmEx take no fp8; its
// product of e4m3 A and x is cuBLASLt's matmul with one column of B, added up in float (CUBLAS_COMPUTE_32F), y in
// float. cuBLASLt documents what its fp8 matmul takes on Ada and Hopper (cublasLtMatmul() and "Tensor Core Usage"
// in https://docs.nvidia.com/cuda/cublas/): A transposed and B not (the "TN" form), every leading dimension, and the
// size that runs along it, a whole 16 bytes, 16-byte aligned pointers. Row-major A is the column-major n×m matrix
// Aᵀ with ld n, so op T on it is the TN form (as step 12's op T); column-major A would be op N, which fp8 does not
// take there. Its rules say nothing of B's columns: x is B with one column (N = 1), not padded. Sixteen zero columns
// would make cuBLASLt write 16·m floats of D where the GEMV writes m: not the product the lab times, so where the
// heuristic finds no algorithm for N = 1 the shape has no yardstick.

// The documented rules alone, on the host: "" where they allow the GEMV of A m×n in layout, else the reason.
std::string cublaslt_fp8_rules_refusal(gemv::Layout layout, std::int64_t m, std::int64_t n);

// y = A·x (times a per-tensor scale, where given) for A m×n and x in fp8 e4m3, y in float: a plan made once per
// shape (handle, descriptors, the heuristic's algorithm and its workspace), so that a call is cublasLtMatmul alone.
class CublasLtFp8Gemv {
public:
    // scale: a device pointer to one float that multiplies A (the weights' per-tensor scale); none means 1.
    // Asks the GPU only where the rules allow the shape.
    CublasLtFp8Gemv(gemv::Layout layout, std::int64_t m, std::int64_t n, const float* scale = nullptr);
    ~CublasLtFp8Gemv();
    CublasLtFp8Gemv(const CublasLtFp8Gemv&) = delete;
    CublasLtFp8Gemv& operator=(const CublasLtFp8Gemv&) = delete;

    // Whether cuBLASLt takes the shape: the rules allow it and its heuristic gave an algorithm on this GPU.
    bool takes() const { return refusal_.empty(); }
    const std::string& refusal() const { return refusal_; }  // why not, in one line; "" where it takes it
    // y need not hold anything before (beta is 0). Throws UsageError where !takes() or a pointer is not aligned
    // as the algorithm was chosen for. Not const: the call writes the plan's workspace.
    void operator()(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* x, float* y, cudaStream_t stream);

private:
    void release();  // the handle and descriptors, where made

    std::string refusal_;
    cublasLtHandle_t handle_ = nullptr;
    cublasLtMatmulDesc_t op_ = nullptr;
    cublasLtMatrixLayout_t a_ = nullptr, x_ = nullptr, y_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
    gemv::DeviceArray<unsigned char> workspace_;
};

// CublasLtFp8Gemv(layout, m, n).takes(), for callers that only ask.
bool cublaslt_fp8_takes(gemv::Layout layout, std::int64_t m, std::int64_t n);
