#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "gemv_tensor.cuh"
#include "staged_copy.cuh"
#include "staged_launch.cuh"

// Float on FP32 FMA, fed through shared memory as the staged tensor-core kernel is: a block of 4
// warps copies chunks of kCols columns of its kRows rows of A, and of its 8·T vectors of X, with
// cp.async, kStages - 1 chunks ahead of its multiply-adds. Each thread keeps a tile of TM rows × TN
// vectors of sums in registers, as an SGEMM does: for every 4 columns it loads its rows and its
// vectors from shared memory, 16 bytes a load, and does 4·TM·TN multiply-adds with TM + TN loads.
// A matrix of few rows takes blocks of 32 rows, whose warps split each chunk's columns between them
// and add up their tiles at the end (add_parts).
//
// Why the tile: shared memory hands an SM 32 floats a clock (a float to each lane of one warp), its
// FMA units do 4 warps' multiply-adds a clock. A thread must therefore do 4 multiply-adds for each
// float it reads, TM·TN / (TM + TN) >= 4, to keep the FMA units busy. CGMA, flops a byte:
//  - shared memory: 2·TM·TN / (4·(TM + TN)): 1 at 4 × 4, 1.33 at 8 × 4, 2 at 8 × 8, 2.67 at 16 × 8;
//  - global memory: A read once for 8·T vectors, X once for kRows rows: 2·8T / (4 + 4·8T / kRows).
namespace gemv::several {
namespace {

constexpr int kThreads = several::kFmaThreads;
constexpr int kStages = several::kFmaStages;

using several::FmaChunks;

// A block's rows, a chunk's columns, and the parts of a chunk's columns its warps take side by side
// (chooser.hpp says which chunks where, and why).
template <FmaChunks form>
struct Block {
    static constexpr int rows = several::fma_rows(form), cols = several::fma_cols(form);
    static constexpr int parts = several::fma_column_parts(form);
};

// The thread tile for 8·T vectors a block: rows × vectors of sums a thread keeps (the block's
// kRows × 8·T sums over its kThreads threads). It grows with T, as the multiply-adds per float
// read must: 4 × 4 (2 a float) where A's bytes are the roof, 16 × 8 or 8 × 16 (5.3 a float) at 64
// vectors, where the FMA units are. Column-major takes 8 × 16 there, so that a warp's 32 lanes
// read 32 different rows of a column (16 × 8 leaves two halves of a warp on the same rows, and
// measured 7 % slower); row-major ran 3 % slower with 8 × 16. Between: 8 × 6 at 24, 8 × 10 at 40,
// 8 × 12 at 48, 8 × 14 at 56.
// Wide chunks' blocks hold half the rows: 4 × 2, 4 × 4, 4 × 6 and 8 × 4 at 8, 16, 24 and 32
// vectors (the narrow rule would leave 8 × 2 at 16). A block of few rows holds a tile of its 32
// rows and 8·T vectors in each warp: 4 × 2T.
__host__ __device__ constexpr int tile_rows(bool row, int T, FmaChunks form) {
    if (form == FmaChunks::few_rows) return 4;
    if (form == FmaChunks::wide) return T >= 4 ? 8 : 4;
    return T >= 8 && row ? 16 : T >= 2 ? 8 : 4;
}
template <bool row, int T, FmaChunks form>
__host__ __device__ constexpr int tile_vectors() {
    using B = Block<form>;
    return B::rows * 8 * T * B::parts / (kThreads * tile_rows(row, T, form));
}
// Blocks an SM the registers must leave room for (65536 / (kThreads · blocks) a thread at most): as
// many as the shared memory holds (3 or 4) up to 32 vectors, where the sums fit, 2 for the 80 to
// 128 sums of 40 to 64 (at 3, 40 vectors' columns copied as they lie spilled).
__host__ __device__ constexpr int min_blocks_per_sm(int T) {
    return T >= 5 ? 2 : T >= 3 ? 3 : 4;
}

// Shared memory: every line starts on 16 bytes (staged::copy_lines). Row-major, a chunk's rows are
// 20 floats apart, 16 columns and a granule of padding: row r starts in bank group 5·r mod 8 (a
// group: the 4 banks a 16-byte load takes), so 8 consecutive rows take 8 different groups. Wide
// chunks' rows are 32 floats apart, swizzled to the same effect (staged::place): padded to 36,
// their copies asked L2 for 1.5 times the sectors the rows' bytes need.
// Column-major, a column's kRows rows are consecutive, and a granule more holds a column copied as
// it lies (copy_columns_as_they_lie).
template <bool row, int T, FmaChunks form>
struct Pitch {
    using B = Block<form>;
    static constexpr bool swizzled = row && form == FmaChunks::wide;
    static constexpr int padded = (row ? B::cols : B::rows) + staged::kGranule<float>;
    static constexpr int a = swizzled ? B::cols : padded, x = B::cols + staged::kGranule<float>;
    // A stage keeps a padded chunk's room where it is swizzled too: the fourth block an SM that
    // the smaller stages let in on the H100 made rows copied 4 bytes at a time (n not a multiple
    // of 4) 1.06-1.10 times as slow, and aligned rows no faster.
    static constexpr int stage_a = (row ? B::rows : B::cols) * padded, stage_x = 8 * T * x;
    static constexpr int shared_bytes = kStages * (stage_a + stage_x) * int(sizeof(float));
};

// Row i of the thread's tile in the block's rows. The thread's row group rg (threadIdx.x mod
// kRows / TM) runs fastest, so a quarter-warp (8 lanes, what one 16-byte shared load serves at
// once) holds 8 consecutive row groups of one vector group: their loads of X are one address (a
// broadcast), their loads of A take 8 bank groups. Row-major: rows rg + (kRows / TM)·i, 8
// consecutive rows a quarter-warp. Column-major: 4 consecutive rows, one 16-byte load of a column,
// 4·(rg + (kRows / TM)·(i / 4)) + i mod 4: a quarter-warp reads 8 consecutive granules. Columns
// copied as they lie (`shifted`), read a float at a time: rows as row-major's, so that the lanes of
// a warp read consecutive floats of a column (no two lanes on one bank but for the same float).
template <bool row, int T, bool shifted, FmaChunks form>
__device__ __forceinline__ int tile_row(int rg, int i) {
    constexpr int groups = Block<form>::rows / tile_rows(row, T, form);
    return row || shifted ? rg + groups * i : 4 * (rg + groups * (i / 4)) + i % 4;
}

__device__ __forceinline__ void load4(float (&v)[4], const float* p) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}

// Column-major A (on 16 bytes) whose columns do not start on 16 bytes, m not a multiple of 4: each
// column's granules as they lie, 16 bytes a copy (4-byte copies of every float measured at half
// the speed), so that column l of the chunk lands (l·m) mod 4 floats into its line. Zeros in the
// columns past n and past A's end; the rows past m are the next column's, in sums never stored.
template <int T, FmaChunks form>
__device__ __forceinline__ void copy_columns_as_they_lie(float* sA, const float* A, std::int64_t m, std::int64_t n,
                                                         std::int64_t i0, std::int64_t jc, int cols) {
    constexpr int kCols = Block<form>::cols, pitch_a = Pitch<false, T, form>::a;
    constexpr int granules = pitch_a / staged::kGranule<float>;  // a line: kRows floats from any of 4 starts
    const float* end = A + m * n;
#pragma unroll 2
    for (int e = int(threadIdx.x); e < kCols * granules; e += kThreads) {
        const int l = e / granules, g = e % granules;
        const std::int64_t first = (jc + l) * m + i0;  // the column's row i0, from A's start
        const float* src = A + (first - first % 4) + 4 * g;
        const int bytes = l < cols ? int(max(std::int64_t(0), min(std::int64_t(16), 4 * (end - src)))) : 0;
        staged::copy16_async(sA + l * pitch_a + 4 * g, bytes > 0 ? src : A, unsigned(bytes));
    }
}

// Chunk jc … jc + kCols - 1 of the block's rows of A and of its vectors of X into a stage. Columns
// past n are zeros in both; rows past m and vectors past k are not copied.
template <bool row, int T, bool shifted, FmaChunks form>
__device__ __forceinline__ void copy_chunk(float* sA, float* sX, const float* A, const float* X, std::int64_t m,
                                           std::int64_t n, int k, std::int64_t ldx, std::int64_t i0, std::int64_t jc,
                                           int v0, bool a_whole, bool x_whole) {
    constexpr int kRows = Block<form>::rows, kCols = Block<form>::cols;
    constexpr int pitch_a = Pitch<row, T, form>::a, pitch_x = Pitch<row, T, form>::x;
    const int cols = int(min(std::int64_t(kCols), n - jc)), rows = int(min(std::int64_t(kRows), m - i0));
    if constexpr (shifted)
        copy_columns_as_they_lie<T, form>(sA, A, m, n, i0, jc, cols);
    else if constexpr (row)
        staged::copy_lines<kRows, kCols, kThreads, Pitch<row, T, form>::swizzled>(
            sA, pitch_a, a_whole, A, {A + i0 * n + jc, n, rows, cols, true});
    else
        staged::copy_lines<kCols, kRows, kThreads>(sA, pitch_a, a_whole, A, {A + jc * m + i0, m, cols, rows, false});
    staged::copy_lines<8 * T, kCols, kThreads>(sX, pitch_x, x_whole, X,
                                               {X + v0 * ldx + jc, ldx, int(min(8 * T, k - v0)), cols, true});
}

// BEGIN EXCERPT fma-multiply
// The thread's part of a chunk (columns c0 … c0 + kCols / parts - 1) into its tile of sums, 4
// columns c … c + 3 at a time: its TN vectors (from vg·TN on) in TN 16-byte loads, then its rows 4
// at a time, a[e][u] = row 4q + e, column c + u of the tile, in 4 loads: row-major one a row,
// column-major one a column. Columns copied as they lie (`shifted`: column c starts (c·m) mod 4
// floats into its line) are read a float at a time.
template <bool row, int T, bool shifted, FmaChunks form>
__device__ __forceinline__ void multiply_chunk(const float* sA, const float* sX,
                                               float (&sum)[tile_rows(row, T, form)][tile_vectors<row, T, form>()],
                                               int rg, int vg, int c0, int m4) {
    constexpr int TM = tile_rows(row, T, form), TN = tile_vectors<row, T, form>();
    constexpr int kPartCols = Block<form>::cols / Block<form>::parts;
    constexpr int pitch_a = Pitch<row, T, form>::a, pitch_x = Pitch<row, T, form>::x;
    // From 48 vectors (T >= 6), where the FMA units are the roof, two steps at once: the next step's
    // loads issue under this one's multiply-adds (H200, 48 to 256 vectors: 2 to 4 % faster;
    // slides/data/step16/h200_fma_two_steps.csv). With fewer, one: unrolled, the next steps' loads
    // come early and take registers the sums need.
    constexpr int kSteps = T >= 6 ? 2 : 1;
#pragma unroll kSteps
    for (int c = c0; c < c0 + kPartCols; c += 4) {
        float x[TN][4];
#pragma unroll
        for (int j = 0; j < TN; ++j) load4(x[j], sX + (vg * TN + j) * pitch_x + c);
#pragma unroll
        for (int q = 0; q < TM / 4; ++q) {
            float a[4][4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                if (row) {
                    const int r = tile_row<row, T, false, form>(rg, 4 * q + e);
                    load4(a[e], sA + r * pitch_a + staged::place<float, Pitch<row, T, form>::swizzled>(r, c));
                } else if (shifted) {
                    const float* p = sA + (c + e) * pitch_a + ((c + e) * m4 & 3);
#pragma unroll
                    for (int i = 0; i < 4; ++i) a[i][e] = p[tile_row<row, T, true, form>(rg, 4 * q + i)];
                } else {
                    const float4 v = *reinterpret_cast<const float4*>(sA + (c + e) * pitch_a +
                                                                      tile_row<row, T, false, form>(rg, 4 * q));
                    a[0][e] = v.x, a[1][e] = v.y, a[2][e] = v.z, a[3][e] = v.w;
                }
            }
            // Column by column: where columns are copied as they lie, 0.89-0.95 of the time of row by
            // row at 40 and 64 vectors (1.06 at one shape with 48), within 1 % elsewhere (H200,
            // slides/data/step16/h200_fma_column_order.csv).
#pragma unroll
            for (int u = 0; u < 4; ++u)
#pragma unroll
                for (int e = 0; e < 4; ++e)
#pragma unroll
                    for (int j = 0; j < TN; ++j) sum[4 * q + e][j] += a[e][u] * x[j][u];
        }
    }
}
// END EXCERPT fma-multiply

// Where a block's threads took parts of each chunk's columns (few rows), thread t of each part
// holds partial sums of the same rows and vectors: the other parts' are added into part 0's
// through shared memory (the stages, free once the last chunk is multiplied), each thread's sums
// to the same thread, so that consecutive threads take consecutive banks. False for the threads
// whose sums are now in part 0's.
template <int parts, int part_threads, int TM, int TN>
__device__ __forceinline__ bool add_parts(float (&sum)[TM][TN], float* shared, int part, int t) {
    if constexpr (parts == 1) {
        return true;
    } else {
        const auto at = [&](int p, int i, int j) { return shared + (((p - 1) * TM + i) * TN + j) * part_threads + t; };
        __syncthreads();  // every thread is done with the stages
        if (part > 0)
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) *at(part, i, j) = sum[i][j];
        __syncthreads();
        if (part > 0) return false;
#pragma unroll
        for (int p = 1; p < parts; ++p)
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) sum[i][j] += *at(p, i, j);
        return true;
    }
}

