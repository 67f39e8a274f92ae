#include <mma.h>

#include <stdexcept>

#include "gemv_several.cuh"

// How far the tensor cores' float sums may stray, against the bound every step keeps,
// n·eps·Σ|a·x| with eps = 2^-23 (twice float's unit roundoff u = 2^-24):
//  - A product of two bf16 values (8 significant bits each) has at most 16 bits: exact in float.
//  - The tensor cores do not add as IEEE float does (Fasi et al., "Numerical behavior of NVIDIA
//    tensor cores", 2021; Khattak and Mikaitis, "Accurate models of NVIDIA tensor cores", 2025):
//    a step adds a few products and the accumulator at once, aligned to the largest term with at
//    least float's 24 bits, and truncates. Each term then loses less than one unit in the last
//    place of the largest, eps·max, and the result at most eps·|sum|: a step of t terms errs by
//    less than t·eps·Σ|terms|. A 16-wide product that the hardware adds in h steps (8 products a
//    step on some parts: h = 2) errs by less than (16 + h - 1)·eps·Σ|its products|.
//  - Kept in one accumulator over a whole row, those errors would add up over n/16 fragments to
//    (n + n/16·h)·eps·Σ|a·x|: past the bound. So each 16-column step below starts from a zero
//    accumulator, and its result is added to the running sum by an ordinary float addition,
//    rounded to nearest (error at most u = eps/2 of the running sum).
//  - Over c = ceil(n/16) steps: at most (15 + h)·eps·Σ|a·x| from the fragments (each weighs its
//    own products) plus (c - 1)·u·Σ|a·x| from the additions, (15 + h + (c - 1)/2)·eps·Σ|a·x|,
//    within n·eps·Σ|a·x| for every n >= 20 with h <= 2 (first order; the second-order terms are
//    below 2^-23 of these). Slices of the columns added with atomicAdd are float additions too.
//    Below n = 20 the worst case (products just above a power of two, every one losing almost a
//    whole last place) could pass the bound by an eps or two; seeded random values in [-1, 1)
//    are nowhere near it, and the chooser takes tensor cores for long rows anyway.
namespace {

using namespace nvcuda;
using bf16 = __nv_bfloat16;
constexpr int kWarps = several::kTensorWarps;
constexpr int kRows = several::kTensorRows;  // rows a block: 16 a warp
constexpr int kTile = several::kTensorTile;  // columns of A staged at a time: 4 steps of 16
constexpr int kThreads = 32 * kWarps;        // a block (the plan's threads): a compile-time stride

// BEGIN EXCERPT tensor-cores
// A block of 4 warps owns 64 rows and B·16 vectors. For each tile of 64 columns it stages A's tile
// (64 × 64) and X's (64 × 16B) in shared memory, zero outside the matrix, so every shape works
// whatever its alignment; each warp multiplies its 16 rows by the B fragments of vectors, 16
// columns at a time, and adds each fragment's result to its float sums.
template <int B>
__global__ void __launch_bounds__(kThreads)
    tensor_cores_kernel(const bf16* A, const bf16* X, float* Y, std::int64_t m, std::int64_t n, int k, std::int64_t per,
                        bool atomic, bool row_major) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap();  // bf16 fragments need compute capability 8.0; the chooser never comes here below it
#else
    __shared__ __align__(32) bf16 sa[kRows * kTile];     // A's tile, row-major, 64 elements a row
    __shared__ __align__(32) bf16 sx[B * 16 * kTile];    // X's tile, column-major: vector v at v·64
    __shared__ __align__(32) float sy[kWarps][16 * 16];  // a warp's fragment on its way to Y
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const std::int64_t r0 = std::int64_t(blockIdx.x) * kRows;
    const int c0 = blockIdx.z * B * 16;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    const bf16 zero = __float2bfloat16(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> sum[B], step, nothing;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> x;
    wmma::fill_fragment(nothing, 0.0f);
#pragma unroll
    for (int b = 0; b < B; ++b) wmma::fill_fragment(sum[b], 0.0f);

    for (std::int64_t jt = j0; jt < j1; jt += kTile) {
        // Consecutive threads take consecutive addresses of A (along a row, or down a column).
#pragma unroll 4
        for (int e = threadIdx.x; e < kRows * kTile; e += kThreads) {
            const int r = row_major ? e / kTile : e % kRows, c = row_major ? e % kTile : e / kRows;
            const std::int64_t i = r0 + r, j = jt + c;
            sa[r * kTile + c] = i < m && j < j1 ? A[row_major ? i * n + j : j * m + i] : zero;
        }
#pragma unroll 4
        for (int e = threadIdx.x; e < B * 16 * kTile; e += kThreads) {
            const int c = e % kTile, v = e / kTile;
            const std::int64_t j = jt + c;
            sx[e] = j < j1 && c0 + v < k ? X[std::int64_t(c0 + v) * n + j] : zero;
        }
        __syncthreads();
#pragma unroll
        for (int s = 0; s < kTile / 16; ++s) {
            wmma::load_matrix_sync(a, sa + warp * 16 * kTile + s * 16, kTile);
#pragma unroll
            for (int b = 0; b < B; ++b) {
                wmma::load_matrix_sync(x, sx + b * 16 * kTile + s * 16, kTile);
                wmma::mma_sync(step, a, x, nothing);  // a fresh sum of 16 products (see the bound above)
#pragma unroll
                for (int t = 0; t < step.num_elements; ++t) sum[b].x[t] += step.x[t];
            }
        }
        __syncthreads();
    }
    // Y: through shared memory, since a fragment's layout in registers is the hardware's.
    for (int b = 0; b < B; ++b) {
        wmma::store_matrix_sync(sy[warp], sum[b], 16, wmma::mem_col_major);
        __syncwarp();
        for (int e = lane; e < 16 * 16; e += 32) {
            const std::int64_t i = r0 + warp * 16 + e % 16;
            const int v = c0 + b * 16 + e / 16;
            if (i < m && v < k) {
                float* y = Y + std::int64_t(v) * m + i;
                if (atomic)
                    atomicAdd(y, sy[warp][e]);
                else
                    *y = sy[warp][e];
            }
        }
        __syncwarp();
    }
#endif
}
// END EXCERPT tensor-cores

template <int B>
void launch(const several::Plan& p, gemv::Layout layout, const bf16* A, const bf16* X, float* Y, std::int64_t m,
            std::int64_t n, int k, cudaStream_t s) {
    const dim3 grid(unsigned(p.blocks), unsigned(p.slices), unsigned(p.groups));
    tensor_cores_kernel<B><<<grid, p.threads, 0, s>>>(A, X, Y, m, n, k, p.per, p.atomic(), layout == gemv::Layout::row);
}

}  // namespace

