#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>

#include "gemv_tensor.cuh"
#include "mma_bf16.cuh"
#include "realign.cuh"

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
//    are nowhere near it.
namespace gemv::several {
namespace {

using bf16 = __nv_bfloat16;
constexpr int kThreads = several::kTensorThreads;

// The eight bf16 at columns j .. j + 7 of a line of the matrix that starts at `line`, as four
// 32-bit pairs, zero outside the columns [lo, hi): one element at a time. Only the edges of a
// slice or of the matrix come here; out of line, so that it costs the main loop no registers.
__device__ __noinline__ uint4 load8_masked(const bf16* line, std::int64_t j, std::int64_t lo, std::int64_t hi) {
    const auto* h = reinterpret_cast<const unsigned short*>(line);
    unsigned long long w[2] = {0, 0};
    for (int e = 0; e < 8; ++e)
        if (j + e >= lo && j + e < hi) w[e / 4] |= static_cast<unsigned long long>(__ldg(h + j + e)) << (16 * (e % 4));
    return make_uint4(std::uint32_t(w[0]), std::uint32_t(w[0] >> 32), std::uint32_t(w[1]), std::uint32_t(w[1] >> 32));
}

// The same, one 16-byte load where all eight are inside and line + j is 16-byte aligned
// (`whole`: the caller knows it is whenever they are inside).
template <bool whole>
__device__ __forceinline__ uint4 load8(const bf16* line, std::int64_t j, std::int64_t lo, std::int64_t hi) {
    if (whole && j >= lo && j + 8 <= hi) return __ldg(reinterpret_cast<const uint4*>(line + j));
    return load8_masked(line, j, lo, hi);
}

// Four bf16 as two pairs, zero outside [lo, hi); `whole`: line + j is 8-byte aligned.
template <bool whole>
__device__ __forceinline__ uint2 load4(const bf16* line, std::int64_t j, std::int64_t lo, std::int64_t hi) {
    if (whole && j >= lo && j + 4 <= hi) return __ldg(reinterpret_cast<const uint2*>(line + j));
    const auto* h = reinterpret_cast<const unsigned short*>(line);
    std::uint32_t w[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) w[e] = j + e >= lo && j + e < hi ? __ldg(h + j + e) : 0u;
    return make_uint2(w[0] | w[1] << 16, w[2] | w[3] << 16);
}

// Eight bf16 at p[0..7] anywhere: the aligned 16 bytes that hold p[0] and, if p is not
// aligned, the next 16 (which hold p[7]), realigned. Two loads where one would do if aligned,
// but X's are L1 hits.
__device__ __forceinline__ uint4 load8_unaligned(const bf16* p) {
    const unsigned skip = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p) % 16);  // bytes
    const auto* q = reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(p) - skip);
    const uint4 lo = __ldg(q);
    return skip ? gemv::shift_down_bytes(lo, __ldg(q + 1), skip) : lo;
}

// A fragment's sum on its way to Y: stored, or added where the columns are sliced.
__device__ __forceinline__ void put(float* y, float v, bool atomic) {
    if (atomic)
        atomicAdd(y, v);
    else
        *y = v;
}

// Steps of columns whose loads a warp issues before it multiplies: two in row-major (64 bytes a
// row a step, so two make a row's 128-byte line), one in column-major (a step is 64 rows of 16
// columns, and the compiler's own unrolling of the loop kept more in flight than a second step
// did on the H100).
constexpr int kStepsRow = 2;
constexpr int kStepsCol = 1;

// Which rows and which group of vectors a warp takes. A block of 8 warps holds `shared` groups of
// vectors (1, 2, 4 or 8) side by side, over 8 / shared warps of rows: the warps that multiply the
// same rows by different vectors load the same bytes of A at about the same time, so that all but
// the first of those loads are L1 hits rather than trips to L2. The grid's x: blocks of rows ×
// the blocks of groups of one block of rows, side by side.
struct WarpRole {
    std::int64_t block;  // the block of rows
    int row_warp;        // the warp among the block's 8 / shared warps of rows
    int c0;              // the first of its group's 8·T vectors: none of them where c0 >= k
};
template <int T>
__device__ __forceinline__ WarpRole role_of(int groups, int shared) {
    const int warp = threadIdx.x / 32, row_warps = 8 / shared;
    const int blocks_of_groups = (groups + shared - 1) / shared;
    const int group = int(blockIdx.x % blocks_of_groups) * shared + warp / row_warps;
    return {blockIdx.x / blocks_of_groups, warp % row_warps, group * 8 * T};
}

