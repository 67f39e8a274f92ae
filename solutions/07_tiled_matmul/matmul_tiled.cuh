#pragma once

#include <cstdint>

#include "device.hpp"

// Step 07, the detour (Greenstreet, "CUDA: Matrix Multiplication"): C = A·B with A m×k, B k×n and
// C m×n, all row-major. mmult1 reads a row of A and a column of B from global memory for every
// element of C; mmult2 stages TILE×TILE tiles of A and B in shared memory and uses each loaded
// element TILE times. Both guard partial tiles, so no size has to be a multiple of TILE.

// mmult1: one thread per element of C, 16×16 threads a block.
template <class T>
gemv::Launch matmul_brute_force_launch(std::int64_t m, std::int64_t n, std::int64_t k);
template <class T>
void matmul_brute_force(const T* A, const T* B, T* C, std::int64_t m, std::int64_t n, std::int64_t k,
                        const gemv::Launch& launch, cudaStream_t stream);

// mmult2: one TILE×TILE block per tile of C; tile is 8, 16 or 32 (UsageError otherwise).
template <class T>
gemv::Launch matmul_tiled_launch(std::int64_t m, std::int64_t n, std::int64_t k, int tile);
template <class T>
void matmul_tiled(const T* A, const T* B, T* C, std::int64_t m, std::int64_t n, std::int64_t k, int tile,
                  const gemv::Launch& launch, cudaStream_t stream);

// The global loads and stores each kernel makes, in elements, for its CGMA (multiply-adds per
// global access, m·n·k of them).
// mmult1: every thread loads k elements of A and k of B and stores one of C: CGMA k/(2k+1) ≈ 1/2.
inline double matmul_brute_force_accesses(std::int64_t m, std::int64_t n, std::int64_t k) {
    const double mn = static_cast<double>(m) * static_cast<double>(n);
    return 2.0 * mn * static_cast<double>(k) + mn;
}
// mmult2: each element of A is loaded once per column of tiles of C, each element of B once per
// row of tiles (loads outside the matrices are zeros, not loads): CGMA ≈ TILE/2.
inline double matmul_tiled_accesses(std::int64_t m, std::int64_t n, std::int64_t k, int tile) {
    const double tile_cols = static_cast<double>(gemv::div_up(n, tile));
    const double tile_rows = static_cast<double>(gemv::div_up(m, tile));
    const double mk = static_cast<double>(m) * static_cast<double>(k);
    const double kn = static_cast<double>(k) * static_cast<double>(n);
    return tile_cols * mk + tile_rows * kn + static_cast<double>(m) * static_cast<double>(n);
}
inline double matmul_cgma(std::int64_t m, std::int64_t n, std::int64_t k, double accesses) {
    return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / accesses;
}
