// Copies from global to shared memory that do not pass through registers (cp.async, compute
// capability 8.0 on): a thread issues all of its copies and waits once, instead of waiting on each
// load before it can store it. Steps 11 (flat row-major) and 17 (the staged kernels) use them.
#pragma once

#include <cstring>

namespace gemv {

// A shared-memory pointer as the 32-bit address PTX's shared-memory operands take.
__device__ __forceinline__ unsigned shared_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The `bytes` (0 to 16) bytes at `global` to `shared`, zero after them up to 16; both 16-byte
// aligned. Before compute capability 8.0: an ordinary load and store.
__device__ __forceinline__ void copy16_async(void* shared, const void* global, unsigned bytes = 16) {
#if __CUDA_ARCH__ >= 800
    const unsigned s = shared_address(shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(global), "r"(bytes) : "memory");
#else
    unsigned char piece[16] = {};
    memcpy(piece, global, bytes);
    memcpy(shared, piece, 16);
#endif
}

// The `bytes` (4 or 0) bytes at `global` to `shared`, zero where 0; both 4-byte aligned: for lines
// that do not start on 16 bytes in global memory (cp.async copies 4, 8 or 16 bytes; below 16
// through L1). Before compute capability 8.0: an ordinary load and store.
__device__ __forceinline__ void copy4_async(void* shared, const void* global, unsigned bytes = 4) {
#if __CUDA_ARCH__ >= 800
    const unsigned s = shared_address(shared);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(global), "r"(bytes) : "memory");
#else
    unsigned char piece[4] = {};
    memcpy(piece, global, bytes);
    memcpy(shared, piece, 4);
#endif
}

// The copies issued since the last commit form a group: wait_copies<pending>() returns when at
// most `pending` groups are still in flight (their bytes in shared memory are then this thread's
// to read; __syncthreads() makes the block's copies everyone's).
__device__ __forceinline__ void commit_copies() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int pending>
__device__ __forceinline__ void wait_copies() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
#endif
}

}  // namespace gemv
