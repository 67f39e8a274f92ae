#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>

#include "gemv_tensor.cuh"
#include "mma_bf16.cuh"
#include "staged_copy.cuh"
#include "staged_launch.cuh"

// The tensor cores, fed through shared memory: a block of 8 warps copies chunks of 64 or 128
// columns (several::staged_cols) of its kStagedRows rows of A, and the same columns of its vectors
// of X, into shared memory with cp.async, kStages - 1 chunks ahead of its multiplies, as a GEMM
// does. The copies wait in shared memory, not in registers, so the warps keep few registers (the
// sums) however many bytes are in flight; and X is loaded once a block, not once a warp. Where
// every line starts on 16 bytes, ldmatrix loads the fragments from shared memory, four 8 × 8
// matrices an instruction.
// The accuracy bound is the one of gemv_tensor_cores.cu: each 16-column step starts from a zero
// accumulator.
namespace gemv::several {
namespace {

using bf16 = __nv_bfloat16;
constexpr int kThreads = several::kTensorThreads;
constexpr int kRows = several::kStagedRows, kStages = several::kStagedStages;
// A chunk's columns: more where lines lie whole and a block keeps few vectors (several::staged_cols).
template <bool whole, int T>
constexpr int kCols = several::staged_cols(whole, 8 * T);
// Lines in shared memory hold the 16-byte granules that cover them (staged_copy.cuh): a line of a
// chunk's columns (a row of A, a vector of X) a granule more than them, a line of the block's rows
// (a column of A) 136 elements, 17 granules.
template <bool whole, int T>
constexpr int kPitchCols = staged::kPitch<bf16, kCols<whole, T>>;
constexpr int kPitchRows = staged::kPitch<bf16, kRows>;
template <bool row, int T, bool whole>
__host__ __device__ constexpr int a_stage() {
    return row ? kRows * kPitchCols<whole, T> : kCols<whole, T> * kPitchRows;
}
template <int T, bool whole>
__host__ __device__ constexpr int x_stage() {
    return 8 * T * kPitchCols<whole, T>;
}
template <bool row, int T, bool whole>
constexpr int shared_bytes() {
    return kStages * (a_stage<row, T, whole>() + x_stage<T, whole>()) * int(sizeof(bf16));
}
// A chunk's copies, and the pitches of its lines in shared memory: padded, or whole and swizzled
// (staged::place) where every line starts on a granule. The stages keep the padded size.
template <bool row, int T, bool whole>
using Copies = staged::ChunkCopies<bf16, row, kRows, kCols<whole, T>, 8 * T, kThreads, whole>;

// A fragment register's two columns c and c + 1, zero from column `limit` on (past the slice).
__device__ __forceinline__ std::uint32_t zero_past(std::uint32_t v, int c, int limit) {
    return c >= limit ? 0u : c + 1 >= limit ? v & 0xffffu : v;
}

// BEGIN EXCERPT staged-multiply
// The warp's 16 rows of one chunk times 8·T vectors, where lines are padded. A line starts in its
// granules at an offset: row-major, the lane's rows g and g + 8 start s_lo and s_hi in;
// column-major, its columns 2t (+ 8, + 16 …) start s_lo in and 2t + 1 (…) s_hi (a column starts m
// mod 8 further than the one before, and 8 columns come back to the same offset); its vectors g
// (+ 8 …) start s_x in. A fragment wants two columns of a row in 32 bits: one 4-byte read where
// they are adjacent and aligned (row-major A where n is even: `a_even`; X where the distance
// between its vectors is even: `x_even`), else two 2-byte reads. Columns from `limit` on are past
// the slice: zero, in A and in X.
template <bool row, int T, bool a_even, bool x_even, bool edge>
__device__ __forceinline__ void multiply_chunk_padded(const bf16* sA, const bf16* sX, float (&sum)[T][4], int warp,
                                                      int g, int t, int s_lo, int s_hi, int s_x, int limit) {
    constexpr int pa = Copies<row, T, false>::pitch_a, px = Copies<row, T, false>::pitch_x;
    const auto* a16 = reinterpret_cast<const unsigned short*>(sA);
    const auto* x16 = reinterpret_cast<const unsigned short*>(sX);
    const auto pair = [&](const unsigned short* p, bool aligned, int far, int c) -> std::uint32_t {
        // elements p[0] and p[far] (columns c and c + 1), masked past `limit`
        const std::uint32_t v = aligned ? *reinterpret_cast<const std::uint32_t*>(p) : p[0] | p[far] << 16;
        return edge ? zero_past(v, c, limit) : v;
    };
    const auto a = [&](int r, int c) -> std::uint32_t {  // A(r, c) and A(r, c + 1) of the warp's rows
        const int i = 16 * warp + r;
        if (row) return pair(a16 + i * pa + (r < 8 ? s_lo : s_hi) + c, a_even, 1, c);
        const int lo = c * pa + s_lo + i, hi = (c + 1) * pa + s_hi + i;  // columns c, c + 1
        return pair(a16 + lo, false, hi - lo, c);
    };
// BEGIN EXCERPT staged-step
#pragma unroll
    for (int step = 0; step < kCols<false, T> / 16; ++step) {
        const int c = 16 * step + 2 * t;
        const std::uint32_t a0 = a(g, c), a1 = a(g + 8, c), a2 = a(g, c + 8), a3 = a(g + 8, c + 8);
#pragma unroll
        for (int q = 0; q < T; ++q) {
            // BEGIN SOLUTION Multiply a0..a3 by X's pairs of line 8·q + g (pair()) into sum[q] (mma_16x8x16).
            const unsigned short* x = x16 + (8 * q + g) * px + s_x;  // the lane's vector: its line
            float d[4];
            mma_16x8x16(d, a0, a1, a2, a3, pair(x + c, x_even, 1, c), pair(x + c + 8, x_even, 1, c + 8));
#pragma unroll
            for (int e = 0; e < 4; ++e) sum[q][e] += d[e];
            // END SOLUTION
        }
    }
    // END EXCERPT staged-step
}
// END EXCERPT staged-multiply

// The same where every line lies whole and swizzled (Copies): a fragment's rows start on 16 bytes,
// so ldmatrix loads a lane's fragments four 8 × 8 matrices at a time, A's 16 × 16 piece of a step
// in one load and two tiles of X in another, each lane giving the address of one matrix row. Lane
// 8j + r gives row r of matrix j, and line l's granule q lies at q ^ (l mod 8) (staged::place):
//  - row-major A: rows 8·(j mod 2) + r, granule 2·step + j / 2 (a0 … a3, as mma_bf16.cuh lists);
//  - column-major A, transposed: columns 16·step + 8·(j / 2) + r, granule 2·warp + j mod 2 of them;
//  - X, tiles 2p and 2p + 1: vectors 16p + 8·(j / 2) + r, granule 2·step + j mod 2.
// Where a line's number is 8·something + r, its granule q lies at q ^ r: one exclusive or a load.
template <bool row, int T, bool edge>
__device__ __forceinline__ void multiply_chunk_whole(const bf16* sA, const bf16* sX, float (&sum)[T][4], int warp,
                                                     int lane, int limit) {
    constexpr int pa = Copies<row, T, true>::pitch_a, px = Copies<row, T, true>::pitch_x;
    constexpr int granule = 16;                                // bytes
    const int j = lane / 8, r = lane % 8, c = 2 * (lane % 4);  // c: the lane's first column of a step
    const std::uint32_t a_line = row ? shared_address(sA + (16 * warp + 8 * (j % 2) + r) * pa)
                                     : shared_address(sA + (8 * (j / 2) + r) * pa) + ((2 * warp + j % 2) ^ r) * granule;
    const std::uint32_t x_line = shared_address(sX + (8 * (j / 2) + r) * px);
#pragma unroll
    for (int step = 0; step < kCols<true, T> / 16; ++step) {
        std::uint32_t a[4];
        if constexpr (row)
            load_matrices_x4(a, a_line + ((2 * step + j / 2) ^ r) * granule);
        else
            load_matrices_x4<true>(a, a_line + 16 * step * pa * int(sizeof(bf16)));
        if (edge)
#pragma unroll
            for (int e = 0; e < 4; ++e) a[e] = zero_past(a[e], 16 * step + c + 8 * (e / 2), limit);
#pragma unroll
        for (int p = 0; p < (T + 1) / 2; ++p) {
            std::uint32_t b[4];
            const std::uint32_t x = x_line + 16 * p * px * int(sizeof(bf16)) + ((2 * step + j % 2) ^ r) * granule;
            if constexpr (T == 1)
                load_matrices_x2(b[0], b[1], x);
            else
                load_matrices_x4(b, x);
#pragma unroll
            for (int h = 0; h < (T == 1 ? 1 : 2); ++h) {
                std::uint32_t b0 = b[2 * h], b1 = b[2 * h + 1];
                if (edge) b0 = zero_past(b0, 16 * step + c, limit), b1 = zero_past(b1, 16 * step + c + 8, limit);
                float d[4];
                mma_16x8x16(d, a[0], a[1], a[2], a[3], b0, b1);
#pragma unroll
                for (int e = 0; e < 4; ++e) sum[2 * p + h][e] += d[e];
            }
        }
    }
}

// The warp's 16 rows of one chunk times 8·T vectors, lines whole or padded.
template <bool row, int T, bool a_even, bool x_even, bool whole, bool edge>
__device__ __forceinline__ void multiply_chunk(const bf16* sA, const bf16* sX, float (&sum)[T][4], int warp, int g,
                                               int t, int s_lo, int s_hi, int s_x, int limit) {
    if constexpr (whole)
        multiply_chunk_whole<row, T, edge>(sA, sX, sum, warp, 4 * g + t, limit);
    else
        multiply_chunk_padded<row, T, a_even, x_even, edge>(sA, sX, sum, warp, g, t, s_lo, s_hi, s_x, limit);
}

// BEGIN EXCERPT staged-kernel
// The grid: x the row_blocks blocks of kRows rows times the groups of 8·T vectors (side by side:
// staged::place_of), y slices of `per` columns (a multiple of a chunk's); where there are several,
// partial sums are added into a zeroed Y. Vector v of X starts at X + v·ldx; a_even and x_even: n
// and ldx are even (see multiply_chunk); whole: every line of A and X starts on a granule (Copies).
template <bool row, int T, bool a_even, bool x_even, bool whole>
__global__ void __launch_bounds__(kThreads)
    tensor_staged(const bf16* A, const bf16* X, std::int64_t ldx, float* Y, std::int64_t m, std::int64_t n, int k,
                  std::int64_t per, std::int64_t row_blocks, bool atomic) {
    extern __shared__ __align__(16) unsigned char shared[];
    bf16* sA = reinterpret_cast<bf16*>(shared);
    constexpr int cols = kCols<whole, T>;
    bf16* sX = sA + kStages * a_stage<row, T, whole>();
    const int warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
    const staged::Place at = staged::place_of<kRows, 8 * T>(row_blocks);
    const std::int64_t i0 = at.i0;
    const int v0 = at.v0;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    const int chunks = int((j1 - j0 + cols - 1) / cols);
    const Copies<row, T, whole> copies(m, n, k, ldx, i0, j0, v0, chunks);
    const auto copy = [&](int c) {  // chunk c into its slot
        copies.copy(sA + c % kStages * a_stage<row, T, whole>(), sX + c % kStages * x_stage<T, whole>(), A, X, c);
    };
    // BEGIN EXCERPT staged-pipeline
    for (int c = 0; c < kStages - 1; ++c) {  // the first chunks in flight
        if (c < chunks) copy(c);
        staged::commit_copies();
    }
    // Where the lane's lines start in their granules: the same in every chunk, since i0, v0 and
    // jc are multiples of 8 (row i starts i·n mod 8 in, vector v v·n mod 8; column-major A: see
    // multiply_chunk_padded). Whole lines take none of them (multiply_chunk_whole).
    const int n8 = whole ? 0 : int(n % 8), m8 = whole ? 0 : int(m % 8);
    const int s_lo = row ? g * n8 % 8 : 2 * t * m8 % 8, s_hi = row ? (g + 8) * n8 % 8 : (2 * t + 1) * m8 % 8;
    const int s_x = whole ? 0 : int(g * (ldx % 8) % 8);
    float sum[T][4] = {};
    for (int c = 0; c < chunks; ++c) {
        staged::wait_copies<kStages - 2>();  // chunk c is in
        __syncthreads();                     // for every thread, and every warp is done with chunk c - 1
        if (c + kStages - 1 < chunks) copy(c + kStages - 1);  // into the slot of chunk c - 1
        staged::commit_copies();
        const std::int64_t jc = j0 + std::int64_t(c) * cols;
        const bf16* a = sA + c % kStages * a_stage<row, T, whole>();
        const bf16* x = sX + c % kStages * x_stage<T, whole>();
        if (jc + cols <= j1)
            multiply_chunk<row, T, a_even, x_even, whole, false>(a, x, sum, warp, g, t, s_lo, s_hi, s_x, cols);
        else
            multiply_chunk<row, T, a_even, x_even, whole, true>(a, x, sum, warp, g, t, s_lo, s_hi, s_x, int(j1 - jc));
    }
    // END EXCERPT staged-pipeline
    staged::wait_copies<0>();
    // d[0..1]: row g, vectors 2t and 2t + 1 of tile q; d[2..3]: row g + 8.
#pragma unroll
    for (int q = 0; q < T; ++q)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const std::int64_t i = i0 + 16 * warp + g + 8 * (e / 2);
            const int v = v0 + 8 * q + 2 * t + e % 2;
            if (i < m && v < k) {
                float* y = Y + std::int64_t(v) * m + i;
                if (atomic)
                    atomicAdd(y, sum[q][e]);
                else
                    *y = sum[q][e];
            }
        }
}
// END EXCERPT staged-kernel

// The kernel for a layout, T, the parities of n and ldx and whole lines, its shared memory allowed
// once (more than the default 48 KiB).
template <bool row, int T, bool a_even, bool x_even, bool whole>
const void* prepared() {
    static const cudaError_t allowed =
        cudaFuncSetAttribute(tensor_staged<row, T, a_even, x_even, whole>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             shared_bytes<row, T, whole>());
    GEMV_CUDA_CHECK(allowed);
    return reinterpret_cast<const void*>(&tensor_staged<row, T, a_even, x_even, whole>);
}

// The instance the report and the occupancy stand for: whole lines, or padded ones with n and ldx
// odd (the other padded instances may take other registers; their shared memory, which bounds the
// blocks an SM, is the same).
staged::Instance instance_for(int group, gemv::Layout layout, bool whole_lines) {
    return staged::with_layout_and_tiles(group, layout, [&](auto row, auto tiles) {
        constexpr bool R = decltype(row)::value;
        constexpr int T = decltype(tiles)::value;
        if (whole_lines)
            return staged::Instance{prepared<R, T, true, true, true>(), std::size_t(shared_bytes<R, T, true>())};
        return staged::Instance{prepared<R, T, false, false, false>(), std::size_t(shared_bytes<R, T, false>())};
    });
}

template <bool row, int T, bool a_even, bool x_even, bool whole = false>
void launch(const several::Plan& p, const bf16* A, const bf16* X, std::int64_t ldx, float* Y, std::int64_t m,
            std::int64_t n, int k, cudaStream_t s) {
    prepared<row, T, a_even, x_even, whole>();
    tensor_staged<row, T, a_even, x_even, whole><<<staged::grid_of(p), kThreads, shared_bytes<row, T, whole>(), s>>>(
        A, X, ldx, Y, m, n, k, p.per, p.blocks, p.atomic());
}

// Whole lines where the plan says so (several::staged_whole_lines; column-major A takes no 4-byte
// pairs, so a_even does not matter there); n even: every pair of columns aligned; n odd, X read
// where it lies (x_even false) or packed.
template <bool row, int T>
void launch(const several::Plan& p, const bf16* A, const bf16* X, std::int64_t ldx, float* Y, std::int64_t m,
            std::int64_t n, int k, cudaStream_t s) {
    constexpr int g = staged::kGranule<bf16>;
    if (p.whole_lines != ((row ? n : m) % g == 0 && ldx % g == 0))
        throw std::logic_error("gemv_tensor_staged: the plan's whole lines do not match A and X");
    if (p.whole_lines) return launch<row, T, true, true, true>(p, A, X, ldx, Y, m, n, k, s);
    if (n % 2 == 0)
        launch<row, T, true, true>(p, A, X, ldx, Y, m, n, k, s);
    else if (ldx % 2 == 0)
        launch<row, T, false, true>(p, A, X, ldx, Y, m, n, k, s);
    else
        launch<row, T, false, false>(p, A, X, ldx, Y, m, n, k, s);
}

}  // namespace

