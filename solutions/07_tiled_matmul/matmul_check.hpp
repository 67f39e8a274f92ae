#pragma once

// Step 07's problem and its check, shared by the program and the test: seeded A (m×k) and
// B (k×n), a double-precision CPU reference, and the GEMV lab's verifier held to the matmul's
// bound k·eps·Σ_l |a_il·b_lj| for each element of C.
#include <cstdint>
#include <functional>

#include "host_array.hpp"
#include "verify.hpp"

#include <cuda_runtime.h>

template <class T>
struct MatmulProblem {
    std::int64_t m = 0, n = 0, k = 0;
    gemv::HostArray<T> A;  // m×k, row-major
    gemv::HostArray<T> B;  // k×n, row-major
};

// Values in [-1, 1) from the lab's generator: A from seed, B from seed + 1 (never the same matrix).
template <class T>
MatmulProblem<T> make_matmul_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed);

// C in double and Σ_l |a_il·b_lj|, element (i, j) at i·n + j.
template <class T>
gemv::Reference matmul_reference(const MatmulProblem<T>& p);

// NaN-safe check of C against the reference; the message names elements C(i, j).
template <class T>
gemv::Verification verify_matmul(const T* C, const gemv::Reference& ref, std::int64_t m, std::int64_t n,
                                 std::int64_t k);

// Uploads A and B, poisons C with NaN, runs kernel(A, B, C) once, downloads C and verifies it.
template <class T>
gemv::Verification run_and_verify_matmul_gpu(const MatmulProblem<T>& p,
                                             const std::function<void(const T*, const T*, T*, cudaStream_t)>& kernel);