// BEGIN EXCERPT tensor-cores-row
// Row-major A, straight from global memory into the fragments: no shared memory, no barrier.
// The k index of a fragment is a column of A and of X, and a sum does not care in which order
// its columns come: so a lane loads eight consecutive columns (one 16-byte load) and gives them
// to two fragments, the pairs 8t..8t+3 to the first and 8t+4..8t+7 to the second, and loads the
// same eight columns of its vector of X. A warp's 16 rows are i0, i0 + 8, …, i0 + 120: rows
// eight apart start equally far past a 16-byte boundary whatever n is, so the chunks of
// columns can start where those rows' boundaries fall (jb), and every load of A is aligned.
// The first and last chunk of a slice are zero outside it. T tiles of 8 vectors: 8·T vectors.
template <int T, bool x_whole>
__global__ void __launch_bounds__(kThreads)
    tensor_cores_row(const bf16* A, const bf16* X, float* Y, std::int64_t m, std::int64_t n, int k, std::int64_t per,
                     int groups, int shared, bool atomic) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    const WarpRole w = role_of<T>(groups, shared);
    if (w.c0 >= k) return;  // a block's last groups past the vectors
    const int c0 = w.c0;
    // A block's `shared` parts of 128 rows: row warps r·(8/shared) … of the 8 that the 128 rows need
    const std::int64_t i0 = w.block / shared * several::kTensorRowsRow + w.block % shared * (8 / shared) + w.row_warp;
    const std::int64_t row[2] = {i0 + 8 * g, i0 + 64 + 8 * g};  // this lane's fragment rows g and g + 8
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    const std::int64_t s = i0 % 8 * (n % 8) % 8;  // the warp's rows start s elements past a boundary
    const std::int64_t jb = j0 - (j0 + s) % 8;    // so (row·n + jb) is a multiple of 8
    float sum[T][4] = {};
#pragma unroll 1
    for (std::int64_t jc = jb; jc < j1; jc += 32 * kStepsRow) {
        uint4 a[kStepsRow][2];  // all the steps' loads of A first, so that they are in flight together
#pragma unroll
        for (int u = 0; u < kStepsRow; ++u)
#pragma unroll
            for (int r = 0; r < 2; ++r)
                a[u][r] = row[r] < m ? load8<true>(A + row[r] * n, jc + 32 * u + 8 * t, j0, j1) : uint4{};
#pragma unroll
        for (int u = 0; u < kStepsRow; ++u) {
            const std::int64_t j = jc + 32 * u + 8 * t;  // this lane's eight columns
#pragma unroll
            for (int q = 0; q < T; ++q) {
                const int v = c0 + 8 * q + g;  // this lane's vector in tile q
                const bf16* xv = X + std::int64_t(v) * n;
                uint4 x{};
                if (v < k)
                    x = x_whole || j < j0 || j + 8 > j1 ? load8<x_whole>(xv, j, j0, j1) : load8_unaligned(xv + j);
                float d[4];
                mma_16x8x16(d, a[u][0].x, a[u][1].x, a[u][0].y, a[u][1].y, x.x, x.y);  // columns j .. j + 3
#pragma unroll
                for (int e = 0; e < 4; ++e) sum[q][e] += d[e];
                mma_16x8x16(d, a[u][0].z, a[u][1].z, a[u][0].w, a[u][1].w, x.z, x.w);  // columns j + 4 .. j + 7
#pragma unroll
                for (int e = 0; e < 4; ++e) sum[q][e] += d[e];
            }
        }
    }
    // d[0..1]: row g, vectors 2t and 2t + 1 of the tile; d[2..3]: row g + 8.
#pragma unroll
    for (int q = 0; q < T; ++q)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const std::int64_t i = row[e / 2];
            const int v = c0 + 8 * q + 2 * t + e % 2;
            if (i < m && v < k) put(Y + std::int64_t(v) * m + i, sum[q][e], atomic);
        }
}
// END EXCERPT tensor-cores-row

