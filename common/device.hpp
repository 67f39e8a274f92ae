// The GPU side of the harness: device facts, RAII device arrays, the measured read ceiling,
// cold-L2 timing with CUDA events, and the occupancy report of an actual launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "check.hpp"
#include "errors.hpp"
#include "integer.hpp"
#include "result.hpp"
#include "timing.hpp"

namespace gemv {

struct DeviceFacts {
    int id = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    std::string compute_capability() const {  // "9.0"
        return std::to_string(cc_major) + "." + std::to_string(cc_minor);
    }
    int sm_count = 0;
    std::size_t global_bytes = 0, free_bytes = 0;
    int l2_bytes = 0;
    int memory_clock_khz = 0;  // through cudaDeviceGetAttribute: CUDA 13 removed it from cudaDeviceProp
    int bus_width_bits = 0;
    int max_threads_per_sm = 0, max_blocks_per_sm = 0, registers_per_sm = 0, warp_size = 32;
    std::size_t shared_per_sm = 0, shared_per_block_optin = 0;
    int runtime_version = 0, driver_version = 0;
    double datasheet_gbps() const;  // 2 transfers a clock (DDR) × bus width
    Metadata metadata() const;
};

// Throws NoDevice with the reason (cuda_device_count's) when there is no usable GPU.
DeviceFacts query_device(int id = 0);

// Refuses (UsageError) a problem that does not fit in the GPU's free memory.
void require_device_memory(const DeviceFacts& facts, std::uint64_t bytes);

// The CUDA devices this process can use; 0 with the reason in plain words in why_none. Without the
// NVIDIA driver the runtime says "CUDA driver version is insufficient", which sends people to
// update a driver that is not there: the reason says there is no GPU instead.
int cuda_device_count(std::string& why_none);
std::string version_text(int cuda_version);  // 13000 -> "13.0"

// Memory the CUDA runtime hands out, freed when the array goes: on the device (cudaMalloc), or
// page-locked on the host (cudaMallocHost), which the GPU's DMA engines copy directly at full PCIe
// or NVLink speed where pageable memory would be copied once more through a bounce buffer.
enum class CudaMemory { device, pinned_host };

template <class T, CudaMemory Where>
class CudaArray {
public:
    CudaArray() = default;
    explicit CudaArray(std::size_t count) : size_(count) {
        if (!count) return;
        // Device arrays end on a whole 16 bytes: a kernel's aligned 16-byte load that holds the
        // last element (step 11's realigned loads) stays inside the allocation.
        if constexpr (Where == CudaMemory::device)
            GEMV_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), (count * sizeof(T) + 15) / 16 * 16));
        else
            GEMV_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
    ~CudaArray() {
        if (!data_) return;
        if constexpr (Where == CudaMemory::device)
            cudaFree(data_);
        else
            cudaFreeHost(data_);
    }
    CudaArray(const CudaArray&) = delete;
    CudaArray& operator=(const CudaArray&) = delete;
    CudaArray(CudaArray&& o) noexcept : data_(o.data_), size_(o.size_) {
        o.data_ = nullptr;
        o.size_ = 0;
    }
    CudaArray& operator=(CudaArray&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        return *this;
    }
    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    // Device arrays: copies from and to the host, and every byte 0xFF (a quiet NaN in float and in
    // double).
    void upload(const T* host) { GEMV_CUDA_CHECK(cudaMemcpy(data_, host, size_ * sizeof(T), cudaMemcpyHostToDevice)); }
    void download(T* host) const {
        GEMV_CUDA_CHECK(cudaMemcpy(host, data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
    }
    void poison(cudaStream_t s = 0) { GEMV_CUDA_CHECK(cudaMemsetAsync(data_, 0xFF, size_ * sizeof(T), s)); }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

template <class T>
using DeviceArray = CudaArray<T, CudaMemory::device>;
template <class T>
using PinnedArray = CudaArray<T, CudaMemory::pinned_host>;

// Median GB/s of a read-only streaming kernel (16-byte loads) over a buffer far larger than L2.
double measure_read_ceiling(const DeviceFacts& facts, int reps = 10);

// Median GB/s of a device-to-device copy of 1 GiB, bytes read plus bytes written: the ceiling of
// a kernel that writes as many bytes as it reads (m×1 and m×2 products write y, a large share).
double measure_copy_gbps(const DeviceFacts& facts, int reps = 10);

// Median time of launching a kernel that does nothing, cold L2 as every timing: what a product of
// any size pays before its first byte. A small matrix is judged against bytes / ceiling plus this.
double measure_empty_launch_ms(const DeviceFacts& facts, int reps = 20);

// Evicts L2 by reading a buffer of twice its size.
class L2Scrubber {
public:
    explicit L2Scrubber(const DeviceFacts& facts);
    void scrub(cudaStream_t s);

private:
    DeviceArray<float> buffer_;
    DeviceArray<float> sink_;
    int grid_;
};

// A step program's warm-up before it times a kernel (time_step_line, gpu_step.hpp): untimed
// launches, one after another, until kBusyMs have passed (at least one). A GPU that has been idle
// (the host drawing a problem, a program just started) runs its first launches at lower clocks: on
// the H200, step 15's warp per row on fp8 28672 x 8192, the first line its program timed, read 76 %
// of the ceiling after 2 untimed launches and 85 % after 200 (12 ms), as it does where another line
// ran before it.
constexpr double kBusyMs = 20;
void keep_busy(const std::function<void(cudaStream_t)>& launch, double ms = kBusyMs);

// warmup untimed launches, then reps timed ones with CUDA events around launch() alone;
// before() (poisoning the output) and the L2 scrub run before each start event.
Stats time_gpu(const DeviceFacts& facts, const std::function<void(cudaStream_t)>& launch,
               const std::function<void(cudaStream_t)>& before, int warmup, int reps, bool cold);

// For the choosers that measure (steps 11 and 17): which of several launches of the same product is
// the fastest, timed as time_gpu times, in turns: each turn a launch not counted, then one timed
// from a cold L2, so that each timed launch follows one of its own as in the harness (a kernel
// after another that set the SMs' shared memory apart may run slower); `rounds` rounds after a
// first one not counted, so that a GPU still raising its clocks weighs on every launch alike. The
// least median wins (the first of equal ones).
std::size_t fastest_in_turns(const DeviceFacts& facts, const std::vector<std::function<void(cudaStream_t)>>& launches,
                             int rounds);

// A kernel launch as the occupancy API sees it.
struct Launch {
    dim3 grid{1, 1, 1};
    dim3 block{1, 1, 1};
    std::size_t dynamic_shared = 0;
    const void* kernel = nullptr;  // the __global__ function, for cudaFuncGetAttributes
    std::string describe() const;  // "grid 32768x1, block 256x1"
};

// Theoretical occupancy from the occupancy API, with the resource that limits it.
OccupancyReport occupancy_of(const Launch& launch, const DeviceFacts& facts);

}  // namespace gemv
