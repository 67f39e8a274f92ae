#include <cooperative_groups.h>

#include <climits>
#include <numeric>
#include <sstream>

#include "gemv_versatile.cuh"
#include "shared_memory.cuh"

namespace {

// V elements from 16-, 8- or 4-byte aligned memory in one load. A is streamed (__ldcs: evict
// first, it is read once), x is reused by every row (__ldg: the read-only cache keeps it).
template <class T, int V>
struct VecOf;
template <>
struct VecOf<float, 1> {
    using type = float;
};
template <>
struct VecOf<float, 2> {
    using type = float2;
};
template <>
struct VecOf<float, 4> {
    using type = float4;
};
template <>
struct VecOf<double, 1> {
    using type = double;
};
template <>
struct VecOf<double, 2> {
    using type = double2;
};

template <class T, int V>
__device__ __forceinline__ void unpack(const typename VecOf<T, V>::type& v, T (&out)[V]) {
    static_assert(sizeof(v) == V * sizeof(T), "a vector is V elements");
    const T* p = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int k = 0; k < V; ++k) out[k] = p[k];
}

template <class T, int V>
__device__ __forceinline__ void load_streaming(const T* p, T (&out)[V]) {
    unpack<T, V>(__ldcs(reinterpret_cast<const typename VecOf<T, V>::type*>(p)), out);
}

template <class T, int V>
__device__ __forceinline__ void load_cached(const T* p, T (&out)[V]) {
    unpack<T, V>(__ldg(reinterpret_cast<const typename VecOf<T, V>::type*>(p)), out);
}

// V elements to V-aligned shared memory in one store.
template <class T, int V>
__device__ __forceinline__ void store_vector(T* p, const T (&in)[V]) {
    typename VecOf<T, V>::type v;
    memcpy(&v, in, sizeof v);  // registers to registers, no alignment assumed of `in`
    *reinterpret_cast<typename VecOf<T, V>::type*>(p) = v;
}

// V elements from flat index e on, those at or past `end` set to 0 and not loaded.
template <class T, int V>
__device__ __forceinline__ void load_until(const T* A, std::int64_t e, std::int64_t end, T (&out)[V]) {
    if (e + V <= end) {
        load_streaming<T, V>(A + e, out);
    } else {
#pragma unroll
        for (int k = 0; k < V; ++k) out[k] = e + k < end ? __ldcs(A + e + k) : T(0);
    }
}

// How the blocks that share rows (grid.y > 1) combine their sums.
enum Combine : int { kStore = 0, kAtomic = 1, kCluster = 2 };

// Cluster mode: every block of the cluster has put its sums for rows [base, base + count) in
// `sums` (its shared memory); block 0 of the cluster reads them all through distributed shared
// memory, adds them in rank order (the same result on every run) and stores y. Every thread of
// every block of the cluster must call this.
template <class T>
__device__ void combine_in_cluster(T* sums, T* y, std::int64_t base, int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // every block's sums are written
    if (cluster.block_rank() == 0)
        for (int o = threadIdx.x; o < count; o += blockDim.x) {
            T total = 0;
            for (unsigned r = 0; r < cluster.num_blocks(); ++r) total += cluster.map_shared_rank(sums, r)[o];
            y[base + o] = total;
        }
    cluster.sync();  // no block leaves while block 0 still reads its shared memory
#endif
}