// The grid: x the row_blocks blocks of kRows rows times the groups of 8·T vectors (side by side:
// staged::place_of), y slices of `per` columns (a multiple of kCols); where there are several,
// partial sums are added into a zeroed Y. Vector v of X starts at X + v·ldx.
template <bool row, int T, bool shifted, FmaChunks form>
__global__ void __launch_bounds__(kThreads, min_blocks_per_sm(T))
    fma_staged(const float* A, const float* X, std::int64_t ldx, float* Y, std::int64_t m, std::int64_t n, int k,
               std::int64_t per, std::int64_t row_blocks, bool atomic) {
    using B = Block<form>;
    constexpr int kRows = B::rows, kCols = B::cols, kPartThreads = kThreads / B::parts;
    constexpr int TM = tile_rows(row, T, form), TN = tile_vectors<row, T, form>(), groups = kRows / TM;
    static_assert(TM % 4 == 0 && kRows % TM == 0, "rows come 4 to a 16-byte load, and fill the block's rows");
    static_assert(8 * T % TN == 0 && groups * (8 * T / TN) == kPartThreads, "the threads' tiles are the block's");
    static_assert(groups % 8 == 0, "a quarter-warp's 8 lanes are 8 row groups of one vector group");
    static_assert(kCols % (4 * B::parts) == 0 && kPartThreads % 32 == 0, "columns come 4 to a 16-byte load");
    extern __shared__ float4 shared4[];
    float* sA = reinterpret_cast<float*>(shared4);
    constexpr int stage_a = Pitch<row, T, form>::stage_a, stage_x = Pitch<row, T, form>::stage_x;
    static_assert((B::parts - 1) * TM * TN * kPartThreads <= kStages * (stage_a + stage_x),
                  "the warps' partial sums fit in the stages");
    float* sX = sA + kStages * stage_a;
    // The thread's part of the chunks' columns (0 where the block's warps take whole chunks), and
    // its place among the threads of its part.
    const int part = B::parts == 1 ? 0 : int(threadIdx.x) / kPartThreads, t = int(threadIdx.x) - part * kPartThreads;
    const int rg = t % groups, vg = t / groups;
    const staged::Place at = staged::place_of<kRows, 8 * T>(row_blocks);
    const std::int64_t i0 = at.i0;
    const int v0 = at.v0;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    const int chunks = int((j1 - j0 + kCols - 1) / kCols);
    // 16-byte copies where every line starts on 16 bytes in global memory: row-major rows where n is
    // a multiple of 4, columns where m is, vectors where ldx is (i0, jc and v0 are multiples of 4).
    const auto on16 = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    const bool a_whole = (row ? n : m) % 4 == 0 && on16(A), x_whole = ldx % 4 == 0 && on16(X);
    const auto copy = [&](int c) {  // chunk c into its slot
        copy_chunk<row, T, shifted, form>(sA + c % kStages * stage_a, sX + c % kStages * stage_x, A, X, m, n, k, ldx,
                                          i0, j0 + std::int64_t(c) * kCols, v0, a_whole, x_whole);
    };
    for (int c = 0; c < kStages - 1; ++c) {  // the first chunks in flight
        if (c < chunks) copy(c);
        staged::commit_copies();
    }
    float sum[TM][TN] = {};
    for (int c = 0; c < chunks; ++c) {
        staged::wait_copies<kStages - 2>();  // chunk c is in
        __syncthreads();                     // for every thread, and every thread is done with chunk c - 1
        if (c + kStages - 1 < chunks) copy(c + kStages - 1);  // into the slot of chunk c - 1
        staged::commit_copies();
        multiply_chunk<row, T, shifted, form>(sA + c % kStages * stage_a, sX + c % kStages * stage_x, sum, rg, vg,
                                              part * (kCols / B::parts), int(m % 4));
    }
    staged::wait_copies<0>();
    if (!add_parts<B::parts, kPartThreads>(sum, sA, part, t)) return;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const std::int64_t r = i0 + tile_row<row, T, shifted, form>(rg, i);
            const int v = v0 + vg * TN + j;
            if (r < m && v < k) {
                float* y = Y + std::int64_t(v) * m + r;
                if (atomic)
                    atomicAdd(y, sum[i][j]);
                else
                    *y = sum[i][j];
            }
        }
}

