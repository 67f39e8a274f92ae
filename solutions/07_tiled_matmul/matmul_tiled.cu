#include <algorithm>
#include <string>

#include "limits.hpp"
#include "matmul_tiled.cuh"

namespace {

// BEGIN EXCERPT mmult1
// mmult1 (Greenstreet): thread (j, i) computes C(i, j) from row i of A and column j of B, both
// straight from global memory: two loads per multiply-add.
template <class T>
__global__ void matmul_brute_force_kernel(const T* A, const T* B, T* C, int m, int n, int k) {
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION skip i >= m or j >= n; sum A[i * k + l] * B[l * n + j] over l < k; store C[i * n + j]
    if (i >= m || j >= n) return;  // the edge blocks run past C
    T sum = 0;
    for (int l = 0; l < k; ++l) sum += A[i * k + l] * B[l * n + j];
    C[i * n + j] = sum;
    // END SOLUTION
}
// END EXCERPT mmult1

// BEGIN EXCERPT mmult2
// mmult2 (Greenstreet): block (bx, by) computes the TILE×TILE tile of C at rows by·TILE.., columns
// bx·TILE..; it walks the k dimension one tile at a time, every thread loading one element of
// A's tile and one of B's, and then every thread uses TILE elements of each from shared memory.
template <class T, int TILE>
__global__ void matmul_tiled_kernel(const T* A, const T* B, T* C, int m, int n, int k) {
    __shared__ T a_tile[TILE][TILE];  // a_tile[r][c] = A(row0 + r, l0 + c)
    __shared__ T b_tile[TILE][TILE];  // b_tile[r][c] = B(l0 + r, col0 + c)
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.y * TILE + ty;  // the element of C this thread owns
    const int j = blockIdx.x * TILE + tx;
    // BEGIN SOLUTION per TILE of k: load both tiles (0 outside), sync, add TILE products, sync; then store C(i, j)
    T sum = 0;
    for (int l0 = 0; l0 < k; l0 += TILE) {
        // Neighbouring tx load neighbouring columns: both loads coalesce. Outside A or B the
        // tile holds zeros, which add nothing: no size has to be a multiple of TILE.
        a_tile[ty][tx] = (i < m && l0 + tx < k) ? A[i * k + l0 + tx] : T(0);
        b_tile[ty][tx] = (l0 + ty < k && j < n) ? B[(l0 + ty) * n + j] : T(0);
        __syncthreads();  // the whole tile is loaded before anyone reads it
        for (int l = 0; l < TILE; ++l) sum += a_tile[ty][l] * b_tile[l][tx];
        __syncthreads();  // everyone is done with the tile before the next one overwrites it
    }
    if (i < m && j < n) C[i * n + j] = sum;  // no early return above: every thread meets every barrier
    // END SOLUTION
}
// END EXCERPT mmult2

constexpr int kBruteForceBlock = 16;  // Greenstreet's 16×16 threads

// The kernels index with ints: i * k + l, l * n + j, i * n + j and l0 one tile past k must fit.
void require_int32(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& kernel) {
    // Each side clamped to 2^31 (already too many): the products cannot wrap around 64 bits.
    const auto u = [](std::int64_t v) { return std::min<std::uint64_t>(static_cast<std::uint64_t>(v), 1ull << 31); };
    const std::uint64_t largest = std::max({u(m) * u(k), u(k) * u(n), u(m) * u(n)});
    gemv::require_int32_indexing(largest + 32, kernel);
}

gemv::Launch grid_of_tiles(std::int64_t m, std::int64_t n, int edge, const std::string& kernel) {
    const long long rows = gemv::div_up(m, edge), cols = gemv::div_up(n, edge);
    if (rows > 65535)  // gridDim.y's limit
        throw gemv::UsageError(kernel + " puts the " + std::to_string(m) + " rows of C on gridDim.y, " +
                               std::to_string(rows) + " blocks of " + std::to_string(edge) +
                               " rows; the limit is 65535");
    gemv::Launch l;
    l.grid = dim3(static_cast<unsigned>(cols), static_cast<unsigned>(rows));
    l.block = dim3(edge, edge);
    return l;
}

}  // namespace

template <class T>
gemv::Launch matmul_brute_force_launch(std::int64_t m, std::int64_t n, std::int64_t k) {
    require_int32(m, n, k, "step 07's mmult1");
    gemv::Launch l = grid_of_tiles(m, n, kBruteForceBlock, "step 07's mmult1");
    l.kernel = reinterpret_cast<const void*>(&matmul_brute_force_kernel<T>);
    return l;
}

template <class T>
void matmul_brute_force(const T* A, const T* B, T* C, std::int64_t m, std::int64_t n, std::int64_t k,
                        const gemv::Launch& l, cudaStream_t stream) {
    matmul_brute_force_kernel<T>
        <<<l.grid, l.block, 0, stream>>>(A, B, C, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k));
    GEMV_CUDA_CHECK_LAUNCH();
}

template <class T>
gemv::Launch matmul_tiled_launch(std::int64_t m, std::int64_t n, std::int64_t k, int tile) {
    if (tile != 8 && tile != 16 && tile != 32)
        throw gemv::UsageError("mmult2's TILE is 8, 16 or 32 (compiled in), not " + std::to_string(tile));
    const std::string kernel = "step 07's mmult2 with TILE " + std::to_string(tile);
    require_int32(m, n, k, kernel);
    gemv::Launch l = grid_of_tiles(m, n, tile, kernel);
    l.kernel = tile == 8    ? reinterpret_cast<const void*>(&matmul_tiled_kernel<T, 8>)
               : tile == 16 ? reinterpret_cast<const void*>(&matmul_tiled_kernel<T, 16>)
                            : reinterpret_cast<const void*>(&matmul_tiled_kernel<T, 32>);
    return l;
}

template <class T>
void matmul_tiled(const T* A, const T* B, T* C, std::int64_t m, std::int64_t n, std::int64_t k, int tile,
                  const gemv::Launch& l, cudaStream_t stream) {
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    // TILE sizes the shared arrays and unrolls the inner loop, so it is a template argument.
    if (tile == 8)
        matmul_tiled_kernel<T, 8><<<l.grid, l.block, 0, stream>>>(A, B, C, mi, ni, ki);
    else if (tile == 16)
        matmul_tiled_kernel<T, 16><<<l.grid, l.block, 0, stream>>>(A, B, C, mi, ni, ki);
    else
        matmul_tiled_kernel<T, 32><<<l.grid, l.block, 0, stream>>>(A, B, C, mi, ni, ki);
    GEMV_CUDA_CHECK_LAUNCH();
}

#define GEMV_STEP07_INSTANTIATE(T)                                                                        \
    template gemv::Launch matmul_brute_force_launch<T>(std::int64_t, std::int64_t, std::int64_t);         \
    template void matmul_brute_force<T>(const T*, const T*, T*, std::int64_t, std::int64_t, std::int64_t, \
                                        const gemv::Launch&, cudaStream_t);                               \
    template gemv::Launch matmul_tiled_launch<T>(std::int64_t, std::int64_t, std::int64_t, int);          \
    template void matmul_tiled<T>(const T*, const T*, T*, std::int64_t, std::int64_t, std::int64_t, int,  \
                                  const gemv::Launch&, cudaStream_t);

GEMV_STEP07_INSTANTIATE(float)
GEMV_STEP07_INSTANTIATE(double)
