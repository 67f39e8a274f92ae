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

__global__ void fill_scales(float* s, std::int64_t count, std::uint64_t seed) {
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        s[k] = random_scale(seed, std::uint64_t(k));
}

// The scale of a_ij (1 without scales): the reference multiplies each product by it.
__device__ double scale_at(const DeviceScales& s, std::int64_t i, std::int64_t j, std::int64_t n) {
    return s.mode == Scales::none ? 1.0 : double(s.values[scale_index(s.mode, i, j, n)]);
}

// Column-major reference: a thread per row of a vector (grid.z), over a slice of the columns
// (grid.y), added in double.
template <class T>
__global__ void reference_col(const T* A, const T* X, DeviceScales scales, double* ref, double* abs_sum, std::int64_t m,
                              std::int64_t n, std::int64_t per) {
    const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
    if (i >= m) return;
    const T* x = X + std::int64_t(blockIdx.z) * n;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    double s = 0, a = 0;
    for (std::int64_t j = j0; j < j1; ++j) {
        const double p = double(widen(A[j * m + i])) * double(widen(x[j])) * scale_at(scales, i, j, n);
        s += p;
        a += fabs(p);
    }
    atomicAdd(ref + std::int64_t(blockIdx.z) * m + i, s);
    atomicAdd(abs_sum + std::int64_t(blockIdx.z) * m + i, a);
}