// Column-major: thread (tr, tc) owns V consecutive rows and every Tc-th column of the block's
// slice; a warp's loads of one column are contiguous.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024)
    gemv_versatile_col(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, std::int64_t m,
                       std::int64_t n, int threads_along, std::int64_t cols_per_split, int combine) {
    const int Tr = threads_along, Tc = blockDim.x / Tr, outs = Tr * V;
    T* sums = gemv::dynamic_shared<T>();  // the block's sum per row, for cluster mode
    T* partial = sums + (combine == kCluster ? outs : 0);
    const int tid = threadIdx.x, tr = tid % Tr, tc = tid / Tr;
    const std::int64_t row0 = (std::int64_t(blockIdx.x) * Tr + tr) * V;
    const std::int64_t c_begin = std::int64_t(blockIdx.y) * cols_per_split;
    const std::int64_t c_end = min(n, c_begin + cols_per_split);
    T acc[V] = {};
    if (row0 < m) {
        // BEGIN SOLUTION walk this thread's columns j = c_begin + tc, + Tc, ...: acc[k] += A[j*m + row0 + k] * x[j]
        const T* a = A + row0;
        std::int64_t j = c_begin + tc;
        // U columns' loads are issued before any is used: bytes in flight hide the latency.
        for (; j + std::int64_t(U - 1) * Tc < c_end; j += std::int64_t(U) * Tc) {
            T v[U][V], xj[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                load_streaming<T, V>(a + (j + std::int64_t(u) * Tc) * m, v[u]);
                xj[u] = __ldg(x + j + std::int64_t(u) * Tc);
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int k = 0; k < V; ++k) acc[k] += v[u][k] * xj[u];
        }
        for (; j < c_end; j += Tc) {
            T v[V];
            load_streaming<T, V>(a + j * m, v);
            const T xj = __ldg(x + j);
#pragma unroll
            for (int k = 0; k < V; ++k) acc[k] += v[k] * xj;
        }
        // END SOLUTION
    }
    const std::int64_t base = std::int64_t(blockIdx.x) * outs;
    const int count = static_cast<int>(min(std::int64_t(outs), m - base));
    if (Tc == 1) {  // one thread per row group: nothing to combine inside the block
#pragma unroll
        for (int k = 0; k < V; ++k) {
            if (row0 + k >= m) break;
            if (combine == kCluster)
                sums[tr * V + k] = acc[k];
            else if (combine == kAtomic)
                atomicAdd(y + row0 + k, acc[k]);
            else
                y[row0 + k] = acc[k];
        }
        if (combine == kCluster) combine_in_cluster(sums, y, base, count);
        return;
    }
    // Threads with the same tr hold partial sums of the same rows: fold them, first inside each
    // warp with shuffles (when a warp spans several columns), then across warps in shared memory.
    const int lane = tid & 31;
    int groups, group;
    if (Tr < 32) {
        for (int offset = 16; offset >= Tr; offset >>= 1)
#pragma unroll
            for (int k = 0; k < V; ++k) acc[k] += __shfl_xor_sync(0xffffffffu, acc[k], offset);
        groups = blockDim.x / 32;
        group = tid / 32;
        if (lane < Tr)
#pragma unroll
            for (int k = 0; k < V; ++k) partial[group * outs + lane * V + k] = acc[k];
    } else {
        groups = Tc;
        group = tc;
#pragma unroll
        for (int k = 0; k < V; ++k) partial[group * outs + tr * V + k] = acc[k];
    }
    __syncthreads();
    for (int o = tid; o < count; o += blockDim.x) {
        T sum = 0;
        for (int g = 0; g < groups; ++g) sum += partial[g * outs + o];
        if (combine == kCluster)
            sums[o] = sum;
        else if (combine == kAtomic)
            atomicAdd(y + base + o, sum);
        else
            y[base + o] = sum;
    }
    if (combine == kCluster) combine_in_cluster(sums, y, base, count);
}

// BEGIN EXCERPT col_flat
// Column-major A with few rows: its columns lie back to back, so read it as one flat array, V
// aligned elements a load, whatever m is. The grid's stride S = gridDim.x * blockDim.x * V is a
// multiple of m: a thread meets the same V rows, (e + k) mod m, at every step and keeps their sums
// in registers, while its columns, (e + k) / m, move on by S / m.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024)
    gemv_versatile_col_flat(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, std::int64_t m,
                            std::int64_t n, int, std::int64_t, int) {
    T* block_y = gemv::dynamic_shared<T>();  // the block's sum per row
    for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) block_y[i] = 0;
    const std::int64_t total = m * n, stride = std::int64_t(gridDim.x) * blockDim.x * V, col_step = stride / m;
    std::int64_t e = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * V;
    std::int64_t col[V];
    T acc[V] = {};
    // BEGIN SOLUTION walk e, e + S, ...: acc[k] += A[e + k] * x[col[k]], col[k] = (e + k) / m moving by S / m a step
