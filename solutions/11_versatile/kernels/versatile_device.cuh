// What step 11's kernel families share on the device: the one argument every kernel takes, the
// loads and stores, and how a block hands its row sums on.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>

#include "config.hpp"
#include "realign.cuh"
#include "shared_memory.cuh"
#include "storage.hpp"

namespace gemv {

// Every kernel of step 11 takes this one argument: it reads the fields its family needs. A and x
// are stored in T; products are added up, and y stored, in Acc (T itself for float and double,
// float for the 16- and 8-bit formats of step 15).
template <class T>
struct GemvArgs {
    using Acc = gemv::accumulator_t<T>;
    const T* A;
    const T* x;
    Acc* y;
    std::int64_t m, n;
    int threads_per_row;          // threads of a block that share a row (column-major: along the columns)
    std::int64_t cols_per_block;  // columns in one block's slice of a row, a multiple of the vector
    Combine combine;
    Acc* partial;       // last_block: blocks_per_row partial sums a row (flat column-major: m running sums)
    unsigned* arrived;  // last_block: how many blocks of each row group have finished
};

// V elements of T as one load of V·sizeof(T) bytes (2 to 16), whatever T is.
template <int Bytes>
struct RawOf;
template <>
struct RawOf<1> {
    using type = unsigned char;
};
template <>
struct RawOf<2> {
    using type = unsigned short;
};
template <>
struct RawOf<4> {
    using type = unsigned;
};
template <>
struct RawOf<8> {
    using type = uint2;
};
template <>
struct RawOf<16> {
    using type = uint4;
};
template <class T, int V>
using Raw = typename RawOf<V* int(sizeof(T))>::type;

// A is streamed (__ldcs: evict first, it is read once); x is reused by every row (__ldg: the
// read-only cache keeps it). The bytes are moved to T registers by memcpy, which costs nothing.
template <class T, int V>
__device__ __forceinline__ void load_streaming(const T* p, T (&out)[V]) {
    const Raw<T, V> v = __ldcs(reinterpret_cast<const Raw<T, V>*>(p));
    memcpy(out, &v, sizeof v);
}

template <class T, int V>
__device__ __forceinline__ void load_cached(const T* p, T (&out)[V]) {
    const Raw<T, V> v = __ldg(reinterpret_cast<const Raw<T, V>*>(p));
    memcpy(out, &v, sizeof v);
}

// BEGIN EXCERPT realigned
// V elements of A from p on, 16 bytes, where p need not be 16-byte aligned (an odd m or n): the
// aligned 16 bytes that hold p and, where p is not their first byte, the next 16; then the 32
// bytes shifted down by p's place among them. That place depends only on the column (row), so
// every thread of a column (row) takes the same branch. The second load is the neighbouring
// thread's first: L1 and L2 serve it, so DRAM still moves each byte of A once, but the loads and
// the L1 traffic double (measured: slides/data/ncu/h100_ncu_11_realigned.txt against
// h100_ncu_11_aligned.txt). Cached: through the read-only cache
// (__ldg), for x, which staggered row-major loads realign this way.
template <class T, int V, bool Cached = false>
__device__ __forceinline__ void load_realigned(const T* p, T (&out)[V]) {
    static_assert(V * sizeof(T) == 16, "realigned loads are 16 bytes");
    const unsigned skip = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p) % 16);  // bytes
    const uint4* lo = reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(p) - skip);
    const auto load = [](const uint4* q) { return Cached ? __ldg(q) : __ldcs(q); };
    const uint4 a = load(lo), b = skip ? load(lo + 1) : a;
    const uint4 r = gemv::shift_down_bytes(a, b, skip);  // common/realign.cuh
    memcpy(out, &r, sizeof r);
}
// END EXCERPT realigned

// A's V elements at p: one aligned load, or (Realigned) the two around them.
template <class T, int V, bool Realigned>
__device__ __forceinline__ void load_a(const T* p, T (&out)[V]) {
    if constexpr (Realigned)
        load_realigned<T, V>(p, out);
    else
        load_streaming<T, V>(p, out);
}

// One element, as a load of its own size (the 8-bit formats have no __ldg of their own).
template <class T>
__device__ __forceinline__ T load_one_cached(const T* p) {
    T v[1];
    load_cached<T, 1>(p, v);
    return v[0];
}