// Rows i .. i + 7 of a column (i a multiple of 8) where the column starts anywhere: each lane
// loads the aligned 16 bytes that hold row i, s rows early, and takes the s rows it misses from
// the lane with the next eight rows (four lanes on); the warp's last eight load them. Every lane
// of the warp must come here (the shuffles), with all its rows inside the matrix.
__device__ __forceinline__ uint4 load_rows_realigned(const bf16* column, std::int64_t i, int g) {
    const int s = int(reinterpret_cast<std::uintptr_t>(column + i) / sizeof(bf16) % 8);
    const uint4* chunk = reinterpret_cast<const uint4*>(column + i - s);
    const uint4 lo = __ldg(chunk);
    uint4 hi;
    hi.x = __shfl_down_sync(0xffffffffu, lo.x, 4);
    hi.y = __shfl_down_sync(0xffffffffu, lo.y, 4);
    hi.z = __shfl_down_sync(0xffffffffu, lo.z, 4);
    hi.w = __shfl_down_sync(0xffffffffu, lo.w, 4);
    if (g == 7 && s) hi = __ldg(chunk + 1);
    return gemv::shift_down_bytes(lo, hi, unsigned(s) * sizeof(bf16));
}

// BEGIN EXCERPT tensor-cores-col
// Column-major A: a lane loads eight consecutive rows of four columns (four 16-byte loads, a
// warp's 64 rows of 16 columns), but a fragment pairs two columns of one row in 32 bits. A byte
// permutation pairs them: rows 2w and 2w + 1 of columns u and u + 1 become fragment rows g and
// g + 8 of tile w, so a warp's 64 rows are four fragments of 16 that share each load of X.
// a_whole: m is a multiple of 8, so every column starts on 16 bytes; otherwise the loads are
// realigned across the warp (load_rows_realigned).
template <int T, bool a_whole, bool x_whole>
__global__ void __launch_bounds__(kThreads)
    tensor_cores_col(const bf16* A, const bf16* X, float* Y, std::int64_t m, std::int64_t n, int k, std::int64_t per,
                     int groups, int shared, bool atomic) {
    const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    const WarpRole w = role_of<T>(groups, shared);
    if (w.c0 >= k) return;  // a block's last groups past the vectors
    const int c0 = w.c0;
    const std::int64_t i = (w.block * (8 / shared) + w.row_warp) * 64 + 8 * g;  // this lane's rows i .. i + 7
    const bool warp_inside = i - 8 * g + 64 <= m;                               // all the warp's rows
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    float sum[4][T][4] = {};
    for (std::int64_t jc = j0; jc < j1; jc += 16 * kStepsCol) {
        std::uint32_t c[kStepsCol][4][4];  // c[u][v][w]: rows i + 2w and i + 2w + 1 of column jc + 16u + 4t + v
        const bool whole = warp_inside && jc + 16 * kStepsCol <= j1;  // the same for the whole warp
#pragma unroll
        for (int u = 0; u < kStepsCol; ++u)
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const std::int64_t j = jc + 16 * u + 4 * t + v;
                uint4 r{};
                if (whole)
                    r = a_whole ? load8<true>(A + j * m, i, 0, m) : load_rows_realigned(A + j * m, i, g);
                else if (j < j1)
                    r = load8_masked(A + j * m, i, 0, m);
                c[u][v][0] = r.x, c[u][v][1] = r.y, c[u][v][2] = r.z, c[u][v][3] = r.w;
            }
#pragma unroll
        for (int u = 0; u < kStepsCol; ++u) {
            const std::int64_t j = jc + 16 * u + 4 * t;  // this lane's four columns
            std::uint32_t a[4][4];                       // a[w]: the fragment of rows i + 2w (g) and i + 2w + 1 (g + 8)
#pragma unroll
            for (int w = 0; w < 4; ++w) {
                a[w][0] = __byte_perm(c[u][0][w], c[u][1][w], 0x5410);  // row i + 2w, columns j, j + 1
                a[w][1] = __byte_perm(c[u][0][w], c[u][1][w], 0x7632);  // row i + 2w + 1, columns j, j + 1
                a[w][2] = __byte_perm(c[u][2][w], c[u][3][w], 0x5410);  // row i + 2w, columns j + 2, j + 3
                a[w][3] = __byte_perm(c[u][2][w], c[u][3][w], 0x7632);
            }
#pragma unroll
            for (int q = 0; q < T; ++q) {
                const int v = c0 + 8 * q + g;
                const uint2 x = v < k ? load4<x_whole>(X + std::int64_t(v) * n, j, j0, j1) : uint2{};
#pragma unroll
                for (int w = 0; w < 4; ++w) {
                    float d[4];
                    mma_16x8x16(d, a[w][0], a[w][1], a[w][2], a[w][3], x.x, x.y);
#pragma unroll
                    for (int e = 0; e < 4; ++e) sum[w][q][e] += d[e];
                }
            }
        }
    }