#pragma unroll
    for (int k = 0; k < V; ++k) col[k] = (e + k) / m;
    for (; e + (U - 1) * stride + V <= total; e += U * stride) {
        T v[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) load_streaming<T, V>(A + e + u * stride, v[u]);
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int k = 0; k < V; ++k) acc[k] += v[u][k] * __ldg(x + col[k] + u * col_step);
#pragma unroll
        for (int k = 0; k < V; ++k) col[k] += U * col_step;
    }
    for (; e < total; e += stride) {  // fewer than U steps left, the last vector maybe partial
        T v[V];
        load_until<T, V>(A, e, total, v);
#pragma unroll
        for (int k = 0; k < V; ++k) {
            if (e + k < total) acc[k] += v[k] * __ldg(x + col[k]);
            col[k] += col_step;
        }
    }
    // END SOLUTION
    __syncthreads();  // block_y is zeroed
    const std::int64_t first_row = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * V % m;
#pragma unroll
    for (int k = 0; k < V; ++k) atomicAdd(block_y + (first_row + k) % m, acc[k]);
    __syncthreads();
    for (std::int64_t i = threadIdx.x; i < m; i += blockDim.x) atomicAdd(y + i, block_y[i]);
}
// END EXCERPT col_flat

// Row-major: G = threads_along threads share a row and stride along it V elements at a time.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024)
    gemv_versatile_row(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, std::int64_t m,
                       std::int64_t n, int threads_along, std::int64_t cols_per_split, int combine) {
    const int G = threads_along, tid = threadIdx.x, g = tid % G, r = tid / G, rows = blockDim.x / G;
    T* sums = gemv::dynamic_shared<T>();  // the block's sum per row, for cluster mode
    T* partial = sums + (combine == kCluster ? rows : 0);
    const std::int64_t row = std::int64_t(blockIdx.x) * rows + r;
    // Row blocks run side by side (x varies fastest): each starts on another slice, so that they
    // do not all read the same columns of rows whose starts are a power of two bytes apart.
    const std::int64_t slice = (std::int64_t(blockIdx.y) + blockIdx.x) % gridDim.y;
    const std::int64_t c_begin = slice * cols_per_split;
    const std::int64_t c_end = min(n, c_begin + cols_per_split);  // a multiple of V
    T acc = 0;
    if (row < m) {
        // BEGIN SOLUTION stride along the row from j = c_begin + g*V by G*V: acc += A[row*n + j + k] * x[j + k]
        const T* a = A + row * n;
        const std::int64_t step = std::int64_t(G) * V;
        std::int64_t j = c_begin + std::int64_t(g) * V;
        for (; j + (U - 1) * step < c_end; j += U * step) {
            T v[U][V], xv[U][V];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                load_streaming<T, V>(a + j + u * step, v[u]);
                load_cached<T, V>(x + j + u * step, xv[u]);
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int k = 0; k < V; ++k) acc += v[u][k] * xv[u][k];
        }
        for (; j < c_end; j += step) {
            T v[V], xv[V];
            load_streaming<T, V>(a + j, v);
            load_cached<T, V>(x + j, xv);
#pragma unroll
            for (int k = 0; k < V; ++k) acc += v[k] * xv[k];
        }
        // END SOLUTION
    }
    // The G threads of a row fold their sums: shuffles inside a warp, shared memory across warps.
    for (int offset = min(G, 32) / 2; offset >= 1; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (G > 32) {
        if ((tid & 31) == 0) partial[tid / 32] = acc;
        __syncthreads();
        if (g == 0) {
            acc = 0;
            for (int w = 0; w < G / 32; ++w) acc += partial[tid / 32 + w];
        }
    }
    if (g == 0 && row < m) {
        if (combine == kCluster)
            sums[r] = acc;
        else if (combine == kAtomic)
            atomicAdd(y + row, acc);
        else
            y[row] = acc;
    }
    if (combine == kCluster) {
        const std::int64_t base = std::int64_t(blockIdx.x) * rows;
        combine_in_cluster(sums, y, base, static_cast<int>(min(std::int64_t(rows), m - base)));
    }
}

