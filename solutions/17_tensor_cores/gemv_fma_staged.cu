#include <cstdint>
#include <stdexcept>

#include "gemv_tensor.cuh"
#include "staged_copy.cuh"
#include "staged_launch.cuh"

// Float on FP32 FMA, fed through shared memory as the staged tensor-core kernel is: a block of 8
// warps copies chunks of kCols columns of its kRows rows of A, and of its vectors of X, with
// cp.async, stages - 1 chunks ahead of its multiply-adds. Each thread keeps 2 rows × 4·T vectors
// of sums: 4 warps of rows (64 rows each, a lane's 2 rows 32 apart) times 2 halves of the block's
// 8·T vectors. So each element of A read from shared memory serves 4·T vectors, and the loads of
// X (16 bytes, the same address for the whole warp: a broadcast) serve 2 rows each.
namespace gemv::several {
namespace {

constexpr int kThreads = several::kFmaThreads;
constexpr int kRows = several::kFmaRows, kCols = several::kFmaCols;
constexpr int kRowWarps = 4;  // × 2 halves of the vectors: 8 warps
template <bool row>
__host__ __device__ constexpr int stages() {
    return row ? several::kFmaStagesRow : several::kFmaStagesCol;
}
constexpr int kPitchRow = staged::kPitch<float, kCols>;  // 20 floats: a row of a row-major chunk
constexpr int kPitchCol = staged::kPitch<float, kRows>;  // 260 floats: a column of a column-major chunk
constexpr int kPitchX = staged::kPitch<float, kCols>;
template <bool row>
__host__ __device__ constexpr int a_stage() {
    return row ? kRows * kPitchRow : kCols * kPitchCol;
}
template <int T>
__host__ __device__ constexpr int x_stage() {
    return 8 * T * kPitchX;
}
// Row-major: each chunk is turned into a column-major tile first, so that one multiply serves
// both layouts (a warp reads 32 consecutive rows of a column: no bank conflicts).
constexpr int kTile = kCols * kPitchCol;
template <bool row, int T>
constexpr int shared_bytes() {
    return (stages<row>() * (a_stage<row>() + x_stage<T>()) + (row ? kTile : 0)) * int(sizeof(float));
}

// BEGIN EXCERPT fma-transpose
// Row-major: the chunk's rows (row r starts r·n mod 4 into its granules) into a column-major tile
// whose columns start on 16 bytes. A warp moves 8 columns of 4 rows: column c, row r lands in
// bank 4·c + r (a tile column is 260 = 8·32 + 4 floats), so its 32 writes take 32 banks.
__device__ __forceinline__ void transpose_chunk(const float* sA, float* tile, int n4) {
#pragma unroll 4
    for (int e = threadIdx.x; e < kRows * kCols; e += kThreads) {
        const int c = e % 8 + 8 * (e / 32 % (kCols / 8)), r = e / 8 % 4 + 4 * (e / (4 * kCols));
        tile[c * kPitchCol + r] = sA[r * kPitchRow + r * n4 % 4 + c];
    }
}
// END EXCERPT fma-transpose

// BEGIN EXCERPT fma-multiply
// The lane's rows 64·rw + lane and + 32 of one chunk times the 4·T vectors of half vh. A column
// of the chunk starts s = (column · m) mod 4 into its granules (0 in the row-major tile); the
// lane reads its two rows of four columns, then for each vector the four columns of X in one
// 16-byte broadcast where its vectors start on 16 bytes (x_aligned), else four 4-byte reads from
// s_x[q] on. Columns from `limit` on are past the slice: left out.
template <bool row, int T, bool x_aligned, bool edge>
__device__ __forceinline__ void multiply_chunk(const float* sA, const float* sX, float (&sum)[4 * T][2], int rw, int vh,
                                               int lane, int m4, const int (&s_x)[4 * T], int limit) {
    const float* x = sX + vh * 4 * T * kPitchX;
#pragma unroll
    for (int c = 0; c < kCols; c += 4) {
        float a[4][2];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const float* p = sA + (c + u) * kPitchCol + (row ? 0 : (c + u) * m4 % 4) + 64 * rw + lane;
#pragma unroll
            for (int e = 0; e < 2; ++e) a[u][e] = edge && c + u >= limit ? 0.0f : p[32 * e];
        }
#pragma unroll
        for (int q = 0; q < 4 * T; ++q) {
            float xs[4];
            if (x_aligned) {
                const float4 v = *reinterpret_cast<const float4*>(x + q * kPitchX + c);
                xs[0] = v.x, xs[1] = v.y, xs[2] = v.z, xs[3] = v.w;
            } else {
#pragma unroll
                for (int u = 0; u < 4; ++u) xs[u] = x[q * kPitchX + s_x[q] + c + u];
            }
#pragma unroll
            for (int u = 0; u < 4; ++u)
                if (!edge || c + u < limit)
#pragma unroll
                    for (int e = 0; e < 2; ++e) sum[q][e] += a[u][e] * xs[u];
        }
    }
}
// END EXCERPT fma-multiply

// The grid: x the row_blocks blocks of kRows rows times the groups of 8·T vectors, y slices of
// `per` columns (a multiple of kCols); where there are several, partial sums are added into a
// zeroed Y. Vector v of X starts at X + v·ldx.
template <bool row, int T, bool x_aligned>
__global__ void __launch_bounds__(kThreads, 2)
    fma_staged(const float* A, const float* X, std::int64_t ldx, float* Y, std::int64_t m, std::int64_t n, int k,
               std::int64_t per, std::int64_t row_blocks, bool atomic) {
    constexpr int kStages = stages<row>();
    extern __shared__ float4 shared4[];
    float* sA = reinterpret_cast<float*>(shared4);
    float* sX = sA + kStages * a_stage<row>();
    float* tile = sX + kStages * x_stage<T>();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, rw = warp % kRowWarps, vh = warp / kRowWarps;
    const std::int64_t i0 = blockIdx.x % row_blocks * kRows;
    const int v0 = int(blockIdx.x / row_blocks) * 8 * T;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    const int chunks = int((j1 - j0 + kCols - 1) / kCols);
    const auto copy = [&](int c) {  // chunk c into its slot
        staged::copy_chunk<float, row, kRows, kCols, 8 * T, kThreads>(sA + c % kStages * a_stage<row>(),
                                                                      sX + c % kStages * x_stage<T>(), A, X, m, n, k,
                                                                      ldx, i0, j0 + std::int64_t(c) * kCols, v0);
    };
    for (int c = 0; c < kStages - 1; ++c) {  // the first chunks in flight
        if (c < chunks) copy(c);
        staged::commit_copies();
    }
    // Where lines start in their granules: the same in every chunk, since i0, v0 and jc are
    // multiples of 4 (column j of A starts j·m mod 4 in, row i i·n mod 4, vector v v·ldx mod 4).
    const int m4 = int(m % 4), n4 = int(n % 4);
    int s_x[4 * T];
#pragma unroll
    for (int q = 0; q < 4 * T; ++q) s_x[q] = int(std::int64_t(v0 + vh * 4 * T + q) * ldx % 4);
    float sum[4 * T][2] = {};
    for (int c = 0; c < chunks; ++c) {
        staged::wait_copies<kStages - 2>();  // chunk c is in
        __syncthreads();                     // for every thread, and every warp is done with chunk c - 1
        const float* a = sA + c % kStages * a_stage<row>();
        if (row) {
            transpose_chunk(a, tile, n4);
            a = tile;
        }
        if (c + kStages - 1 < chunks) copy(c + kStages - 1);  // into the slot of chunk c - 1
        staged::commit_copies();
        if (row) __syncthreads();  // the tile is whole
        const std::int64_t jc = j0 + std::int64_t(c) * kCols;
        const float* x = sX + c % kStages * x_stage<T>();
        if (jc + kCols <= j1)
            multiply_chunk<row, T, x_aligned, false>(a, x, sum, rw, vh, lane, m4, s_x, kCols);
        else
            multiply_chunk<row, T, x_aligned, true>(a, x, sum, rw, vh, lane, m4, s_x, int(j1 - jc));
    }
    staged::wait_copies<0>();
#pragma unroll
    for (int q = 0; q < 4 * T; ++q)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const std::int64_t i = i0 + 64 * rw + lane + 32 * e;
            const int v = v0 + vh * 4 * T + q;
            if (i < m && v < k) {
                float* y = Y + std::int64_t(v) * m + i;
                if (atomic)
                    atomicAdd(y, sum[q][e]);
                else
                    *y = sum[q][e];
            }
        }
}