#pragma unroll
    for (int w = 0; w < 4; ++w)
#pragma unroll
        for (int q = 0; q < T; ++q)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const std::int64_t r = i + 2 * w + e / 2;
                const int v = c0 + 8 * q + 2 * t + e % 2;
                if (r < m && v < k) put(Y + std::int64_t(v) * m + r, sum[w][q][e], atomic);
            }
}
// END EXCERPT tensor-cores-col

template <int T>
void launch(const several::Plan& p, gemv::Layout layout, const bf16* A, const bf16* X, float* Y, std::int64_t m,
            std::int64_t n, int k, cudaStream_t s) {
    const dim3 grid(unsigned(p.blocks * div_up(p.groups, p.shared)), unsigned(p.slices));
    const bool atomic = p.atomic();
    if (layout == gemv::Layout::row) {
        if (n % 8 == 0)
            tensor_cores_row<T, true><<<grid, kThreads, 0, s>>>(A, X, Y, m, n, k, p.per, p.groups, p.shared, atomic);
        else
            tensor_cores_row<T, false><<<grid, kThreads, 0, s>>>(A, X, Y, m, n, k, p.per, p.groups, p.shared, atomic);
        return;
    }
    if (m % 8 == 0 && n % 4 == 0)
        tensor_cores_col<T, true, true><<<grid, kThreads, 0, s>>>(A, X, Y, m, n, k, p.per, p.groups, p.shared, atomic);
    else if (m % 8 == 0)
        tensor_cores_col<T, true, false><<<grid, kThreads, 0, s>>>(A, X, Y, m, n, k, p.per, p.groups, p.shared, atomic);
    else if (n % 4 == 0)
        tensor_cores_col<T, false, true><<<grid, kThreads, 0, s>>>(A, X, Y, m, n, k, p.per, p.groups, p.shared, atomic);
    else
        tensor_cores_col<T, false, false>
            <<<grid, kThreads, 0, s>>>(A, X, Y, m, n, k, p.per, p.groups, p.shared, atomic);
}

template <int T>
const void* kernel_of(gemv::Layout layout) {
    if (layout == gemv::Layout::row) return reinterpret_cast<const void*>(&tensor_cores_row<T, true>);
    return reinterpret_cast<const void*>(&tensor_cores_col<T, true, true>);
}

}  // namespace

const void* tensor_cores_kernel_for(int group, gemv::Layout layout) {
    return several::with_tiles(group, [&](auto tiles) { return kernel_of<decltype(tiles)::value>(layout); });
}

void gemv_tensor_cores(const several::Plan& p, gemv::Layout layout, const bf16* A, const bf16* X, float* Y,
                       std::int64_t m, std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != several::Kernel::tensor_cores || p.threads != kThreads)
        throw std::logic_error("gemv_tensor_cores needs a plan from plan_tensor_cores");
    gemv::require_16_byte_aligned(
        {A, X}, "gemv_tensor_cores reads A and X 16 bytes at a time from their starts: they must start on 16 bytes");
    if (p.atomic()) GEMV_CUDA_CHECK(cudaMemsetAsync(Y, 0, std::size_t(m) * std::size_t(k) * sizeof(float), s));
    several::with_tiles(p.group, [&](auto tiles) { launch<decltype(tiles)::value>(p, layout, A, X, Y, m, n, k, s); });
    GEMV_CUDA_CHECK_LAUNCH();
}

}  // namespace gemv::several
