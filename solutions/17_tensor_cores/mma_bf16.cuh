// PTX's bf16 MMA, shared by step 17's two tensor-core kernels, and the shared-memory loads of its
// fragments (ldmatrix) that the staged one takes where lines lie whole.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

// D = A·B for one 16 × 8 × 16 fragment (bf16 in, float out) from a zero accumulator: PTX's
// mma.sync.m16n8k16. A lane (g, t) = (lane / 4, lane % 4) holds, as pairs of bf16 in 32 bits,
//   a[0] = A(g, 2t..2t+1), a[1] = A(g+8, 2t..2t+1), a[2] = A(g, 2t+8..2t+9), a[3] = A(g+8, 2t+8..2t+9),
//   b0 = B(2t..2t+1, g), b1 = B(2t+8..2t+9, g),
// and gets d[0..1] = D(g, 2t..2t+1), d[2..3] = D(g+8, 2t..2t+1).
__device__ __forceinline__ void mma_16x8x16(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                            std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // BEGIN EXCERPT mma
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%10,%10,%10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(0.0f));
    // END EXCERPT mma
#else
    __trap();  // bf16 MMA needs compute capability 8.0; the chooser never comes here below it
#endif
}

// Four 8 × 8 matrices of 16-bit elements from shared memory in one instruction (PTX's ldmatrix,
// compute capability 7.5 on): lane 8j + r gives the shared-memory address of row r of matrix j, 16
// bytes on 16, and d[j] gets the lane's share of matrix j as an mma fragment register wants it:
// lane (g, t), elements 2t and 2t + 1 of row g (`transposed`: of column g, rows 2t and 2t + 1).
template <bool transposed = false>
__device__ __forceinline__ void load_matrices_x4(std::uint32_t (&d)[4], std::uint32_t address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    if constexpr (transposed)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                     : "r"(address));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                     : "r"(address));
#else
    __trap();  // ldmatrix needs compute capability 7.5; the staged kernel runs from 8.0 only
#endif
}

// The same for two matrices, into d0 and d1: lanes 0-15 give the addresses.
__device__ __forceinline__ void load_matrices_x2(std::uint32_t& d0, std::uint32_t& d1, std::uint32_t address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(d0), "=r"(d1) : "r"(address));
#else
    __trap();  // ldmatrix needs compute capability 7.5; the staged kernel runs from 8.0 only
#endif
}