gemv::Launch tensor_staged_launch(const several::Plan& p, gemv::Layout layout) {
    return staged::launch_of(p, instance_for(p.group, layout, p.whole_lines));
}

int tensor_staged_blocks_per_sm(int group, gemv::Layout layout, bool whole_lines) {
    return staged::blocks_per_sm(instance_for(group, layout, whole_lines), kThreads);
}

void gemv_tensor_staged(const several::Plan& p, gemv::Layout layout, const bf16* A, const bf16* X, float* Y,
                        std::int64_t m, std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != several::Kernel::tensor_staged || p.threads != kThreads)
        throw std::logic_error("gemv_tensor_staged needs a plan from plan_tensor_staged");
    gemv::require_16_byte_aligned(
        {A, X}, "gemv_tensor_staged reads A and X 16 bytes at a time from their starts: they must start on 16 bytes");
    // X packed where the plan says so (plan_tensor_staged), so that every pair of its columns is aligned.
    staged::with_layout_and_tiles(p.group, layout, [&](auto row, auto tiles) {
        staged::run(p, X, Y, m, n, k, s, [&](const bf16* Xs, std::int64_t ldx) {
            launch<decltype(row)::value, decltype(tiles)::value>(p, A, Xs, ldx, Y, m, n, k, s);
        });
    });
}

}  // namespace gemv::several
