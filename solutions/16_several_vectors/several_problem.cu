#include "several_problem.cuh"

#include <algorithm>

#include "problem.hpp"
#include "random.hpp"
#include "verify.hpp"

namespace {

template <class T>
__global__ void fill(T* p, std::int64_t count, std::uint64_t seed, std::uint64_t stream) {
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < count;
         e += std::int64_t(gridDim.x) * blockDim.x)
        p[e] = gemv::narrow<T>(gemv::random_value(seed, stream, std::uint64_t(e)));
}

// Column-major A: a thread per row of a vector (grid.z), over a slice of the columns (grid.y).
template <class T>
__global__ void reference_col(const T* A, const T* X, double* ref, double* abs_sum, std::int64_t m, std::int64_t n,
                              std::int64_t per) {
    const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
    if (i >= m) return;
    const T* x = X + std::int64_t(blockIdx.z) * n;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    double s = 0, a = 0;
    for (std::int64_t j = j0; j < j1; ++j) {
        const double p = double(gemv::widen(A[j * m + i])) * double(gemv::widen(x[j]));
        s += p;
        a += fabs(p);
    }
    atomicAdd(ref + std::int64_t(blockIdx.z) * m + i, s);
    atomicAdd(abs_sum + std::int64_t(blockIdx.z) * m + i, a);
}

// Row-major A: a block per (row, slice, vector), folded in shared memory.
template <class T>
__global__ void reference_row(const T* A, const T* X, double* ref, double* abs_sum, std::int64_t m, std::int64_t n,
                              std::int64_t per) {
    __shared__ double s_sum[256], s_abs[256];
    const std::int64_t i = blockIdx.x;
    const T* x = X + std::int64_t(blockIdx.z) * n;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    double s = 0, a = 0;
    for (std::int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
        const double p = double(gemv::widen(A[i * n + j])) * double(gemv::widen(x[j]));
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
        atomicAdd(ref + std::int64_t(blockIdx.z) * m + i, s_sum[0]);
        atomicAdd(abs_sum + std::int64_t(blockIdx.z) * m + i, s_abs[0]);
    }
}

// verify()'s rule: within scale·Σ|a·x| of the reference, or the same NaN or Inf.
__global__ void count_wrong_kernel(const float* y, const double* ref, const double* abs_sum, std::int64_t count,
                                   double scale, unsigned long long* failures) {
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < count;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const double got = double(y[e]), want = ref[e];
        bool good;
        if (!isfinite(want))
            good = (isnan(want) && isnan(got)) || got == want;
        else
            good = fabs(got - want) <= scale * abs_sum[e];  // false for NaN
        if (!good) atomicAdd(failures, 1ULL);
    }
}

}  // namespace

template <class T>
std::uint64_t SeveralProblem<T>::bytes(std::int64_t m, std::int64_t n, int k) {
    const std::uint64_t model = gemv::model_bytes(m, n, gemv::precision_of<T>(), k);
    return gemv::checked_add(model, gemv::checked_mul(std::uint64_t(m) * std::uint64_t(k), 16, "the reference"),
                             "the problem's bytes");
}

template <class T>
SeveralProblem<T>::SeveralProblem(std::int64_t m, std::int64_t n, int k, gemv::Layout layout, std::uint64_t seed)
    : m_(m),
      n_(n),
      k_(k),
      A_(std::size_t(m) * std::size_t(n)),
      X_(std::size_t(n) * std::size_t(k)),
      Y_(std::size_t(m) * std::size_t(k)),
      ref_(std::size_t(m) * std::size_t(k)),
      abs_sum_(std::size_t(m) * std::size_t(k)),
      failures_(1) {
    fill<<<4096, 256>>>(A_.data(), m * n, seed, 1);
    fill<<<1024, 256>>>(X_.data(), n * k, seed, 2);
    GEMV_CUDA_CHECK_LAUNCH();
    GEMV_CUDA_CHECK(cudaMemset(ref_.data(), 0, std::size_t(m) * std::size_t(k) * sizeof(double)));
    GEMV_CUDA_CHECK(cudaMemset(abs_sum_.data(), 0, std::size_t(m) * std::size_t(k) * sizeof(double)));
    // Enough slices that the whole GPU works, however few the rows.
    if (layout == gemv::Layout::col) {
        const std::int64_t bx = (m + 255) / 256;
        const std::int64_t slices = std::min<std::int64_t>({n, 65535, std::max<std::int64_t>(1, 4096 / bx)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_col<<<dim3(unsigned(bx), unsigned((n + per - 1) / per), unsigned(k)), 256>>>(
            A_.data(), X_.data(), ref_.data(), abs_sum_.data(), m, n, per);
    } else {
        const std::int64_t slices =
            std::min<std::int64_t>({(n + 255) / 256, 65535, std::max<std::int64_t>(1, 4096 / m)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_row<<<dim3(unsigned(m), unsigned((n + per - 1) / per), unsigned(k)), 256>>>(
            A_.data(), X_.data(), ref_.data(), abs_sum_.data(), m, n, per);
    }
    GEMV_CUDA_CHECK_LAUNCH();
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
unsigned long long SeveralProblem<T>::count_wrong() {
    GEMV_CUDA_CHECK(cudaMemset(failures_.data(), 0, sizeof(unsigned long long)));
    const double scale = gemv::error_bound(1.0, n_, gemv::Precision::f32);  // float sums, in both formats
    count_wrong_kernel<<<1024, 256>>>(Y_.data(), ref_.data(), abs_sum_.data(), m_ * k_, scale, failures_.data());
    GEMV_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    GEMV_CUDA_CHECK(cudaMemcpy(&count, failures_.data(), sizeof count, cudaMemcpyDeviceToHost));
    return count;
}

template class SeveralProblem<float>;
template class SeveralProblem<__nv_bfloat16>;
