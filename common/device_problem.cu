#include "device_problem.cuh"

#include <algorithm>
#include <stdexcept>

#include "random.hpp"
#include "verify.hpp"

namespace gemv {

namespace {

template <class T>
__global__ void fill_stream(T* p, std::int64_t count, std::uint64_t seed, std::uint64_t stream) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        p[k] = narrow<T>(random_value(seed, stream, std::uint64_t(k)));
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
        const double p = double(widen(A[j * m + i])) * double(widen(x[j]));
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
        const double p = double(widen(A[i * n + j])) * double(widen(x[j]));
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

// verify()'s rule on the device: within scale·Σ|a·x| of the reference, or the same NaN or Inf.
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

}  // namespace

template <class T>
DeviceProblem<T>::DeviceProblem(std::int64_t max_elems, std::int64_t max_dim, std::uint64_t seed)
    : A_(std::size_t(max_elems)),
      x_(std::size_t(max_dim)),
      y_(std::size_t(max_dim)),
      ref_(std::size_t(max_dim)),
      abs_sum_(std::size_t(max_dim)),
      failures_(1) {
    fill_stream<<<4096, 256>>>(A_.data(), max_elems, seed, 1);
    fill_stream<<<1024, 256>>>(x_.data(), max_dim, seed, 2);
    GEMV_CUDA_CHECK_LAUNCH();
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
void DeviceProblem<T>::use(std::int64_t m, std::int64_t n, Layout layout) {
    m_ = m;
    n_ = n;
    GEMV_CUDA_CHECK(cudaMemset(ref_.data(), 0, std::size_t(m) * sizeof(double)));
    GEMV_CUDA_CHECK(cudaMemset(abs_sum_.data(), 0, std::size_t(m) * sizeof(double)));
    // Enough slices that the whole GPU works, however few the rows.
    if (layout == Layout::col) {
        const std::int64_t bx = (m + 255) / 256;
        const std::int64_t slices = std::min<std::int64_t>({n, 65535, std::max<std::int64_t>(1, 4096 / bx)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_col<<<dim3(unsigned(bx), unsigned((n + per - 1) / per)), 256>>>(A_.data(), x_.data(), ref_.data(),
                                                                                  abs_sum_.data(), m, n, per);
    } else {
        const std::int64_t slices =
            std::min<std::int64_t>({(n + 255) / 256, 65535, std::max<std::int64_t>(1, 4096 / m)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_row<<<dim3(unsigned(m), unsigned((n + per - 1) / per)), 256>>>(A_.data(), x_.data(), ref_.data(),
                                                                                 abs_sum_.data(), m, n, per);
    }
    GEMV_CUDA_CHECK_LAUNCH();
}

template <class T>
unsigned long long DeviceProblem<T>::count_wrong_rows() {
    GEMV_CUDA_CHECK(cudaMemset(failures_.data(), 0, sizeof(unsigned long long)));
    const double scale = error_bound(1.0, n_, precision_of<accumulator_t<T>>());
    count_wrong<<<unsigned((m_ + 255) / 256), 256>>>(y_.data(), ref_.data(), abs_sum_.data(), m_, scale,
                                                     failures_.data());
    GEMV_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    GEMV_CUDA_CHECK(cudaMemcpy(&count, failures_.data(), sizeof count, cudaMemcpyDeviceToHost));
    return count;
}

template <class T>
double DeviceProblem<T>::verified_median_ms(const DeviceFacts& f, const std::function<void(cudaStream_t)>& run,
                                            int warmup, int reps, const std::string& what, bool verify) {
    if (verify) {
        y_.poison();
        run(0);
        if (const auto wrong = count_wrong_rows())
            throw std::runtime_error(what + " is wrong on " + std::to_string(m_) + " x " + std::to_string(n_) + ": " +
                                     std::to_string(wrong) + " rows outside the bound");
    }
    return time_gpu(f, run, {}, warmup, reps, true).median_ms;
}

template class DeviceProblem<float>;
template class DeviceProblem<double>;
template class DeviceProblem<__nv_bfloat16>;
template class DeviceProblem<__half>;
template class DeviceProblem<__nv_fp8_e4m3>;

}  // namespace gemv
