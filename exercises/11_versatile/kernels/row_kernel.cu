// Generated from solutions/11_versatile/kernels/row_kernel.cu by cmake/generate_exercises.py: fill in the TODOs. Start over with generate_exercises.py --reset --step 11
// Row-major A, in place: G = threads_per_row threads share a row (1, a warp, or the whole block)
// and stride along it V elements at a time; with several blocks a row, each block adds up one
// slice of the columns. L, the way of loading: aligned (V divides n), realigned (V elements of A
// at any column, load_realigned) or staggered (A's aligned 16 bytes, x realigned to them).
// A and x are stored in T and added up in Acc: gemv::widen() turns a stored element into Acc
// before it is multiplied (the identity for float and double; float for step 15's formats).
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// x for lane g of a warp on one row whose lanes load side by side, in two steps so that all the
// loads of a pass are in flight before the first shuffle waits for one (a shuffle right after
// each load held the next load back: slides/data/step11/h100_staggered_variants.csv).
// load_x_aligned: the aligned 16 bytes at q·V and, for the warp's first lane on a shifted row,
// the 16 before them. realign_x_shuffled: x[q·V - shift …], the 16 before taken from the lane
// before by shuffles, so that x is loaded once, as A is. Every lane of the warp must call it.
template <class T>
__device__ __forceinline__ void load_x_aligned(const T* xq, bool first, uint4& hi, uint4& before) {
    hi = __ldg(reinterpret_cast<const uint4*>(xq));
    before = first ? __ldg(reinterpret_cast<const uint4*>(xq) - 1) : hi;
}

template <class T, int V>
__device__ __forceinline__ void realign_x_shuffled(uint4 hi, uint4 before, int shift, bool first, T (&out)[V]) {
    uint4 lo;
    lo.x = __shfl_up_sync(0xffffffffu, hi.x, 1);
    lo.y = __shfl_up_sync(0xffffffffu, hi.y, 1);
    lo.z = __shfl_up_sync(0xffffffffu, hi.z, 1);
    lo.w = __shfl_up_sync(0xffffffffu, hi.w, 1);
    if (first) lo = before;
    const uint4 x = shift ? gemv::shift_down_bytes(lo, hi, unsigned(V - shift) * sizeof(T)) : hi;
    memcpy(out, &x, sizeof x);
}

// BEGIN EXCERPT row_staggered
// Staggered loads: the aligned 16 bytes of the row start `shift` elements before it, and load q
// of the row holds its columns q·V - shift to q·V - shift + V - 1. A is read only in aligned 16
// bytes; x, which every row reads from cache, is realigned to them (across a warp on one row by
// shuffles, realign_x_shuffled; elsewhere by a second load, load_realigned). The row's
// first and last loads, which also hold the rows beside it, are added an element at a time. A
// slice [c_begin, c_end) takes the loads whose column q·V it holds (the last slice the rest).
template <class T, int V, int U>
__device__ typename GemvArgs<T>::Acc row_part_staggered(const GemvArgs<T>& a, std::int64_t row, std::int64_t c_begin,
                                                        std::int64_t c_end) {
    typename GemvArgs<T>::Acc acc = 0;
    const std::int64_t n = a.n;
    if (c_begin >= n) return acc;  // an empty slice
    const int G = a.threads_per_row, g = threadIdx.x % G, shift = static_cast<int>(row * n % V);
    const T* r = a.A + (row * n - shift);  // 16-byte aligned
    const std::int64_t q_begin = c_begin / V, q_end = c_end == n ? (n + shift + V - 1) / V : c_end / V;
    const std::int64_t q_last = (n + shift) / V;  // past the whole loads; a partial one if (n + shift) % V
    std::int64_t q = max(q_begin, std::int64_t(shift ? 1 : 0)) + g;
    const std::int64_t q_stop = min(q_end, q_last);
    // A warp on one row shares x by shuffles: it steps while its last lane has U whole loads.
    const int behind = G >= 32 ? 31 - g % 32 : 0;
    for (; q + behind + std::int64_t(U - 1) * G < q_stop; q += std::int64_t(U) * G) {
        T v[U][V], xv[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            load_streaming<T, V>(r + (q + u * G) * V, v[u]);
            if (G < 32) load_realigned<T, V, true>(a.x + ((q + u * G) * V - shift), xv[u]);
        }
        if (G >= 32) {  // a warp on one row, its loads side by side: the x before a lane's is its neighbour's
            uint4 hi[U], before[U];
            const bool first = g % 32 == 0 && shift;
#pragma unroll
            for (int u = 0; u < U; ++u) load_x_aligned(a.x + (q + u * G) * V, first, hi[u], before[u]);
#pragma unroll
            for (int u = 0; u < U; ++u) realign_x_shuffled<T, V>(hi[u], before[u], shift, first, xv[u]);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) gemv::add_products(acc, v[u], xv[u]);
    }
    for (; q < q_stop; q += G) {
        T v[V], xv[V];
        load_streaming<T, V>(r + q * V, v);
        load_realigned<T, V, true>(a.x + (q * V - shift), xv);
        gemv::add_products(acc, v, xv);
    }
    const auto add_partial = [&](std::int64_t p) {  // load p, element by element, this row's columns only
        for (std::int64_t col = max(std::int64_t(0), p * V - shift); col < min(n, p * V - shift + V); ++col)
            acc += gemv::widen(r[col + shift]) * gemv::widen(load_one_cached(a.x + col));
    };
    if (shift && q_begin == 0 && g == 0) add_partial(0);
    if ((n + shift) % V && q_last >= q_begin && q_last < q_end && !(shift && q_last == 0) && g == G - 1)
        add_partial(q_last);
    return acc;
}
// END EXCERPT row_staggered

