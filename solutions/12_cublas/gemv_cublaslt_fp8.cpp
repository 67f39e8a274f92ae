#include "gemv_cublaslt_fp8.hpp"

#include <cstdint>
#include <initializer_list>
#include <string>

#include "check.hpp"
#include "errors.hpp"

namespace {

// The pointers' alignment the heuristic assumes unless told less (and cudaMalloc gives): its fastest algorithms may
// need it, so it stays, and the call checks it.
constexpr std::uint32_t kAlignment = 256;
// NVIDIA's advice for Hopper's split-K algorithms; the plan holds only what the chosen one asks for.
constexpr std::uint64_t kMaxWorkspaceBytes = 32ull << 20;

template <class V>
void set(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t what, const V& value) {
    GEMV_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(op, what, &value, sizeof value));
}
template <class V>
void set(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t what, const V& value) {
    GEMV_CUBLASLT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, what, &value, sizeof value));
}

}  // namespace

std::string cublaslt_fp8_rules_refusal(gemv::Layout layout, std::int64_t m, std::int64_t n) {
    const std::string shape = std::to_string(m) + " x " + std::to_string(n);
    if (layout == gemv::Layout::col)
        return "cuBLASLt's fp8 matmul takes A transposed only (the TN form): column-major A would be op N";
    // A's column (a row of row-major A), its leading dimension and x's: n bytes of e4m3.
    if (n % 16) return "cuBLASLt's fp8 matmul wants n a multiple of 16 (16-byte rows of A), not " + shape;
    // y, D's one column and its leading dimension: m floats.
    if (m % 4) return "cuBLASLt's fp8 matmul wants m a multiple of 4 (a 16-byte float y), not " + shape;
    return "";
}

CublasLtFp8Gemv::CublasLtFp8Gemv(gemv::Layout layout, std::int64_t m, std::int64_t n, const float* scale)
    : refusal_(cublaslt_fp8_rules_refusal(layout, m, n)) {
    if (!takes()) return;
    cublasLtMatmulPreference_t pref = nullptr;
    try {
        GEMV_CUBLASLT_CHECK(cublasLtCreate(&handle_));
        // D (m×1) = op(A) (m×n) · B (n×1), added up and scaled in float: A is Aᵀ stored n×m, op T; B is x.
        GEMV_CUBLASLT_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        set(op_, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
        set(op_, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
        // Partial sums promoted to float as they go, not fast accumulation: the lab's bound is a float sum's.
        set(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{0});
        if (scale) set(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, scale);
        GEMV_CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, n, m, n));
        GEMV_CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&x_, CUDA_R_8F_E4M3, n, 1, n));
        GEMV_CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&y_, CUDA_R_32F, m, 1, m));  // C and D: beta = 0
        GEMV_CUBLASLT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
        set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, kMaxWorkspaceBytes);
        for (auto which : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                           CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
            set(pref, which, kAlignment);
        // The rules are the documentation's; whether this GPU (fp8 needs compute capability 8.9 or more) and this
        // cuBLASLt have an algorithm for the shape, N = 1 included, only the heuristic says.
        cublasLtMatmulHeuristicResult_t best{};
        int found = 0;
        const cublasStatus_t heuristic =
            cublasLtMatmulAlgoGetHeuristic(handle_, op_, a_, x_, y_, y_, pref, 1, &best, &found);
        if (heuristic != CUBLAS_STATUS_NOT_SUPPORTED) GEMV_CUBLASLT_CHECK(heuristic);
        GEMV_CUBLASLT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
        pref = nullptr;
        if (heuristic == CUBLAS_STATUS_NOT_SUPPORTED || found == 0 || best.state != CUBLAS_STATUS_SUCCESS) {
            refusal_ = "cuBLASLt's heuristic has no fp8 algorithm for " + std::to_string(m) + " x " +
                       std::to_string(n) + " (one column of B) on this GPU";
            release();
            return;
        }
        algo_ = best.algo;
        workspace_ = gemv::DeviceArray<unsigned char>(best.workspaceSize);
    } catch (...) {
        if (pref) cublasLtMatmulPreferenceDestroy(pref);
        release();
        throw;
    }
}

CublasLtFp8Gemv::~CublasLtFp8Gemv() {
    release();
}

void CublasLtFp8Gemv::release() {
    if (y_) cublasLtMatrixLayoutDestroy(y_);
    if (x_) cublasLtMatrixLayoutDestroy(x_);
    if (a_) cublasLtMatrixLayoutDestroy(a_);
    if (op_) cublasLtMatmulDescDestroy(op_);
    if (handle_) cublasLtDestroy(handle_);
    y_ = x_ = a_ = nullptr;
    op_ = nullptr;
    handle_ = nullptr;
}

void CublasLtFp8Gemv::operator()(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* x, float* y, cudaStream_t stream) {
    if (!takes()) throw gemv::UsageError(refusal_);
    for (const void* p : {static_cast<const void*>(A), static_cast<const void*>(x), static_cast<const void*>(y)})
        if (reinterpret_cast<std::uintptr_t>(p) % kAlignment)
            throw gemv::UsageError("cuBLASLt's fp8 algorithm was chosen for A, x and y aligned to " +
                                   std::to_string(kAlignment) + " bytes, as cudaMalloc gives them");
    const float one = 1, zero = 0;  // host pointers, the scale type; beta = 0: y is not read
    GEMV_CUBLASLT_CHECK(cublasLtMatmul(handle_, op_, &one, A, a_, x, x_, &zero, y, y_, y, y_, &algo_, workspace_.data(),
                                       workspace_.size(), stream));
}

bool cublaslt_fp8_takes(gemv::Layout layout, std::int64_t m, std::int64_t n) {
    return CublasLtFp8Gemv(layout, m, n).takes();
}