const void* tensor_cores_kernel_for(int group) {
    switch (group) {
        case 16:
            return reinterpret_cast<const void*>(&tensor_cores_kernel<1>);
        case 32:
            return reinterpret_cast<const void*>(&tensor_cores_kernel<2>);
        case 64:
            return reinterpret_cast<const void*>(&tensor_cores_kernel<4>);
        default:
            return reinterpret_cast<const void*>(&tensor_cores_kernel<8>);
    }
}

void gemv_tensor_cores(const several::Plan& p, gemv::Layout layout, const bf16* A, const bf16* X, float* Y,
                       std::int64_t m, std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != several::Kernel::tensor_cores || p.threads != kThreads)
        throw std::logic_error("gemv_tensor_cores needs a plan from plan_tensor_cores");
    if (p.atomic()) GEMV_CUDA_CHECK(cudaMemsetAsync(Y, 0, std::size_t(m) * std::size_t(k) * sizeof(float), s));
    switch (p.group) {
        case 16:
            launch<1>(p, layout, A, X, Y, m, n, k, s);
            break;
        case 32:
            launch<2>(p, layout, A, X, Y, m, n, k, s);
            break;
        case 64:
            launch<4>(p, layout, A, X, Y, m, n, k, s);
            break;
        default:
            launch<8>(p, layout, A, X, Y, m, n, k, s);
            break;
    }
    GEMV_CUDA_CHECK_LAUNCH();
}