// This thread's part of row · x over the columns [c_begin, c_end): thread g of the row loads V
// elements at c_begin + g·V, then G·V further on, and so on, up to c_stop, the end of the last
// whole vector. With realigned loads (R, V not dividing n) a row starts anywhere inside 16 bytes,
// and its last n mod V elements, past c_stop, are added one at a time.
template <class T, int V, int U, bool R>
__device__ typename GemvArgs<T>::Acc row_part_in_place(const GemvArgs<T>& a, std::int64_t row, std::int64_t c_begin,
                                                       std::int64_t c_end) {
    const int G = a.threads_per_row, g = threadIdx.x % G;
    const T* r = a.A + row * a.n;
    const std::int64_t c_stop = R ? c_end - (c_end - c_begin) % V : c_end;  // aligned: V divides n
    typename GemvArgs<T>::Acc acc = 0;
    // TODO: for j = c_begin + g*V, + G*V, ... < c_stop: acc += r[j + k] * a.x[j + k] for k < V (load_a).
    if constexpr (R)
        if (c_stop < c_end && g == (c_stop - c_begin) / V % G)
            for (std::int64_t k = c_stop; k < c_end; ++k)
                acc += gemv::widen(r[k]) * gemv::widen(load_one_cached(a.x + k));
    return acc;
}

// A row's slice, read the way L says.
template <class T, int V, int U, Loads L>
__device__ typename GemvArgs<T>::Acc row_part(const GemvArgs<T>& a, std::int64_t row, std::int64_t c_begin,
                                              std::int64_t c_end) {
    if constexpr (L == Loads::staggered)
        return row_part_staggered<T, V, U>(a, row, c_begin, c_end);
    else
        return row_part_in_place<T, V, U, L == Loads::realigned>(a, row, c_begin, c_end);
}

template <class T, int V, int U, Loads L>
__global__ void __launch_bounds__(1024) gemv_row(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    const int G = a.threads_per_row, tid = threadIdx.x, g = tid % G, r = tid / G, rows = blockDim.x / G;
    Acc* cluster_sums = gemv::dynamic_shared<Acc>();
    Acc* folded = cluster_sums + (a.combine == Combine::cluster ? rows : 0);
    const std::int64_t row = std::int64_t(blockIdx.x) * rows + r;
    // Row blocks run side by side (x varies fastest): each starts on another slice, so that they
    // do not all read the same columns of rows whose starts are a power of two bytes apart.
    const std::int64_t slice = (std::int64_t(blockIdx.y) + blockIdx.x) % gridDim.y;
    const std::int64_t c_begin = slice * a.cols_per_block, c_end = min(a.n, c_begin + a.cols_per_block);
    Acc acc = 0;
    if (row < a.m) acc = row_part<T, V, U, L>(a, row, c_begin, c_end);
    // The G threads of a row fold their sums: shuffles inside a warp, shared memory across warps.
    for (int offset = min(G, 32) / 2; offset >= 1; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (G > 32) {
        if ((tid & 31) == 0) folded[tid / 32] = acc;
        __syncthreads();
        if (g == 0) {
            acc = 0;
            for (int w = 0; w < G / 32; ++w) acc += folded[tid / 32 + w];
        }
    }
    const std::int64_t base = std::int64_t(blockIdx.x) * rows;
    if (g == 0 && row < a.m) put_row_sum(a, cluster_sums, row, r, acc);
    finish_rows(a, cluster_sums, base, static_cast<int>(min(std::int64_t(rows), a.m - base)));
}

}  // namespace

template <class T>
const void* row_kernel(int vector, int unroll, Loads loads) {
    return instance_for<T>(vector, unroll, loads, [&](auto v, auto u, auto r) -> const void* {
        return reinterpret_cast<const void*>(&gemv_row<T, decltype(v)::value, decltype(u)::value, decltype(r)::value>);
    });
}

#define INSTANCE(T) template const void* row_kernel<T>(int, int, Loads);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