// BEGIN EXCERPT row_short
// Row-major rows short enough for one pass of their G <= 32 threads (G*V >= n), the tall shapes:
// each thread takes U rows, a block's worth of rows apart, and issues all U loads before using
// any, so that bytes stay in flight where a row alone is one load (Sørensen's WORKSIZE_m).
template <class T, int V, int U>
__global__ void __launch_bounds__(1024)
    gemv_versatile_row_short(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, std::int64_t m,
                             std::int64_t n, int threads_along, std::int64_t, int) {
    const int G = threads_along, tid = threadIdx.x, g = tid % G, rows = blockDim.x / G;
    const std::int64_t first = std::int64_t(blockIdx.x) * rows * U + tid / G;
    const std::int64_t j = std::int64_t(g) * V;
    T xv[V] = {}, v[U][V];
    if (j < n) load_cached<T, V>(x + j, xv);
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const std::int64_t row = first + std::int64_t(u) * rows;
        if (row < m && j < n) {
            load_streaming<T, V>(A + row * n + j, v[u]);
        } else {
#pragma unroll
            for (int k = 0; k < V; ++k) v[u][k] = 0;
        }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        T acc = 0;
#pragma unroll
        for (int k = 0; k < V; ++k) acc += v[u][k] * xv[k];
        for (int offset = G / 2; offset >= 1; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
        const std::int64_t row = first + std::int64_t(u) * rows;
        if (g == 0 && row < m) y[row] = acc;
    }
}
// END EXCERPT row_short