// Thread g's share of row · x, for the G threads of a row that lies in shared memory from any byte
// on (a block's rows back to back). The narrow formats go 4 bytes at a time, so that one
// load of A, one of x and (fp8) two conversions carry 2 or 4 elements: the 4 bytes of the row are
// the two aligned words they straddle, shifted together; x must start on 4 bytes, as every x the
// lab allocates does. float and double lie aligned: an element at a time. What is left past the
// last whole word goes an element at a time.
template <class T, int U>
__device__ __forceinline__ accumulator_t<T> dot_shared_row(const T* row, const T* x, int n, int g, int G) {
    using Acc = accumulator_t<T>;
    Acc acc = 0;
    int done = 0;  // elements taken in words
    if constexpr (sizeof(T) < 4) {
        constexpr int E = 4 / sizeof(T);
        const auto at = reinterpret_cast<std::uintptr_t>(row);
        const unsigned* words = reinterpret_cast<const unsigned*>(at & ~std::uintptr_t(3));
        const unsigned* x_words = reinterpret_cast<const unsigned*>(x);
        const int shift = int(at & 3) * 8;
#pragma unroll U
        for (int k = g; k < n / E; k += G) {
            // the next word only where the row's 4 bytes straddle two (it may lie past the tile)
            const unsigned lo = words[k], hi = shift != 0 ? words[k + 1] : 0u;
            Acc a_wide[E], x_wide[E];
            widen_word<T>(__funnelshift_r(lo, hi, shift), a_wide);
            widen_word<T>(load_one_cached(x_words + k), x_wide);
#pragma unroll
            for (int e = 0; e < E; ++e) acc += a_wide[e] * x_wide[e];
        }
        done = n / E * E;
    }
#pragma unroll U
    for (int j = done + g; j < n; j += G) acc += widen(row[j]) * widen(load_one_cached(x + j));
    return acc;
}

// V elements of y in 16-byte stores (one where V·sizeof(T) <= 16); y is written once, so it need
// not stay in cache (__stcs).
template <class T, int V>
__device__ __forceinline__ void store_streaming(T* p, const T (&in)[V]) {
    constexpr int piece = V * sizeof(T) < 16 ? V : 16 / int(sizeof(T));  // elements a store
#pragma unroll
    for (int k = 0; k < V; k += piece) {
        Raw<T, piece> v;
        memcpy(&v, in + k, sizeof v);
        __stcs(reinterpret_cast<Raw<T, piece>*>(p + k), v);
    }
}

// V elements from flat index e on, those at or past `end` set to 0 and not loaded.
template <class T, int V>
__device__ __forceinline__ void load_until(const T* A, std::int64_t e, std::int64_t end, T (&out)[V]) {
    if (e + V <= end) {
        load_streaming<T, V>(A + e, out);
    } else {
#pragma unroll
        for (int k = 0; k < V; ++k) {
            out[k] = T{};  // zero in every format
            if (e + k < end) {
                T one[1];
                load_streaming<T, 1>(A + e + k, one);
                out[k] = one[0];
            }
        }
    }
}

// Cluster mode: every block of the cluster has put its sums for rows [base, base + count) in
// `sums` (its shared memory); block 0 of the cluster reads them all through distributed shared
// memory, adds them in rank order (the same result on every run) and stores y. Every thread of
// every block of the cluster must call this.
template <class Acc>
__device__ void add_up_in_cluster(Acc* sums, Acc* y, std::int64_t base, int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // every block's sums are written
    if (cluster.block_rank() == 0)
        for (int o = threadIdx.x; o < count; o += blockDim.x) {
            Acc total = 0;
            for (unsigned r = 0; r < cluster.num_blocks(); ++r) total += cluster.map_shared_rank(sums, r)[o];
            y[base + o] = total;
        }
    cluster.sync();  // no block leaves while block 0 still reads its shared memory
#endif
}

