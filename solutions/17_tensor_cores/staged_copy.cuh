#pragma once

#include <cstdint>

#include "async_copy.cuh"

// The copies of step 17's staged kernels (gemv_tensor_staged.cu, gemv_fma_staged.cu): chunks of A
// and X into shared memory with cp.async, ahead of the multiplies, as a GEMM feeds its tiles. The
// tensor-core kernel copies the aligned granules that cover each line (ChunkCopies); the FMA kernel
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

// Where element e of line l lies in its line in shared memory. A padded line (kPitch) holds it at
// e. Swizzled lines are whole granules with no padding between them: granule q of line l at
// q ^ (l mod 8), so that 8 consecutive lines read at one column take 8 different bank groups, as a
// padded pitch would place them, while each line keeps its own aligned 128-byte lines of shared
// memory. That matters to the copies too: a 16-byte cp.async that bypasses L1 (.cg) into a line
// that straddles 128 bytes of shared memory asked L2 for 1.5 times the line's sectors
// (slides/data/step16/NOTES.md).
template <class E, bool swizzled>
__device__ __forceinline__ int place(int l, int e) {
    constexpr int g = kGranule<E>;
    return swizzled ? (e / g ^ (l & 7)) * g + e % g : e;
}

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

// A thread's share of the copies of one kind of line (rows or columns of A, vectors of X). Every
// chunk copies the same granules of the same lines into the same places of its stage; only the
// columns move on, `step` elements a chunk. So where each of the thread's granules lies is worked
// out once, with the division and the 64-bit products it takes, and a chunk only adds its
// distance. Worked out chunk by chunk, a granule's copy took about 45 dependent instructions, and
// they, not DRAM, held the kernel back (slides/data/step16/NOTES.md). Whether all of the thread's
// granules lie inside the array in every chunk of the block is worked out once too: then a copy is
// an addition and the copy itself, not two 64-bit comparisons (25 instructions a granule in all).
// Consecutive threads take consecutive granules, so that a warp's copies are contiguous along a line.
template <class E, int lines, int pitch, int threads, bool swizzled>
struct Granules {
    static constexpr int g = kGranule<E>, count = (lines * (pitch / g) + threads - 1) / threads;
    std::int64_t first[count];  // the granule's first element in the first chunk; `total`: none
    int to[count];              // its place in a stage
    std::int64_t total;         // the array's elements
    std::int64_t step;          // elements from a chunk to the next
    bool inside = true;         // every granule of the thread there, and inside the array, in every chunk

    // Line l starts at element start + l·stride; lines from `live` on are outside the matrix (rows
    // past m, vectors past k) and are left as they are: their sums are never stored. A line is
    // copied as `used` granules: pitch / g, or one fewer where every line starts on a granule. The
    // block copies `chunks` chunks.
    __device__ Granules(std::int64_t start, std::int64_t stride, int live, int used, std::int64_t total,
                        std::int64_t step, int chunks)
        : total(total), step(step) {
#pragma unroll
        for (int s = 0; s < count; ++s) {
            const int idx = int(threadIdx.x) + s * threads, l = idx / used, q = idx % used;
            const std::int64_t line = start + std::int64_t(l) * stride;
            first[s] = idx < lines * used && l < live ? line / g * g + g * q : total;
            to[s] = l * pitch + place<E, swizzled>(l, g * q);
            inside = inside && first[s] + (chunks - 1) * step + g <= total;
        }
    }

    // Chunk c into `stage`; zeros past the array's end. Columns past n that the chunk covers are
    // masked by the multiply.
    __device__ __forceinline__ void copy(E* stage, const E* base, int c) const {
        const std::int64_t shift = c * step;
        if (inside) {
#pragma unroll
            for (int s = 0; s < count; ++s) copy16_async(stage + to[s], base + first[s] + shift);
        } else {
#pragma unroll
            for (int s = 0; s < count; ++s)
                if (first[s] + shift < total) copy_granule(stage + to[s], base, first[s] + shift, total);
        }
    }
};

// One chunk of A and X for the tensor-core kernel: `cols` columns from j0 + c·cols of the `rows`
// rows from i0, and of the `vectors` vectors from v0. Each line is copied as the aligned granules
// that cover it, and starts (first element) mod kGranule elements into them. `whole`: every line
// of A and X starts on a granule (row-major A where n is a multiple of g, column-major A where m
// is, and X where ldx is), and the lines lie whole and swizzled (place); else padded, a granule
// more than the line.
template <class E, bool row, int rows, int cols, int vectors, int threads, bool whole>
struct ChunkCopies {
    static constexpr int g = kGranule<E>, lines = row ? rows : cols, length = row ? cols : rows;
    static constexpr int pitch_a = whole ? length : kPitch<E, length>, pitch_x = whole ? cols : kPitch<E, cols>;
    Granules<E, lines, pitch_a, threads, whole> a;
    Granules<E, vectors, pitch_x, threads, whole> x;

    // Rows of row-major A past m and vectors past k are not copied (column-major, the granules past
    // row m are the next column's, in sums never stored); a line that starts on a granule (every row
    // of row-major A where n is a multiple of g, every column of column-major A where m is, every
    // vector where ldx is) takes one granule fewer.
    __device__ ChunkCopies(std::int64_t m, std::int64_t n, int k, std::int64_t ldx, std::int64_t i0, std::int64_t j0,
                           int v0, int chunks)
        : a(row ? i0 * n + j0 : j0 * m + i0, row ? n : m, row ? int(min(std::int64_t(rows), m - i0)) : cols,
            kPitch<E, length> / g - ((row ? n : m) % g == 0), m * n, row ? cols : cols * m, chunks),
          x(std::int64_t(v0) * ldx + j0, ldx, min(vectors, k - v0), kPitch<E, cols> / g - (ldx % g == 0), ldx * k, cols,
            chunks) {}

    // Chunk c into its stage (sA, sX).
    __device__ __forceinline__ void copy(E* sA, E* sX, const E* A, const E* X, int c) const {
        a.copy(sA, A, c);
        x.copy(sX, X, c);
    }
};
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
        int l = int(threadIdx.x) / per_line, at = place<float, swizzled>(l, e);
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