// BEGIN EXCERPT row_flat
// Row-major rows whose length is not a multiple of the vector (n = 43): a row cannot be read with
// aligned 16-byte loads, but a block's rows lie back to back. Copy them to shared memory as one
// flat array with aligned loads, then the G <= 32 threads of each row add it up from there.
template <class T, int V, int U>
__global__ void __launch_bounds__(1024)
    gemv_versatile_row_flat(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, std::int64_t m,
                            std::int64_t n, int threads_along, std::int64_t, int) {
    T* tile = gemv::dynamic_shared<T>();  // the block's rows, from the aligned load they start in
    const int G = threads_along, rows = blockDim.x / G, r = threadIdx.x / G, g = threadIdx.x % G;
    const std::int64_t row0 = std::int64_t(blockIdx.x) * rows, begin = row0 * n, end = min(m, row0 + rows) * n;
    const std::int64_t first = begin / V * V, stride = std::int64_t(blockDim.x) * V;
    std::int64_t e = first + std::int64_t(threadIdx.x) * V;
    T acc = 0;
    // BEGIN SOLUTION copy A[first, end) to tile, U aligned loads in flight; then acc = row r of the tile · x
    for (; e + (U - 1) * stride < end; e += U * stride) {
        T v[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) load_until<T, V>(A, e + u * stride, end, v[u]);
#pragma unroll
        for (int u = 0; u < U; ++u) store_vector<T, V>(tile + (e + u * stride - first), v[u]);
    }
    for (; e < end; e += stride) {
        T v[V];
        load_until<T, V>(A, e, end, v);
        store_vector<T, V>(tile + (e - first), v);
    }
    __syncthreads();
    const T* a = tile + (begin - first) + std::int64_t(r) * n;  // odd n: a warp's rows miss each other's banks
    if (row0 + r < m)
        for (std::int64_t j = g; j < n; j += G) acc += a[j] * __ldg(x + j);
    // END SOLUTION
    for (int offset = G / 2; offset >= 1; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (g == 0 && row0 + r < m) y[row0 + r] = acc;
}
// END EXCERPT row_flat

// The row-major configurations that the short-row kernel serves.
bool short_rows(const VersatileConfig& c, gemv::Layout layout, std::int64_t n) {
    return layout == gemv::Layout::row && !c.flat && c.splits == 1 && c.threads_along <= 32 &&
           std::int64_t(c.threads_along) * c.vector >= n;
}

template <class T>
const void* kernel_for(gemv::Layout layout, int vector, int unroll, bool short_row, bool flat) {
#define GEMV_PICK(V, U)                                                                                                \
    if (vector == V && unroll == U)                                                                                    \
        return flat && layout == gemv::Layout::col ? reinterpret_cast<const void*>(&gemv_versatile_col_flat<T, V, U>)  \
               : flat                              ? reinterpret_cast<const void*>(&gemv_versatile_row_flat<T, V, U>)  \
               : layout == gemv::Layout::col       ? reinterpret_cast<const void*>(&gemv_versatile_col<T, V, U>)       \
               : short_row                         ? reinterpret_cast<const void*>(&gemv_versatile_row_short<T, V, U>) \
                                                   : reinterpret_cast<const void*>(&gemv_versatile_row<T, V, U>);
    GEMV_PICK(1, 1)
    GEMV_PICK(1, 2) GEMV_PICK(1, 4) GEMV_PICK(2, 1) GEMV_PICK(2, 2) GEMV_PICK(2, 4) if constexpr (sizeof(T) == 4) {
        GEMV_PICK(4, 1) GEMV_PICK(4, 2) GEMV_PICK(4, 4)
    }
#undef GEMV_PICK
    return nullptr;
}

bool power_of_two(std::int64_t v) {
    return v > 0 && (v & (v - 1)) == 0;
}

std::int64_t div_up(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

}  // namespace

std::int64_t flat_grid_unit(std::int64_t m, int block, int vector) {
    return m / std::gcd(m, std::int64_t(block) * vector);
}

std::int64_t versatile_row_blocks(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n) {
    if (layout == gemv::Layout::col) return div_up(m, std::int64_t(c.threads_along) * c.vector);
    const bool short_row = short_rows(c, layout, n);  // each thread takes `unroll` rows
    return div_up(m, std::int64_t(c.block / c.threads_along) * (short_row ? c.unroll : 1));
}

std::int64_t flat_row_tile_bytes(const VersatileConfig& c, std::int64_t n, std::size_t elem) {
    // The rows, plus up to V - 1 elements before the first and after the last aligned load.
    return (std::int64_t(c.block / c.threads_along) * n + 2 * c.vector) * std::int64_t(elem);
}

std::int64_t blocks_per_wave(int sm_count, int block) {
    return std::int64_t(sm_count) * (2048 / block);  // Hopper: 2048 threads per SM
}

std::string VersatileConfig::describe() const {
    std::ostringstream s;
    s << "block " << block << ", vector " << vector << ", unroll " << unroll << ", threads_along " << threads_along
      << ", splits " << splits << (cluster ? " in a cluster" : "") << (flat ? ", flat" : "");
    return s.str();
}

std::string versatile_invalid(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n,
                              std::size_t elem) {
    if (m < 1 || n < 1) return "m and n must be positive";
    if (c.block < 32 || c.block > 1024 || c.block % 32) return "block must be a multiple of 32 from 32 to 1024";
    if (!(c.vector == 1 || c.vector == 2 || c.vector == 4) || c.vector * elem > 16)
        return "vector must be 1, 2 or 4 elements and at most 16 bytes";
    if (!(c.unroll == 1 || c.unroll == 2 || c.unroll == 4)) return "unroll must be 1, 2 or 4";
    if (!power_of_two(c.threads_along) || c.block % c.threads_along)
        return "threads_along must be a power of two that divides block";
    // Aligned loads: V must divide the dimension along them (flat reads A as one array: any m).
    const std::int64_t along = layout == gemv::Layout::col ? m : n;
    if (!c.flat && along % c.vector)
        return "vector must divide " + std::string(layout == gemv::Layout::col ? "m" : "n");
    if (c.splits < 1 || (!c.flat && (c.splits > 65535 || c.splits > n)))
        return "splits must be from 1 to min(n, 65535)";
    if (c.cluster && (c.splits < 2 || c.splits > 8)) return "a cluster combines 2 to 8 splits";
    if (c.flat && c.cluster) return "flat does not combine in a cluster";
    if (c.flat && layout == gemv::Layout::row) {
        if (c.splits != 1) return "flat row-major reads whole rows: splits must be 1";
        if (c.threads_along > 32) return "flat row-major shares a row among at most 32 threads";
        if (flat_row_tile_bytes(c, n, elem) > kFlatTileBytes)
            return "flat row-major copies block / threads_along rows to shared memory: at most " +
                   std::to_string(kFlatTileBytes / 1024) + " KiB";
    } else if (c.flat) {
        if (m > kFlatMaxRows) return "flat takes at most " + std::to_string(kFlatMaxRows) + " rows";
        if (c.splits > INT_MAX || c.splits % flat_grid_unit(m, c.block, c.vector))
            return "flat needs a grid of a multiple of " + std::to_string(flat_grid_unit(m, c.block, c.vector)) +
                   " blocks (block * vector * blocks a multiple of m)";
        return "";
    }
    if (versatile_row_blocks(c, layout, m, n) > INT_MAX) return "too many blocks along the rows";
    return "";
}

int widest_vector(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem) {
    const std::int64_t along = layout == gemv::Layout::col ? m : n;
    for (int v : {4, 2})
        if (v * elem <= 16 && along % v == 0) return v;
    return 1;
}

VersatileConfig versatile_heuristic(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                                    int sm_count) {
    VersatileConfig c;
    c.block = 256;
    c.unroll = 4;
    const std::int64_t along = layout == gemv::Layout::col ? m : n;
    c.vector = widest_vector(layout, m, n, elem);
    const std::int64_t threads_needed = div_up(along, c.vector);
    std::int64_t along_threads = 1;
    if (layout == gemv::Layout::col) {
        while (along_threads < threads_needed && along_threads < c.block) along_threads *= 2;
    } else {  // about eight vectors per thread along a row before splitting it
        while (along_threads * 8 < threads_needed && along_threads < c.block) along_threads *= 2;
    }
    c.threads_along = static_cast<int>(along_threads);
    const std::int64_t rows_per_block =
        layout == gemv::Layout::col ? std::int64_t(c.threads_along) * c.vector : c.block / c.threads_along;
    const std::int64_t blocks = div_up(m, rows_per_block);
    const std::int64_t wanted = std::int64_t(sm_count) * 8;  // one full wave of 256-thread blocks
    const std::int64_t cols_per_thread_min = 16 * (layout == gemv::Layout::row ? c.vector : 1);
    const std::int64_t threads_per_row_slice =
        layout == gemv::Layout::col ? c.block / c.threads_along : c.threads_along;
    const std::int64_t max_splits = std::max<std::int64_t>(1, n / (cols_per_thread_min * threads_per_row_slice));
    c.splits = std::min<std::int64_t>({std::max<std::int64_t>(1, div_up(wanted, blocks)), max_splits, 65535});
    return c;
}

template <class T>
gemv::Launch versatile_launch(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n) {
    const std::string why = versatile_invalid(c, layout, m, n, sizeof(T));
    if (!why.empty()) throw gemv::UsageError("step 11 cannot run " + c.describe() + ": " + why);
    if (c.cluster) {
        int device = 0, major = 0;
        GEMV_CUDA_CHECK(cudaGetDevice(&device));
        GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (major < 9) throw gemv::UsageError("thread-block clusters need compute capability 9.0 or newer");
    }
    gemv::Launch l;
    l.block = dim3(c.block);
    const bool short_row = short_rows(c, layout, n);
    l.kernel = kernel_for<T>(layout, c.vector, c.unroll, short_row, c.flat);
    if (c.flat && layout == gemv::Layout::row) {
        l.grid = dim3(static_cast<unsigned>(versatile_row_blocks(c, layout, m, n)));
        l.dynamic_shared = static_cast<std::size_t>(flat_row_tile_bytes(c, n, sizeof(T)));
    } else if (c.flat) {
        l.grid = dim3(static_cast<unsigned>(c.splits));
        l.dynamic_shared = std::size_t(m) * sizeof(T);
    } else if (layout == gemv::Layout::col) {
        const int Tr = c.threads_along;
        l.grid = dim3(static_cast<unsigned>(versatile_row_blocks(c, layout, m, n)), static_cast<unsigned>(c.splits));
        const int groups = Tr < 32 ? c.block / 32 : c.block / Tr;
        l.dynamic_shared = Tr == c.block ? 0 : std::size_t(groups) * Tr * c.vector * sizeof(T);
        if (c.cluster) l.dynamic_shared += std::size_t(Tr) * c.vector * sizeof(T);
    } else {
        l.grid = dim3(static_cast<unsigned>(versatile_row_blocks(c, layout, m, n)), static_cast<unsigned>(c.splits));
        l.dynamic_shared = c.threads_along > 32 ? std::size_t(c.block / 32) * sizeof(T) : 0;
        if (c.cluster) l.dynamic_shared += std::size_t(c.block / c.threads_along) * sizeof(T);
    }
    return l;
}

template <class T>
void gemv_versatile(const T* A, const T* x, T* y, std::int64_t m, std::int64_t n, gemv::Layout layout,
                    const VersatileConfig& c, const gemv::Launch& l, cudaStream_t stream) {
    // Columns per split: a multiple of the vector so that every slice starts aligned.
    const std::int64_t per = div_up(div_up(n, c.splits), c.vector) * c.vector;
    const bool flat_col = c.flat && layout == gemv::Layout::col;
    const int combine = flat_col ? kAtomic : c.splits == 1 ? kStore : c.cluster ? kCluster : kAtomic;
    if (combine == kAtomic) GEMV_CUDA_CHECK(cudaMemsetAsync(y, 0, std::size_t(m) * sizeof(T), stream));
    void* args[] = {&A,
                    &x,
                    &y,
                    &m,
                    &n,
                    const_cast<int*>(&c.threads_along),
                    const_cast<std::int64_t*>(&per),
                    const_cast<int*>(&combine)};
    cudaLaunchConfig_t config = {};
    config.gridDim = l.grid;
    config.blockDim = l.block;
    config.dynamicSmemBytes = l.dynamic_shared;
    config.stream = stream;
    cudaLaunchAttribute cluster;
    if (combine == kCluster) {  // the blocks of one row group form a cluster along y
        cluster.id = cudaLaunchAttributeClusterDimension;
        cluster.val.clusterDim.x = 1;
        cluster.val.clusterDim.y = static_cast<unsigned>(c.splits);
        cluster.val.clusterDim.z = 1;
        config.attrs = &cluster;
        config.numAttrs = 1;
    }
    GEMV_CUDA_CHECK(cudaLaunchKernelExC(&config, l.kernel, args));
}

gemv::Traffic versatile_traffic(const VersatileConfig& c, gemv::Layout layout, std::int64_t m, std::int64_t n) {
    const double mn = double(m) * double(n);
    // x: column-major, every row group of V rows loads x[j] once; row-major, x is loaded beside A.
    // Flat: one x load per element.
    const double x_loads = layout == gemv::Layout::col && !c.flat ? double(div_up(m, c.vector)) * double(n) : mn;
    // Atomics: zeroing y, then a read-modify-write per split (flat: per block); a cluster adds in
    // shared memory.
    const double y_accesses = (c.splits > 1 && !c.cluster) || (c.flat && layout == gemv::Layout::col)
                                  ? double(m) * (1 + 2.0 * double(c.splits))
                                  : double(m);
    return {mn, x_loads, y_accesses};
}

template gemv::Launch versatile_launch<float>(const VersatileConfig&, gemv::Layout, std::int64_t, std::int64_t);
template gemv::Launch versatile_launch<double>(const VersatileConfig&, gemv::Layout, std::int64_t, std::int64_t);
template void gemv_versatile<float>(const float*, const float*, float*, std::int64_t, std::int64_t, gemv::Layout,
                                    const VersatileConfig&, const gemv::Launch&, cudaStream_t);
template void gemv_versatile<double>(const double*, const double*, double*, std::int64_t, std::int64_t, gemv::Layout,
                                     const VersatileConfig&, const gemv::Launch&, cudaStream_t);