// Whether this block is the last of `blocks` to arrive at `counter`, which it then sets back to 0
// for the next launch. Before arriving, every thread's stores and atomics are made visible to
// every block; the last block reads the others' through L2 (__ldcg). Every thread must call it.
__device__ __forceinline__ bool arrived_last(unsigned* counter, unsigned blocks) {
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(counter, 1u) == blocks - 1;
        if (last) *counter = 0;  // every other block of the group has arrived: none reads it again
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

// BEGIN EXCERPT last_block
// Last-block mode: every block has stored its sums of rows [base, base + count) as
// partial[blockIdx.y·m + row]. The block that arrives last at its row group's counter adds all
// of them, in the order of blockIdx.y (the same bits on every run), and stores y: one launch, no
// zeroing of y. Every thread must call it.
template <class T>
__device__ void add_up_in_last_block(const GemvArgs<T>& a, std::int64_t base, int count) {
    if (!arrived_last(a.arrived + blockIdx.x, gridDim.y)) return;
    for (int o = threadIdx.x; o < count; o += blockDim.x) {
        typename GemvArgs<T>::Acc total = 0;
        for (unsigned b = 0; b < gridDim.y; ++b) total += __ldcg(a.partial + std::int64_t(b) * a.m + base + o);
        a.y[base + o] = total;
    }
}
// END EXCERPT last_block

// atomic_last: every block has added its sums of rows [base, base + count) into partial[row],
// kept at zero between launches. The block that arrives last at the counter moves them to y and
// zeroes them again: one launch, where atomic's memset of y and the kernel are two (the bits vary
// with the order of the atomics). `blocks` blocks share the counter. Every thread must call it.
template <class Acc>
__device__ void move_sums_in_last_block(Acc* partial, unsigned* counter, unsigned blocks, Acc* y, std::int64_t base,
                                        std::int64_t count) {
    if (!arrived_last(counter, blocks)) return;
    for (std::int64_t o = threadIdx.x; o < count; o += blockDim.x) {
        y[base + o] = __ldcg(partial + base + o);
        partial[base + o] = 0;
    }
}

// The block's sum of `row`, the o-th of its rows: stored, added atomically into y, or kept for
// the cluster, the workspace or the last block (then every thread calls finish_rows).
template <class T, class Acc = typename GemvArgs<T>::Acc>
__device__ __forceinline__ void put_row_sum(const GemvArgs<T>& a, Acc* cluster_sums, std::int64_t row, int o, Acc sum) {
    switch (a.combine) {
        case Combine::store:
            a.y[row] = sum;
            break;
        case Combine::atomic:
            atomicAdd(a.y + row, sum);
            break;
        case Combine::atomic_last:
            atomicAdd(a.partial + row, sum);
            break;
        case Combine::cluster:
            cluster_sums[o] = sum;
            break;
        case Combine::last_block:
            a.partial[std::int64_t(blockIdx.y) * a.m + row] = sum;
            break;
    }
}

template <class T, class Acc = typename GemvArgs<T>::Acc>
__device__ __forceinline__ void finish_rows(const GemvArgs<T>& a, Acc* cluster_sums, std::int64_t base, int count) {
    if (a.combine == Combine::cluster) add_up_in_cluster(cluster_sums, a.y, base, count);
    if (a.combine == Combine::last_block) add_up_in_last_block(a, base, count);
    if (a.combine == Combine::atomic_last)
        move_sums_in_last_block(a.partial, a.arrived + blockIdx.x, gridDim.y, a.y, base, count);
}

// Column-major A read flat or in tiles: every block adds to all m rows. Its sums, in shared
// memory, are stored (a grid of one block), added atomically into y (zeroed first: atomic), or
// added atomically into a.partial, which the last block to finish moves to y (atomic_last).
// Every thread must call it.
template <class T, class Acc = typename GemvArgs<T>::Acc>
__device__ void add_block_to_y(const GemvArgs<T>& a, const Acc* block_y) {
    const std::int64_t m = a.m;
    if (a.combine == Combine::store) {
        for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) a.y[i] = block_y[i];
        return;
    }
    Acc* sums = a.combine == Combine::atomic ? a.y : a.partial;
    for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) atomicAdd(sums + i, block_y[i]);
    if (a.combine == Combine::atomic_last) move_sums_in_last_block(a.partial, a.arrived, gridDim.x, a.y, 0, m);
}

}  // namespace gemv