// The kernel for a layout, T, A's columns as they lie or not and the chunks, its shared memory
// allowed once (more than the default 48 KiB).
template <bool row, int T, bool shifted, FmaChunks form>
const void* prepared() {
    static const cudaError_t allowed =
        cudaFuncSetAttribute(fma_staged<row, T, shifted, form>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             Pitch<row, T, form>::shared_bytes);
    GEMV_CUDA_CHECK(allowed);
    return reinterpret_cast<const void*>(&fma_staged<row, T, shifted, form>);
}

// f(form) for a plan's chunks, as a compile-time constant: wide chunks are compiled where
// chooser.hpp's fma_wide_compiled says, narrow ones and few rows everywhere.
template <bool row, int T, class F>
decltype(auto) with_chunks(FmaChunks chunks, F&& f) {
    using C = FmaChunks;
    if constexpr (several::fma_wide_compiled(row ? gemv::Layout::row : gemv::Layout::col, 8 * T))
        if (chunks == C::wide) return f(std::integral_constant<C, C::wide>{});
    if (chunks == C::few_rows) return f(std::integral_constant<C, C::few_rows>{});
    return f(std::integral_constant<C, C::narrow>{});
}

// The instance the report and the occupancy stand for.
staged::Instance instance_for(int group, gemv::Layout layout, FmaChunks chunks) {
    return staged::with_layout_and_tiles<FmaGroups>(group, layout, [chunks](auto row, auto tiles) {
        constexpr bool R = decltype(row)::value;
        constexpr int T = decltype(tiles)::value;
        return with_chunks<R, T>(chunks, [](auto form) {
            constexpr FmaChunks F = decltype(form)::value;
            return staged::Instance{prepared<R, T, false, F>(), std::size_t(Pitch<R, T, F>::shared_bytes)};
        });
    });
}

