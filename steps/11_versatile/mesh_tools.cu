#include <cublas_v2.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>

#include "mesh_tools.cuh"

namespace {

__device__ double uniform_at(std::uint64_t seed, std::uint64_t k) {
    std::uint64_t z = seed * 0x9e3779b97f4a7c15ULL + k;  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-52 - 1.0;
}

template <class T>
__global__ void fill_uniform(T* p, std::int64_t count, std::uint64_t seed) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        p[k] = T(uniform_at(seed, std::uint64_t(k)));
}

// Column-major reference: a thread per row over a slice of the columns, added in double.
template <class T>
__global__ void reference_col(const T* A, const T* x, double* ref, double* abs_sum, std::int64_t m, std::int64_t n,
                              std::int64_t per) {
    const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
    if (i >= m) return;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    double s = 0, a = 0;
    for (std::int64_t j = j0; j < j1; ++j) {
        const double p = double(A[j * m + i]) * double(x[j]);
        s += p;
        a += fabs(p);
    }
    atomicAdd(ref + i, s);
    atomicAdd(abs_sum + i, a);
}

// Row-major reference: a block per (row, slice), folded in shared memory, added in double.
template <class T>
__global__ void reference_row(const T* A, const T* x, double* ref, double* abs_sum, std::int64_t m, std::int64_t n,
                              std::int64_t per) {
    __shared__ double s_sum[256], s_abs[256];
    const std::int64_t i = blockIdx.x;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    double s = 0, a = 0;
    for (std::int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
        const double p = double(A[i * n + j]) * double(x[j]);
        s += p;
        a += fabs(p);
    }
    s_sum[threadIdx.x] = s;
    s_abs[threadIdx.x] = a;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + h];
            s_abs[threadIdx.x] += s_abs[threadIdx.x + h];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(ref + i, s_sum[0]);
        atomicAdd(abs_sum + i, s_abs[0]);
    }
}

template <class T>
__global__ void count_wrong(const T* y, const double* ref, const double* abs_sum, std::int64_t m, double scale,
                            unsigned long long* failures) {
    const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
    if (i >= m) return;
    const double got = double(y[i]), want = ref[i];
    bool good;
    if (!isfinite(want))
        good = (isnan(want) && isnan(got)) || got == want;
    else
        good = fabs(got - want) <= scale * abs_sum[i];  // false for NaN
    if (!good) atomicAdd(failures, 1ULL);
}

cublasHandle_t cublas() {
    static cublasHandle_t handle = [] {
        cublasHandle_t h;
        GEMV_CUBLAS_CHECK(cublasCreate(&h));
        return h;
    }();
    return handle;
}

void cublas_gemv(gemv::Layout layout, std::int64_t m, std::int64_t n, const float* A, const float* x, float* y,
                 cudaStream_t s) {
    const float one = 1, zero = 0;
    GEMV_CUBLAS_CHECK(cublasSetStream(cublas(), s));
    if (layout == gemv::Layout::col)
        GEMV_CUBLAS_CHECK(cublasSgemv(cublas(), CUBLAS_OP_N, int(m), int(n), &one, A, int(m), x, 1, &zero, y, 1));
    else
        GEMV_CUBLAS_CHECK(cublasSgemv(cublas(), CUBLAS_OP_T, int(n), int(m), &one, A, int(n), x, 1, &zero, y, 1));
}
void cublas_gemv(gemv::Layout layout, std::int64_t m, std::int64_t n, const double* A, const double* x, double* y,
                 cudaStream_t s) {
    const double one = 1, zero = 0;
    GEMV_CUBLAS_CHECK(cublasSetStream(cublas(), s));
    if (layout == gemv::Layout::col)
        GEMV_CUBLAS_CHECK(cublasDgemv(cublas(), CUBLAS_OP_N, int(m), int(n), &one, A, int(m), x, 1, &zero, y, 1));
    else
        GEMV_CUBLAS_CHECK(cublasDgemv(cublas(), CUBLAS_OP_T, int(n), int(m), &one, A, int(n), x, 1, &zero, y, 1));
}

std::int64_t pow2_at_least(std::int64_t v) {
    std::int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

}  // namespace

