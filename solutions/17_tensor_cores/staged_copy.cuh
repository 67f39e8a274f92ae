#pragma once

#include <cstdint>

#include "async_copy.cuh"

// The copies of step 17's staged kernels (gemv_tensor_staged.cu, gemv_fma_staged.cu): chunks of A
// and X into shared memory with cp.async, ahead of the multiplies, as a GEMM feeds its tiles. The
// tensor-core kernel copies the aligned granules that cover each line (copy_chunk); the FMA kernel
// lands every line on 16 bytes (copy_lines).
namespace gemv::staged {

// The copies themselves (cp.async: global to shared memory without registers), as step 11 uses them.
using gemv::commit_copies;
using gemv::copy16_async;
using gemv::copy4_async;
using gemv::wait_copies;

// Elements of E in a 16-byte granule (8 bf16, 4 float). A line in shared memory (a row of a
// row-major chunk, a column of a column-major one, a vector of X) holds the aligned granules that
// cover it: a granule more than the line, since it may start anywhere in its first granule.
template <class E>
constexpr int kGranule = 16 / int(sizeof(E));
template <class E, int length>
constexpr int kPitch = length + kGranule<E>;

// BEGIN EXCERPT staged-copy
// The granule of `base` that starts at element e (a multiple of kGranule), into shared memory; by
// hand at the end of the array, zero past it.
template <class E>
__device__ __forceinline__ void copy_granule(E* to, const E* base, std::int64_t e, std::int64_t total) {
    if (e + kGranule<E> <= total) {
        copy16_async(to, base + e);
        return;
    }
#pragma unroll
    for (int u = 0; u < kGranule<E>; ++u) to[u] = e + u < total ? base[e + u] : static_cast<E>(0.0f);
}

// One chunk: `cols` columns from jc of the `rows` rows from i0, and of the `vectors` vectors from
// v0. Each line (a row or a column of A, a vector of X) is copied as the aligned granules that
// cover it, and starts (first element) mod kGranule elements into them. Consecutive threads take
// consecutive granules, so a warp's copies are contiguous along each line. Lines outside the
// matrix are left as they are: a row past m only sums into rows that are not stored, a column or
// vector past the end is masked by the multiply.
template <class E, bool row, int rows, int cols, int vectors, int threads>
__device__ __forceinline__ void copy_chunk(E* sA, E* sX, const E* A, const E* X, std::int64_t m, std::int64_t n, int k,
                                           std::int64_t ldx, std::int64_t i0, std::int64_t jc, int v0) {
    constexpr int g = kGranule<E>, lines = row ? rows : cols, pitch = kPitch < E, row ? cols : rows > ;
#pragma unroll
    for (int idx = threadIdx.x; idx < lines * (pitch / g); idx += threads) {
        const int l = idx / (pitch / g), q = idx % (pitch / g);
        if (row ? i0 + l >= m : jc + l >= n) continue;
        const std::int64_t first = row ? (i0 + l) * n + jc : (jc + l) * m + i0;
        copy_granule(sA + l * pitch + g * q, A, first / g * g + g * q, m * n);
    }
    constexpr int x_pitch = kPitch<E, cols>;
    for (int idx = threadIdx.x; idx < vectors * (x_pitch / g); idx += threads) {
        const int v = idx / (x_pitch / g), q = idx % (x_pitch / g);
        if (v0 + v >= k) continue;
        const std::int64_t first = std::int64_t(v0 + v) * ldx + jc;
        copy_granule(sX + v * x_pitch + g * q, X, first / g * g + g * q, ldx * k);
    }
}
// END EXCERPT staged-copy

// The FMA kernel's copies (float): each line lands on 16 bytes in shared memory wherever it starts
// in global memory, so that the multiply reads 4 of its elements in one 16-byte load and never
// realigns. `lines` lines of `length` floats, line l from `from` + l·stride in global memory, to
// `to` + l·pitch in shared memory; `count` lines there, `valid` elements of each. Zeros where the
// sum runs past the matrix, so that they add nothing: past `valid` in a line where the sum runs
// along the lines (`along`: rows of row-major A, vectors of X), in the lines past `count` where it
// runs across them (columns of column-major A). The rest (rows past m, vectors past k, whose sums
// are never stored) is left as it is.
struct Lines {
    const float* from;
    std::int64_t stride;
    int count, valid;
    bool along;
};

// One piece (`piece` floats: 4 or 1) of line l at element e: copied, zero-filled or left. A
// zero-filled copy reads nothing, but its source must be an address: `base`, the array's start.
template <int piece>
__device__ __forceinline__ void copy_piece(float* to, const float* src, const float* base, const Lines& s, int l,
                                           int e) {
    if (s.along ? l >= s.count : e >= s.valid) return;
    const int there = l < s.count ? max(0, min(piece, s.valid - e)) : 0;
    if (piece == 4)
        copy16_async(to, there > 0 ? src : base, unsigned(4 * there));
    else
        copy4_async(to, there > 0 ? src : base, unsigned(4 * there));
}

// Where element e of line l lies in its line in shared memory. Swizzled lines are 8 granules with
// no padding between them: granule g of line l at g ^ (l mod 8), so that 8 consecutive lines read
// at one column take 8 different bank groups, as a pitch of 9 granules would place them, while
// each line stays one aligned 128-byte line of shared memory.
template <bool swizzled>
__device__ __forceinline__ int place(int l, int e) {
    return swizzled ? ((e >> 2 ^ (l & 7)) << 2) + (e & 3) : e;
}

// The lines in pieces of `piece` floats, consecutive threads on consecutive pieces of a line; a
// thread's source pointer steps from line to line by an addition, not a 64-bit multiply a piece.
template <int piece, int lines, int length, int threads, bool swizzled>
__device__ __forceinline__ void copy_pieces(float* to, int pitch, const float* base, const Lines& s) {
    constexpr int per_line = length / piece;
    static_assert(length % piece == 0 && (threads % per_line == 0 || per_line % threads == 0),
                  "a line's pieces fit the threads a whole number of times, or the other way round");
    if constexpr (threads % per_line == 0) {  // a thread: one piece of every (threads / per_line)-th line
        constexpr int step = threads / per_line;
        // Swizzled, a thread's place moves by an exclusive or from line to line: lines `step` apart,
        // a multiple of 4, have (l + step) mod 8 = (l mod 8) ^ (step mod 8).
        static_assert(!swizzled || step % 4 == 0, "a thread's lines a multiple of 4 apart");
        constexpr int flip = swizzled ? (step & 7) * kGranule<float> : 0;
        const int e = piece * (int(threadIdx.x) % per_line);
        int l = int(threadIdx.x) / per_line, at = place<swizzled>(l, e);
        const float* src = s.from + l * s.stride + e;
#pragma unroll 2
        for (; l < lines; l += step, src += step * s.stride, at ^= flip)
            copy_piece<piece>(to + l * pitch + at, src, base, s, l, e);
    } else {  // a thread: every (threads · piece)-th element of each line
        static_assert(!swizzled, "swizzled lines are copied a line to a few threads");
#pragma unroll 1
        for (int l = 0; l < lines; ++l) {
            const float* src = s.from + l * s.stride;
#pragma unroll
            for (int e = piece * int(threadIdx.x); e < length; e += piece * threads)
                copy_piece<piece>(to + l * pitch + e, src + e, base, s, l, e);
        }
    }
}

// 16-byte copies where every line starts on 16 bytes in global memory (`whole`), else 4-byte ones.
template <int lines, int length, int threads, bool swizzled = false>
__device__ __forceinline__ void copy_lines(float* to, int pitch, bool whole, const float* base, const Lines& s) {
    static_assert(!swizzled || length == 8 * kGranule<float>, "swizzled lines are 8 granules");
    if (whole)
        copy_pieces<kGranule<float>, lines, length, threads, swizzled>(to, pitch, base, s);
    else
        copy_pieces<1, lines, length, threads, swizzled>(to, pitch, base, s);
}

}  // namespace gemv::staged