template <bool row, int T, bool shifted, FmaChunks form>
void launch_form(const several::Plan& p, const float* A, const float* X, std::int64_t ldx, float* Y, std::int64_t m,
                 std::int64_t n, int k, cudaStream_t s) {
    prepared<row, T, shifted, form>();
    fma_staged<row, T, shifted, form><<<staged::grid_of(p), kThreads, Pitch<row, T, form>::shared_bytes, s>>>(
        A, X, ldx, Y, m, n, k, p.per, p.blocks, p.atomic());
}

template <bool row, int T>
void launch(const several::Plan& p, const float* A, const float* X, std::int64_t ldx, float* Y, std::int64_t m,
            std::int64_t n, int k, cudaStream_t s) {
    with_chunks<row, T>(p.chunks, [&](auto form) {
        constexpr FmaChunks F = decltype(form)::value;
        // Column-major with m not a multiple of 4 (A itself on 16 bytes): columns copied as they lie.
        if constexpr (!row)
            if (m % 4 != 0 && reinterpret_cast<std::uintptr_t>(A) % 16 == 0)
                return launch_form<false, T, true, F>(p, A, X, ldx, Y, m, n, k, s);
        launch_form<row, T, false, F>(p, A, X, ldx, Y, m, n, k, s);
    });
}

}  // namespace

gemv::Launch fma_staged_launch(const several::Plan& p, gemv::Layout layout) {
    return staged::launch_of(p, instance_for(p.group, layout, p.chunks));
}

int fma_staged_blocks_per_sm(int group, gemv::Layout layout, FmaChunks chunks) {
    return staged::blocks_per_sm(instance_for(group, layout, chunks), kThreads);
}

void gemv_fma_staged(const several::Plan& p, gemv::Layout layout, const float* A, const float* X, float* Y,
                     std::int64_t m, std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != several::Kernel::fma_staged || p.threads != kThreads ||
        (p.chunks == FmaChunks::wide && !several::fma_wide_compiled(layout, p.group)))
        throw std::logic_error("gemv_fma_staged needs a plan from plan_fma_staged");
    // X packed where the plan says so, so that its vectors are copied 16 bytes at a time.
    staged::with_layout_and_tiles<FmaGroups>(p.group, layout, [&](auto row, auto tiles) {
        staged::run(p, X, Y, m, n, k, s, [&](const float* Xs, std::int64_t ldx) {
            launch<decltype(row)::value, decltype(tiles)::value>(p, A, Xs, ldx, Y, m, n, k, s);
        });
    });
}

}  // namespace gemv::several