// The kernel for a layout, T and X's alignment, its shared memory allowed once (more than the
// default 48 KiB).
template <bool row, int T, bool x_aligned>
const void* prepared() {
    static const cudaError_t allowed = cudaFuncSetAttribute(
        fma_staged<row, T, x_aligned>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes<row, T>());
    GEMV_CUDA_CHECK(allowed);
    return reinterpret_cast<const void*>(&fma_staged<row, T, x_aligned>);
}

// The instance the report and the occupancy stand for: X read where it lies, aligned.
staged::Instance instance_for(int group, gemv::Layout layout) {
    return staged::with_layout_and_tiles(group, layout, [](auto row, auto tiles) {
        constexpr bool R = decltype(row)::value;
        constexpr int T = decltype(tiles)::value;
        return staged::Instance{prepared<R, T, true>(), std::size_t(shared_bytes<R, T>())};
    });
}

template <bool row, int T>
void launch(const several::Plan& p, const float* A, const float* X, std::int64_t ldx, float* Y, std::int64_t m,
            std::int64_t n, int k, cudaStream_t s) {
    const dim3 grid(unsigned(p.blocks * p.groups), unsigned(p.slices));
    if (ldx % 4 == 0) {
        prepared<row, T, true>();
        fma_staged<row, T, true>
            <<<grid, kThreads, shared_bytes<row, T>(), s>>>(A, X, ldx, Y, m, n, k, p.per, p.blocks, p.atomic());
    } else {
        prepared<row, T, false>();
        fma_staged<row, T, false>
            <<<grid, kThreads, shared_bytes<row, T>(), s>>>(A, X, ldx, Y, m, n, k, p.per, p.blocks, p.atomic());
    }
}

}  // namespace

gemv::Launch fma_staged_launch(const several::Plan& p, gemv::Layout layout) {
    return staged::launch_of(p, instance_for(p.group, layout));
}

int fma_staged_blocks_per_sm(int group, gemv::Layout layout) {
    return staged::blocks_per_sm(instance_for(group, layout), kThreads);
}

void gemv_fma_staged(const several::Plan& p, gemv::Layout layout, const float* A, const float* X, float* Y,
                     std::int64_t m, std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != several::Kernel::fma_staged || p.threads != kThreads)
        throw std::logic_error("gemv_fma_staged needs a plan from plan_fma_staged");
    // X packed where the plan says so, so that the multiply reads 4 columns of X at once.
    staged::with_layout_and_tiles(p.group, layout, [&](auto row, auto tiles) {
        staged::run(p, X, Y, m, n, k, s, [&](const float* Xs, std::int64_t ldx) {
            launch<decltype(row)::value, decltype(tiles)::value>(p, A, Xs, ldx, Y, m, n, k, s);
        });
    });
}

}  // namespace gemv::several
