#include "device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "format.hpp"

namespace gemv {

std::string version_text(int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

double DeviceFacts::datasheet_gbps() const {
    return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

Metadata DeviceFacts::metadata() const {
    Metadata m;
    m.device = name;
    m.units = sm_count;
    m.runtime_version = version_text(runtime_version);
    m.driver_version = version_text(driver_version);
    m.build_type = build_type();
    m.git_revision = git_revision();
    return m;
}

void require_device_memory(const DeviceFacts& f, std::uint64_t bytes) {
    // Room for the L2 scrub buffer and the runtime's own needs beside the problem.
    const std::uint64_t need = bytes + 2ull * static_cast<std::uint64_t>(f.l2_bytes) + (256ull << 20);
    if (need > f.free_bytes)
        throw UsageError("the problem needs " + format_bytes(static_cast<double>(need)) + " of GPU memory; " + f.name +
                         " has " + format_bytes(static_cast<double>(f.free_bytes)) + " free");
}

int cuda_device_count(std::string& why_none) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count > 0) return count;
    cudaGetLastError();  // clear the error for anything that runs after
    int driver = 0;
    cudaDriverGetVersion(&driver);  // 0 where no driver is installed
    if (err == cudaSuccess || err == cudaErrorNoDevice)
        why_none = "no GPU found: the NVIDIA driver is there but sees none";
    else if (driver == 0)
        why_none = "no GPU found: this machine has no NVIDIA driver";
    else if (err == cudaErrorInsufficientDriver)
        why_none = "the NVIDIA driver supports CUDA " + version_text(driver) + ", older than this build's runtime " +
                   version_text(CUDART_VERSION) + ": update the driver";
    else
        why_none = std::string("no usable GPU: ") + cudaGetErrorString(err);
    return 0;
}

DeviceFacts query_device(int id) {
    std::string why_none;
    const int count = cuda_device_count(why_none);
    if (count == 0) throw NoDevice(why_none);
    if (count <= id) throw NoDevice("no GPU " + std::to_string(id) + ": the runtime sees " + std::to_string(count));
    GEMV_CUDA_CHECK(cudaSetDevice(id));
    DeviceFacts f;
    f.id = id;
    cudaDeviceProp p{};
    GEMV_CUDA_CHECK(cudaGetDeviceProperties(&p, id));
    f.name = p.name;
    f.cc_major = p.major;
    f.cc_minor = p.minor;
    f.sm_count = p.multiProcessorCount;
    f.l2_bytes = p.l2CacheSize;
    f.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    f.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    f.registers_per_sm = p.regsPerMultiprocessor;
    f.warp_size = p.warpSize;
    f.shared_per_sm = p.sharedMemPerMultiprocessor;
    f.shared_per_block_optin = p.sharedMemPerBlockOptin;
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&f.memory_clock_khz, cudaDevAttrMemoryClockRate, id));
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&f.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, id));
    GEMV_CUDA_CHECK(cudaMemGetInfo(&f.free_bytes, &f.global_bytes));
    GEMV_CUDA_CHECK(cudaRuntimeGetVersion(&f.runtime_version));
    GEMV_CUDA_CHECK(cudaDriverGetVersion(&f.driver_version));
    return f;
}

// BEGIN EXCERPT read_stream
// Reads n float4s and writes nothing unless the sum is a value random data never sums to, so
// the compiler cannot drop the loads. IN_FLIGHT independent loads per thread; STREAMING uses
// __ldcs (evict first), as kernels that read their matrix once may.
template <int IN_FLIGHT, bool STREAMING>
__global__ void read_stream(const float4* __restrict__ data, std::size_t n, float* sink) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float acc = 0;
    for (; i + (IN_FLIGHT - 1) * stride < n; i += IN_FLIGHT * stride) {
        float4 v[IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; ++k) v[k] = STREAMING ? __ldcs(data + i + k * stride) : data[i + k * stride];
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; ++k) acc += v[k].x + v[k].w;
    }
    for (; i < n; i += stride) acc += data[i].x;
    if (acc == -1.2345e30f) *sink = acc;
}
// END EXCERPT read_stream

// The same read with each block on its own contiguous slice (the order a kernel that gives each
// block a band of A reads in), which DRAM pages may serve faster than the interleaved order.
__global__ void read_blocked(const float4* __restrict__ data, std::size_t n, float* sink) {
    const std::size_t per = (n + gridDim.x - 1) / gridDim.x;
    const std::size_t begin = blockIdx.x * per, end = begin + per < n ? begin + per : n;
    float acc = 0;
    std::size_t i = begin + threadIdx.x;
    for (; i + 7 * blockDim.x < end; i += 8 * blockDim.x) {
        float4 v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = __ldcs(data + i + k * blockDim.x);
#pragma unroll
        for (int k = 0; k < 8; ++k) acc += v[k].x + v[k].w;
    }
    for (; i < end; i += blockDim.x) acc += data[i].x;
    if (acc == -1.2345e30f) *sink = acc;
}

