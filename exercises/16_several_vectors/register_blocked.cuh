// Generated from solutions/16_several_vectors/register_blocked.cuh by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 16
// Step 16's kernels, the exercise: the register-blocked kernel for column-major and for row-major
// A, for T (float or bf16), G vectors a thread and R rows (several_vectors.hpp). Included by
// gemv_register_blocked.cu, which launches the instance a plan asks for.
#pragma once

#include <cstdint>

#include "storage.hpp"

namespace gemv::several {
namespace {

// Columns a thread's loop takes at once, so that the loads of several columns are in flight
// together. Chosen by measurement on the H100 (slides/data/step16/h100_unroll.csv: 2, 4 and 8
// for every group): in column-major one or two vectors take 8 (a column there is little work
// beside its load), 4 or 8 vectors 2 (more leaves too few registers), 16 vectors 4; row-major 4.
__host__ __device__ constexpr int columns_at_once_col(int group) {
    return group <= 2 ? 8 : group < 16 ? 2 : 4;
}
constexpr int kColumnsAtOnceRow = 4;

// BEGIN EXCERPT column-major
// Column-major A: a thread adds up R rows (1, or 2 with 16 vectors), 32 apart, so that a warp
// reads 32 consecutive elements of a column at a time (coalesced). The thread keeps R·G sums: it
// loads the G values of X at column j once (the warp's lanes share each one: a broadcast) and uses
// them for its R rows, and multiplies each element of A it loads by the G values. A is read once
// for G vectors, X once for 32·R rows: CGMA grows with both, as with a GEMM's register tile.
template <class T, int G, int R>
__global__ void register_blocked_col(const T* A, const T* X, float* Y, std::int64_t m, std::int64_t n, int k,
                                     std::int64_t per, bool atomic) {
    const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const std::int64_t i0 = warp * 32 * R + threadIdx.x % 32;  // rows i0 + 32·r for r < R
    if (i0 >= m) return;
    const int c0 = blockIdx.z * G;             // the group's first vector
    const int kc = min(G, k - c0);             // vectors in this group (the last may be short)
    const std::int64_t j0 = blockIdx.y * per;  // this slice of the columns
    const std::int64_t j1 = min(n, j0 + per);
    const T* Xg = X + std::int64_t(c0) * n;  // vector c of the group at Xg + c·n
    float acc[R][G] = {};
    // For each column j: the G values x_c[j] once (0 past kc), then each row i0 + 32·r inside the matrix.
    // TODO: for each j: x[c] = x_c[j] for c < kc; for r: a = a(i0 + 32·r, j), acc[r][c] += a·x[c]
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < G; ++c)
            if (i0 + 32 * r < m && c < kc) {
                float* y = Y + std::int64_t(c0 + c) * m + i0 + 32 * r;
                if (atomic)
                    atomicAdd(y, acc[r][c]);
                else
                    *y = acc[r][c];
            }
}
// END EXCERPT column-major

// BEGIN EXCERPT row-major
// Row-major A: a warp adds up R rows at once, its lanes along the columns (coalesced). Each lane
// loads G values of X at its column once and uses them for the R rows; each element of A it loads
// is multiplied by the G values. The warp folds each of its R·G sums with shuffles.
template <class T, int G, int R>
__global__ void register_blocked_row(const T* A, const T* X, float* Y, std::int64_t m, std::int64_t n, int k,
                                     std::int64_t per, bool atomic) {
    const std::int64_t r0 = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * R;
    const int lane = threadIdx.x % 32;
    if (r0 >= m) return;  // the whole warp
    const int rows = int(min(std::int64_t(R), m - r0));
    const int c0 = blockIdx.z * G;
    const int kc = min(G, k - c0);
    const std::int64_t j0 = blockIdx.y * per;
    const std::int64_t j1 = min(n, j0 + per);
    const T* Xg = X + std::int64_t(c0) * n;
    float acc[R][G] = {};
    // For each column j (lanes 32 apart): the G values x_c[j] once (0 past kc), then each of the rows.
    // TODO: for each j: x[c] = x_c[j] for c < kc; for r < rows: a = a(r0 + r, j), acc[r][c] += a·x[c]
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < G; ++c) {
            float s = acc[r][c];
            for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
            if (lane == 0 && r < rows && c < kc) {
                float* y = Y + std::int64_t(c0 + c) * m + r0 + r;
                if (atomic)
                    atomicAdd(y, s);
                else
                    *y = s;
            }
        }
}
// END EXCERPT row-major

}  // namespace
}  // namespace gemv::several