template <class T>
DeviceProblem<T>::DeviceProblem(std::int64_t max_elems, std::int64_t max_dim, std::uint64_t seed)
    : A(std::size_t(max_elems)),
      x(std::size_t(max_dim)),
      y(std::size_t(max_dim)),
      ref(std::size_t(max_dim)),
      abs_sum(std::size_t(max_dim)),
      failures(1) {
    fill_uniform<<<4096, 256>>>(A.data(), max_elems, seed);
    fill_uniform<<<1024, 256>>>(x.data(), max_dim, seed + 1);
    GEMV_CUDA_CHECK_LAUNCH();
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
void DeviceProblem<T>::reference(std::int64_t m, std::int64_t n, gemv::Layout layout) {
    GEMV_CUDA_CHECK(cudaMemset(ref.data(), 0, std::size_t(m) * sizeof(double)));
    GEMV_CUDA_CHECK(cudaMemset(abs_sum.data(), 0, std::size_t(m) * sizeof(double)));
    // Enough slices that the whole GPU works, however few the rows.
    if (layout == gemv::Layout::col) {
        const std::int64_t bx = (m + 255) / 256;
        const std::int64_t slices = std::min<std::int64_t>({n, 65535, std::max<std::int64_t>(1, 4096 / bx)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_col<<<dim3(unsigned(bx), unsigned((n + per - 1) / per)), 256>>>(A.data(), x.data(), ref.data(),
                                                                                  abs_sum.data(), m, n, per);
    } else {
        const std::int64_t slices =
            std::min<std::int64_t>({(n + 255) / 256, 65535, std::max<std::int64_t>(1, 4096 / m)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_row<<<dim3(unsigned(m), unsigned((n + per - 1) / per)), 256>>>(A.data(), x.data(), ref.data(),
                                                                                 abs_sum.data(), m, n, per);
    }
    GEMV_CUDA_CHECK_LAUNCH();
}

template <class T>
unsigned long long DeviceProblem<T>::count_wrong_rows(std::int64_t m, std::int64_t n) {
    GEMV_CUDA_CHECK(cudaMemset(failures.data(), 0, sizeof(unsigned long long)));
    const double eps = sizeof(T) == 4 ? double(FLT_EPSILON) : DBL_EPSILON;
    count_wrong<<<unsigned((m + 255) / 256), 256>>>(y.data(), ref.data(), abs_sum.data(), m, double(n) * eps,
                                                    failures.data());
    GEMV_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    GEMV_CUDA_CHECK(cudaMemcpy(&count, failures.data(), sizeof count, cudaMemcpyDeviceToHost));
    return count;
}

std::vector<VersatileConfig> candidate_configs(gemv::Layout layout, std::int64_t m, std::int64_t n, std::size_t elem,
                                               int sm_count) {
    std::vector<VersatileConfig> out;
    const std::int64_t along = layout == gemv::Layout::col ? m : n;
    // The widest vector the dimension along the loads allows.
    const int vector = widest_vector(layout, m, n, elem);
    const std::int64_t need = (along + vector - 1) / vector;  // threads that cover a column / a row once
    for (int block : {128, 256, 512}) {
        std::vector<std::int64_t> alongs;
        if (layout == gemv::Layout::col) {
            const std::int64_t p = std::min<std::int64_t>(block, pow2_at_least(need));
            alongs = {p, p / 2, p / 8};
        } else {  // one vector per thread per row pass, up to eight: a warp's loads stay contiguous
            const std::int64_t p = std::min<std::int64_t>(block, pow2_at_least((need + 7) / 8));
            alongs = {p / 4, p, 2 * p, 4 * p, pow2_at_least(need)};
            for (auto& a : alongs) a = std::min<std::int64_t>(a, block);
        }
        std::sort(alongs.begin(), alongs.end());
        alongs.erase(std::unique(alongs.begin(), alongs.end()), alongs.end());
        for (std::int64_t ta : alongs) {
            if (ta < 1 || block % ta) continue;
            const std::int64_t rows_per_block = layout == gemv::Layout::col ? ta * vector : block / ta;
            const std::int64_t blocks = (m + rows_per_block - 1) / rows_per_block;
            const std::int64_t wave = blocks_per_wave(sm_count, block);
            // Each thread keeps at least four loads' worth of columns of its slice.
            const std::int64_t sharing = layout == gemv::Layout::col ? block / ta : ta * vector;
            const std::int64_t max_splits = std::max<std::int64_t>(1, n / (4 * sharing));
            std::vector<std::int64_t> splits = {1};
            for (std::int64_t waves : {1, 4})
                splits.push_back(std::min<std::int64_t>(
                    {std::max<std::int64_t>(1, (waves * wave + blocks - 1) / blocks), max_splits, 65535}));
            std::sort(splits.begin(), splits.end());
            splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
            for (int unroll : {2, 4})
                for (std::int64_t s : splits) {
                    // Too few blocks to fill the GPU when more splits were possible: never faster,
                    // and on a wide matrix a single block would take seconds.
                    if (blocks * s < std::min(wave, blocks * max_splits) / 2) continue;
                    VersatileConfig c{block, vector, unroll, int(ta), s};
                    if (versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
                }
            // Clusters of 2, 4 or 8 blocks add their sums in distributed shared memory: one launch
            // and no zeroing of y, which matters where a launch costs as much as the bytes.
            for (int unroll : {2, 4})
                for (std::int64_t s : {2, 4, 8}) {
                    if (blocks * s < std::min(wave, blocks * max_splits) / 2) continue;
                    VersatileConfig c{block, vector, unroll, int(ta), s, true};
                    if (s <= max_splits && versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
                }
        }
    }
    // Column-major with few rows, flat: 16-byte loads whatever m is, about one or four waves of blocks.
    if (layout == gemv::Layout::col && m <= kFlatMaxRows) {
        const int vector = int(16 / elem);
        for (int block : {256, 512}) {
            const std::int64_t unit = flat_grid_unit(m, block, vector);
            const std::int64_t wave = blocks_per_wave(sm_count, block);
            std::vector<std::int64_t> grids;
            for (std::int64_t waves : {1, 4})
                grids.push_back(std::max<std::int64_t>(1, (waves * wave + unit / 2) / unit) * unit);
            grids.erase(std::unique(grids.begin(), grids.end()), grids.end());
            for (int unroll : {2, 4})
                for (std::int64_t g : grids) {
                    // Every thread gets at least one whole step of U vectors.
                    if (g > unit && g * block * vector * unroll > m * n) continue;
                    VersatileConfig c{block, vector, unroll, block, g, false, true};
                    if (versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
                }
        }
    }
    // Row-major rows that 16-byte loads cannot follow (n not a multiple of the vector), flat: a
    // block's rows copied to shared memory with 16-byte loads, 1 or 4 threads a row (16 measured
    // half as fast at n = 43).
    if (layout == gemv::Layout::row && vector * elem < 16)
        for (int block : {128, 256})
            for (int ta : {1, 4})
                for (int unroll : {2, 4}) {
                    VersatileConfig c{block, int(16 / elem), unroll, ta, 1, false, true};
                    if (versatile_invalid(c, layout, m, n, elem).empty()) out.push_back(c);
                }
    return out;
}

template <class T>
static double timed(DeviceProblem<T>& p, const gemv::DeviceFacts& f, std::int64_t m, std::int64_t n,
                    const std::function<void(cudaStream_t)>& run, int warmup, int reps, const std::string& what,
                    bool verify = true) {
    p.y.poison();
    run(0);
    if (!verify) return gemv::time_gpu(f, run, {}, warmup, reps, true).median_ms;
    if (const auto wrong = p.count_wrong_rows(m, n))
        throw std::runtime_error(what + " is wrong on " + std::to_string(m) + " x " + std::to_string(n) + ": " +
                                 std::to_string(wrong) + " rows outside the bound");
    return gemv::time_gpu(f, run, {}, warmup, reps, true).median_ms;
}

template <class T>
double time_config(DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m, std::int64_t n,
                   const VersatileConfig& c, int reps, bool verify) {
    const gemv::Launch l = versatile_launch<T>(c, layout, m, n);
    return timed(
        p, f, m, n, [&](cudaStream_t s) { gemv_versatile(p.A.data(), p.x.data(), p.y.data(), m, n, layout, c, l, s); },
        1, reps, "step 11 (" + c.describe() + ")", verify);
}

template <class T>
double time_cublas(DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m, std::int64_t n,
                   int reps) {
    return timed(
        p, f, m, n, [&](cudaStream_t s) { cublas_gemv(layout, m, n, p.A.data(), p.x.data(), p.y.data(), s); }, 2, reps,
        "cuBLAS");
}

template <class T>
Candidate search_best(DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                      std::int64_t n, int reps) {
    Candidate best;
    best.ms = INFINITY;
    for (const VersatileConfig& c : candidate_configs(layout, m, n, sizeof(T), f.sm_count)) {
        const double first = time_config(p, f, layout, m, n, c, 1, true);  // verified before it is timed
        if (first > 1.5 * best.ms) continue;  // clearly slower: not worth the full measurement
        const double ms = time_config(p, f, layout, m, n, c, reps, false);
        if (ms < best.ms) best = {c, ms};
    }
    return best;
}

template struct DeviceProblem<float>;
template struct DeviceProblem<double>;
template double time_config<float>(DeviceProblem<float>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,
                                   std::int64_t, const VersatileConfig&, int, bool);
template double time_config<double>(DeviceProblem<double>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,
                                    std::int64_t, const VersatileConfig&, int, bool);
template double time_cublas<float>(DeviceProblem<float>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,
                                   std::int64_t, int);
template double time_cublas<double>(DeviceProblem<double>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,
                                    std::int64_t, int);
template Candidate search_best<float>(DeviceProblem<float>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,
                                      std::int64_t, int);
template Candidate search_best<double>(DeviceProblem<double>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,
                                       std::int64_t, int);