template <int IN_FLIGHT, bool STREAMING>
static void launch_read_stream(const DeviceFacts& f, const float* data, std::size_t floats, float* sink,
                               cudaStream_t s) {
    const int block = 256;
    const int grid = f.sm_count * std::max(1, f.max_threads_per_sm / block);
    read_stream<IN_FLIGHT, STREAMING><<<grid, block, 0, s>>>(reinterpret_cast<const float4*>(data), floats / 4, sink);
    GEMV_CUDA_CHECK_LAUNCH();
}

double measure_read_ceiling(const DeviceFacts& f, int reps) {
    std::size_t free_bytes = 0, total = 0;
    GEMV_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    // 2 GiB is 40 times an H100's L2; smaller GPUs get a quarter of their free memory.
    const std::size_t bytes = std::min<std::size_t>(std::size_t(2) << 30, free_bytes / 4) & ~std::size_t(4095);
    DeviceArray<float> buffer(bytes / sizeof(float));
    DeviceArray<float> sink(1);
    GEMV_CUDA_CHECK(cudaMemset(buffer.data(), 0, bytes));
    // The ceiling is the best of a few ways to stream-read (interleaved across the grid, or a
    // slice per block): the bound every kernel of the ladder is measured against.
    double best_ms = 1e30;
    const std::function<void(cudaStream_t)> readers[] = {
        [&](cudaStream_t s) { launch_read_stream<4, false>(f, buffer.data(), buffer.size(), sink.data(), s); },
        [&](cudaStream_t s) { launch_read_stream<8, false>(f, buffer.data(), buffer.size(), sink.data(), s); },
        [&](cudaStream_t s) { launch_read_stream<8, true>(f, buffer.data(), buffer.size(), sink.data(), s); },
        [&](cudaStream_t s) {
            read_blocked<<<f.sm_count * 64, 256, 0, s>>>(reinterpret_cast<const float4*>(buffer.data()),
                                                         buffer.size() / 4, sink.data());
            GEMV_CUDA_CHECK_LAUNCH();
        }};
    for (const auto& read : readers) best_ms = std::min(best_ms, time_gpu(f, read, {}, 2, reps, false).median_ms);
    return static_cast<double>(bytes) / (best_ms * 1e6);
}

__global__ void empty_kernel() {}

double measure_empty_launch_ms(const DeviceFacts& f, int reps) {
    const int grid = f.sm_count * std::max(1, f.max_threads_per_sm / 256);  // a full wave, as a product's
    return time_gpu(
               f,
               [&](cudaStream_t s) {
                   empty_kernel<<<grid, 256, 0, s>>>();
                   GEMV_CUDA_CHECK_LAUNCH();
               },
               {}, 2, reps, true)
        .median_ms;
}

double measure_copy_gbps(const DeviceFacts& f, int reps) {
    const std::size_t bytes = std::min<std::size_t>(std::size_t(1) << 30, f.free_bytes / 8) & ~std::size_t(4095);
    DeviceArray<char> a(bytes), b(bytes);
    GEMV_CUDA_CHECK(cudaMemset(a.data(), 1, bytes));
    const Stats t = time_gpu(
        f,
        [&](cudaStream_t s) {
            GEMV_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        {}, 2, reps, false);
    return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e6);
}

L2Scrubber::L2Scrubber(const DeviceFacts& f)
    : buffer_(std::max(2 * f.l2_bytes, 1 << 20) / sizeof(float)),
      sink_(1),
      grid_(f.sm_count * std::max(1, f.max_threads_per_sm / 256)) {
    GEMV_CUDA_CHECK(cudaMemset(buffer_.data(), 0, buffer_.size() * sizeof(float)));
}

void L2Scrubber::scrub(cudaStream_t s) {
    // Reading (not writing) evicts without leaving dirty lines to be written back during the
    // timed launch.
    read_stream<4, false>
        <<<grid_, 256, 0, s>>>(reinterpret_cast<const float4*>(buffer_.data()), buffer_.size() / 4, sink_.data());
    GEMV_CUDA_CHECK_LAUNCH();
}

