// PTX's bf16 MMA, shared by step 17's two tensor-core kernels.
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