// Row-major reference: a block per (row, slice, vector), folded in shared memory, added in double.
template <class T>
__global__ void reference_row(const T* A, const T* X, DeviceScales scales, double* ref, double* abs_sum, std::int64_t m,
                              std::int64_t n, std::int64_t per) {
    __shared__ double s_sum[256], s_abs[256];
    const std::int64_t i = blockIdx.x;
    const T* x = X + std::int64_t(blockIdx.z) * n;
    const std::int64_t j0 = blockIdx.y * per, j1 = min(n, j0 + per);
    double s = 0, a = 0;
    for (std::int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
        const double p = double(widen(A[i * n + j])) * double(widen(x[j])) * scale_at(scales, i, j, n);
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

// verify()'s rule on the device, for each of the count elements of Y: within scale·Σ|a·x| of the
// reference, or the same NaN or Inf.
template <class T>
__global__ void count_wrong(const T* y, const double* ref, const double* abs_sum, std::int64_t count, double scale,
                            unsigned long long* failures) {
    const std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
    if (e >= count) return;
    const double got = double(y[e]), want = ref[e];
    bool good;
    if (!isfinite(want))
        good = (isnan(want) && isnan(got)) || got == want;
    else
        good = fabs(got - want) <= scale * abs_sum[e];  // false for NaN
    if (!good) atomicAdd(failures, 1ULL);
}

// A vector a block of the reference's grid.z: at most 65535.
int checked_vectors(int vectors) {
    if (vectors < 1 || vectors > 65535) throw std::invalid_argument("DeviceProblem: vectors must be from 1 to 65535");
    return vectors;
}

}  // namespace

template <class T>
DeviceProblem<T>::DeviceProblem(std::int64_t max_elems, std::int64_t max_dim, std::uint64_t seed, int vectors)
    : DeviceProblem(Room{max_elems, max_dim, max_dim}, seed, vectors) {}

template <class T>
DeviceProblem<T>::DeviceProblem(const Shape& shape, std::uint64_t seed, int vectors)
    : DeviceProblem(Room{shape.m * shape.n, shape.m, shape.n}, seed, vectors) {
    use(shape.m, shape.n, shape.layout);
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
DeviceProblem<T>::DeviceProblem(const Room& room, std::uint64_t seed, int vectors)
    : vectors_(checked_vectors(vectors)),
      seed_(seed),
      A_(std::size_t(room.elems)),
      x_(std::size_t(room.cols) * std::size_t(vectors_)),
      y_(std::size_t(room.rows) * std::size_t(vectors_)),
      ref_(std::size_t(room.rows) * std::size_t(vectors_)),
      abs_sum_(std::size_t(room.rows) * std::size_t(vectors_)),
      failures_(1) {
    fill_stream<<<4096, 256>>>(A_.data(), room.elems, seed, 1);
    fill_stream<<<1024, 256>>>(x_.data(), room.cols * vectors_, seed, 2);
    GEMV_CUDA_CHECK_LAUNCH();
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
std::uint64_t DeviceProblem<T>::bytes(const Shape& shape, int vectors) {
    const std::uint64_t model = model_bytes(shape.m, shape.n, precision_of<T>(), vectors);
    const std::uint64_t elements = checked_mul(std::uint64_t(shape.m), std::uint64_t(vectors), "m*k");
    return checked_add(model, checked_mul(elements, 2 * sizeof(double), "the reference"), "the problem's bytes");
}

template <class T>
void DeviceProblem<T>::use(std::int64_t m, std::int64_t n, Layout layout, Scales mode) {
    m_ = m;
    n_ = n;
    scale_mode_ = mode;
    const std::int64_t count = scale_count(mode, m, n);
    if (std::size_t(count) > scales_.size()) scales_ = DeviceArray<float>(std::size_t(count));
    if (count)
        fill_scales<<<unsigned(std::min<std::int64_t>(1024, (count + 255) / 256)), 256>>>(scales_.data(), count, seed_);
    const std::size_t elements = std::size_t(m) * std::size_t(vectors_);
    GEMV_CUDA_CHECK(cudaMemset(ref_.data(), 0, elements * sizeof(double)));
    GEMV_CUDA_CHECK(cudaMemset(abs_sum_.data(), 0, elements * sizeof(double)));
    // Enough slices that the whole GPU works, however few the rows.
    if (layout == Layout::col) {
        const std::int64_t bx = (m + 255) / 256;
        const std::int64_t slices = std::min<std::int64_t>({n, 65535, std::max<std::int64_t>(1, 4096 / bx)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_col<<<dim3(unsigned(bx), unsigned((n + per - 1) / per), unsigned(vectors_)), 256>>>(
            A_.data(), x_.data(), scales(), ref_.data(), abs_sum_.data(), m, n, per);
    } else {
        const std::int64_t slices =
            std::min<std::int64_t>({(n + 255) / 256, 65535, std::max<std::int64_t>(1, 4096 / m)});
        const std::int64_t per = (n + slices - 1) / slices;
        reference_row<<<dim3(unsigned(m), unsigned((n + per - 1) / per), unsigned(vectors_)), 256>>>(
            A_.data(), x_.data(), scales(), ref_.data(), abs_sum_.data(), m, n, per);
    }
    GEMV_CUDA_CHECK_LAUNCH();
}

template <class T>
void DeviceProblem<T>::poison(cudaStream_t stream) {
    GEMV_CUDA_CHECK(
        cudaMemsetAsync(y_.data(), 0xFF, std::size_t(m_) * std::size_t(vectors_) * sizeof(accumulator_t<T>), stream));
}

template <class T>
unsigned long long DeviceProblem<T>::count_wrong_elements() {
    GEMV_CUDA_CHECK(cudaMemset(failures_.data(), 0, sizeof(unsigned long long)));
    const double scale = error_bound(1.0, n_, precision_of<accumulator_t<T>>());
    const std::int64_t elements = m_ * vectors_;
    count_wrong<<<unsigned((elements + 255) / 256), 256>>>(y_.data(), ref_.data(), abs_sum_.data(), elements, scale,
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
        poison();
        run(0);
        if (const auto wrong = count_wrong_elements())
            throw std::runtime_error(what + " is wrong on " + std::to_string(m_) + " x " + std::to_string(n_) + ": " +
                                     std::to_string(wrong) + " elements of y outside the bound");
    }
    return time_gpu(f, run, {}, warmup, reps, true).median_ms;
}

template class DeviceProblem<float>;
template class DeviceProblem<double>;
template class DeviceProblem<__nv_bfloat16>;
template class DeviceProblem<__half>;
template class DeviceProblem<__nv_fp8_e4m3>;

}  // namespace gemv
