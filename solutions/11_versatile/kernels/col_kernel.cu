// Column-major A, in place: Sørensen's versatile kernel. A block owns L·V rows, where
// L = block / threads_per_row threads go down each column, and one slice of the columns; thread
// (r, c) owns V consecutive rows (WORKSIZE_m) and every Tc-th column of the slice, Tc =
// threads_per_row (WORKSIZE_n columns in all). threads_per_row 1 and one block a row is 05 (V 1)
// and 09 (V > 1); several blocks a row is 08; threads_per_row > 1 is 10. L, the way of loading:
// aligned (V divides m); realigned, V elements at any row (load_realigned); staggered, aligned
// 16-byte loads whatever m is, the thread's rows moved to where its columns' alignment puts them.
// A and x are stored in T and added up in Acc: gemv::widen() turns a stored element into Acc
// before it is multiplied (the identity for float and double; float for step 15's formats).
#include "kernels/versatile_device.cuh"
#include "kernels/versatile_kernels.cuh"

namespace gemv {

namespace {

// Realigned loads where V does not divide m: the last row group of the matrix has fewer than V
// rows, and past them A may end inside a 16-byte load. Its thread reads one element a load.
template <class T, int V>
__device__ void add_last_rows(const GemvArgs<T>& a, std::int64_t row0, std::int64_t j, std::int64_t c_end,
                              typename GemvArgs<T>::Acc (&acc)[V]) {
    for (; j < c_end; j += a.threads_per_row) {
        const auto xj = gemv::widen(load_one_cached(a.x + j));
#pragma unroll
        for (int k = 0; k < V; ++k)
            if (row0 + k < a.m) acc[k] += gemv::widen(a.A[j * a.m + row0 + k]) * xj;
    }
}

// BEGIN EXCERPT col
template <class T, int V, int U, Loads L>
__global__ void __launch_bounds__(1024) gemv_col(const GemvArgs<T> a) {
    using Acc = typename GemvArgs<T>::Acc;
    constexpr bool R = L == Loads::realigned, S = L == Loads::staggered;
    // Staggered: the block's L lanes load one row group more than the block owns (outs rows).
    const int Tc = a.threads_per_row, Tr = blockDim.x / Tc, outs = (S ? Tr - 1 : Tr) * V;
    Acc* cluster_sums = gemv::dynamic_shared<Acc>();
    Acc* folded = cluster_sums + (a.combine == Combine::cluster ? outs : 0);
    // BEGIN EXCERPT col_threads
    const int tid = threadIdx.x, tr = tid % Tr, tc = tid / Tr;
    const std::int64_t m = a.m, group_row = (std::int64_t(blockIdx.x) * (outs / V) + tr) * V;
    const std::int64_t c_begin = std::int64_t(blockIdx.y) * a.cols_per_block;
    const std::int64_t c_end = min(a.n, c_begin + a.cols_per_block);
    // END EXCERPT col_threads
    // BEGIN EXCERPT col_staggered
    // Staggered: the aligned 16 bytes around row group_row of this thread's columns start `shift`
    // rows before it, the same in each of its columns (Tc·m is a multiple of V), so its V rows
    // start there. The block's first lane then loads rows of the block before it, its last lane
    // the rows it lacks; the sums of rows it does not own are dropped when it folds.
    const int shift = S ? int((c_begin + tc) * m % V) : 0;
    const std::int64_t row0 = group_row - shift;
    // END EXCERPT col_staggered
    Acc acc[V] = {};
    if (R && row0 < m && row0 + V > m) {
        add_last_rows<T, V>(a, row0, c_begin + tc, c_end, acc);
    } else if (row0 < (S ? min(std::int64_t(blockIdx.x + 1) * outs, m) : m)) {
        // U columns' loads are issued before any is used: bytes in flight hide the latency.
        // BEGIN EXCERPT col_walk
        // BEGIN SOLUTION walk this thread's columns j = c_begin + tc + i*Tc < c_end: acc[k] += A(row0 + k, j) * a.x[j].
        std::int64_t j = c_begin + tc;
        for (; j + std::int64_t(U - 1) * Tc < c_end; j += std::int64_t(U) * Tc) {
            T v[U][V];
            Acc xj[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                load_a<T, V, R>(a.A + (j + std::int64_t(u) * Tc) * m + row0, v[u]);
                xj[u] = gemv::widen(load_one_cached(a.x + j + std::int64_t(u) * Tc));
            }
#pragma unroll
            for (int u = 0; u < U; ++u) gemv::add_scaled(acc, v[u], xj[u]);  // acc[k] += A(row0 + k, j) · x[j]
        }
        for (; j < c_end; j += Tc) {
            T v[V];
            load_a<T, V, R>(a.A + j * m + row0, v);
            const Acc xj = gemv::widen(load_one_cached(a.x + j));
            gemv::add_scaled(acc, v, xj);
        }
        // END SOLUTION
        // END EXCERPT col_walk
    }
    // END EXCERPT col
    const std::int64_t base = std::int64_t(blockIdx.x) * outs;
    const int count = static_cast<int>(min(std::int64_t(outs), m - base));
    if (!S && Tc == 1 && a.combine == Combine::store && row0 + V <= m) {
        store_streaming<Acc, V>(a.y + row0, acc);  // its own V rows: one vector store
    } else if (!S && Tc == 1) {                    // one thread per row group: nothing to fold inside the block
#pragma unroll
        for (int k = 0; k < V; ++k)
            if (row0 + k < m) put_row_sum(a, cluster_sums, row0 + k, tr * V + k, acc[k]);
    } else {
        // Threads with the same tr hold partial sums of the same rows: fold them, first inside each
        // warp with shuffles (when a warp spans several columns), then across warps in shared memory.
        // Staggered: each thread's sums go to the block's rows they belong to, those it owns alone.
        int groups = Tc, group = tc;
        if constexpr (S) {
#pragma unroll
            for (int k = 0; k < V; ++k) {
                const std::int64_t o = row0 + k - base;
                if (o >= 0 && o < outs) folded[group * outs + o] = acc[k];
            }
        } else if (Tr < 32) {
            for (int offset = 16; offset >= Tr; offset >>= 1)
#pragma unroll
                for (int k = 0; k < V; ++k) acc[k] += __shfl_xor_sync(0xffffffffu, acc[k], offset);
            const int lane = tid & 31;
            groups = blockDim.x / 32;
            group = tid / 32;
            if (lane < Tr)
#pragma unroll
                for (int k = 0; k < V; ++k) folded[group * outs + lane * V + k] = acc[k];
        } else {
#pragma unroll
            for (int k = 0; k < V; ++k) folded[group * outs + tr * V + k] = acc[k];
        }
        __syncthreads();
        for (int o = tid; o < count; o += blockDim.x) {
            Acc sum = 0;
            for (int g = 0; g < groups; ++g) sum += folded[g * outs + o];
            put_row_sum(a, cluster_sums, base + o, o, sum);
        }
    }
    finish_rows(a, cluster_sums, base, count);
}

}  // namespace

template <class T>
const void* col_kernel(int vector, int unroll, Loads loads) {
    return instance_for<T>(vector, unroll, loads, [&](auto v, auto u, auto r) -> const void* {
        return reinterpret_cast<const void*>(&gemv_col<T, decltype(v)::value, decltype(u)::value, decltype(r)::value>);
    });
}

#define INSTANCE(T) template const void* col_kernel<T>(int, int, Loads);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE

}  // namespace gemv