void keep_busy(const std::function<void(cudaStream_t)>& launch, double ms) {
    const auto start = std::chrono::steady_clock::now();
    do {
        launch(0);
        GEMV_CUDA_CHECK(cudaStreamSynchronize(0));
    } while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() < ms);
}

Stats time_gpu(const DeviceFacts& f, const std::function<void(cudaStream_t)>& launch,
               const std::function<void(cudaStream_t)>& before, int warmup, int reps, bool cold) {
    cudaStream_t s = 0;
    for (int i = 0; i < warmup; ++i) {
        if (before) before(s);
        launch(s);
    }
    GEMV_CUDA_CHECK(cudaStreamSynchronize(s));
    // One scrub buffer per device for the life of the program: tuners time thousands of launches.
    static std::map<int, std::unique_ptr<L2Scrubber>> scrubbers;
    L2Scrubber* scrubber = nullptr;
    if (cold) {
        auto& slot = scrubbers[f.id];
        if (!slot) slot = std::make_unique<L2Scrubber>(f);
        scrubber = slot.get();
    }
    cudaEvent_t start, stop;
    GEMV_CUDA_CHECK(cudaEventCreate(&start));
    GEMV_CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        if (before) before(s);
        if (scrubber) scrubber->scrub(s);
        GEMV_CUDA_CHECK(cudaEventRecord(start, s));
        launch(s);
        GEMV_CUDA_CHECK(cudaEventRecord(stop, s));
        GEMV_CUDA_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        GEMV_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return summarize(ms);
}

std::size_t fastest_in_turns(const DeviceFacts& facts, const std::vector<std::function<void(cudaStream_t)>>& launches,
                             int rounds) {
    std::vector<std::vector<double>> ms(launches.size());
    for (int round = 0; round <= rounds; ++round)
        for (std::size_t i = 0; i < launches.size(); ++i) {
            const double t = time_gpu(facts, launches[i], {}, 1, 1, true).median_ms;
            if (round > 0) ms[i].push_back(t);
        }
    std::size_t fastest = 0;
    for (std::size_t i = 1; i < ms.size(); ++i)
        if (summarize(ms[i]).median_ms < summarize(ms[fastest]).median_ms) fastest = i;
    return fastest;
}

std::string Launch::describe() const {
    std::ostringstream s;
    s << "grid " << grid.x;
    if (grid.y > 1 || grid.z > 1) s << "x" << grid.y;
    if (grid.z > 1) s << "x" << grid.z;
    s << ", block " << block.x;
    if (block.y > 1 || block.z > 1) s << "x" << block.y;
    if (block.z > 1) s << "x" << block.z;
    if (dynamic_shared) s << ", " << dynamic_shared << " B shared";
    return s.str();
}

OccupancyReport occupancy_of(const Launch& l, const DeviceFacts& f) {
    OccupancyReport o;
    if (!l.kernel) return o;
    cudaFuncAttributes a{};
    GEMV_CUDA_CHECK(cudaFuncGetAttributes(&a, l.kernel));
    const int threads = static_cast<int>(l.block.x * l.block.y * l.block.z);
    GEMV_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_sm, l.kernel, threads, l.dynamic_shared));
    o.valid = true;
    o.threads_per_block = threads;
    o.registers_per_thread = a.numRegs;
    o.shared_bytes_per_block = a.sharedSizeBytes + l.dynamic_shared;
    const int warps = (threads + f.warp_size - 1) / f.warp_size;
    const int max_warps = f.max_threads_per_sm / f.warp_size;
    o.occupancy = static_cast<double>(o.blocks_per_sm * warps) / max_warps;

    // Which resource gives the API's answer: each limit on its own, the smallest names the limiter.
    int reserved = 0;
    cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, f.id);
    const int by_threads = max_warps / warps;
    const int by_blocks = f.max_blocks_per_sm;
    const int regs_per_warp = ((a.numRegs * f.warp_size + 255) / 256) * 256;  // allocated per warp, 256 at a time
    const int by_registers = regs_per_warp ? (f.registers_per_sm / regs_per_warp) / warps : by_blocks;
    const std::size_t shared = o.shared_bytes_per_block + static_cast<std::size_t>(reserved);
    const int by_shared = o.shared_bytes_per_block ? static_cast<int>(f.shared_per_sm / shared) : by_blocks;
    const std::pair<int, const char*> limits[] = {{by_registers, "registers"},
                                                  {by_shared, "shared memory"},
                                                  {by_threads, "threads per SM"},
                                                  {by_blocks, "blocks per SM"}};
    const auto* best = &limits[0];
    for (const auto& lim : limits)
        if (lim.first < best->first) best = &lim;
    o.limiter = best->second;
    return o;
}

}  // namespace gemv
