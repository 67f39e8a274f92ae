#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device.hpp"
#include "several_vectors.hpp"
#include "storage.hpp"

// Step 16's kernel: Y = A·X for k vectors, A m×n in T (float or bf16) in `layout`, X n×k and Y
// m×k column-major, Y in float. It runs the plan (several_vectors.hpp) it is given; where the plan
// slices the columns it zeroes Y first (in the stream) and adds partial sums with atomicAdd.

namespace gemv::several {

// Register-blocked (the kernels: register_blocked.cuh, the exercise; their launches:
// gemv_register_blocked.cu): each thread keeps plan.group sums in registers and reads each element
// of A once for all of them. A plan whose group no kernel was compiled for is refused.
template <class T>
void gemv_register_blocked(const several::Plan& plan, gemv::Layout layout, const T* A, const T* X, float* Y,
                           std::int64_t m, std::int64_t n, int k, cudaStream_t stream);

// The launch of a register-blocked plan, for the occupancy report.
template <class T>
gemv::Launch launch_of(const several::Plan& plan, gemv::Layout layout);

}  // namespace gemv::several
