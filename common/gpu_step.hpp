// The driver of a GPU step: parse, check the device, make the problem, time each kernel with
// cold L2, verify, report occupancy and the measured ceiling.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device.hpp"
#include "limits.hpp"
#include "problem.hpp"
#include "verify.hpp"

namespace gemv {

struct GpuKernel {
    std::string variant;
    Launch launch;  // the launch to report; kernel == nullptr for library calls (no occupancy)
    Traffic traffic;
    std::function<void(cudaStream_t)> run;  // everything the product costs: zeroing y included where needed
    std::string note;                       // appended to the launch column: parameters, where they came from
};

// Builds the step's kernels for one problem already on the device. Throws UsageError for a shape
// or parameter the kernel cannot take.
template <class T>
using GpuKernels =
    std::function<std::vector<GpuKernel>(const Options&, const DeviceFacts&, const T* A, const T* x, T* y)>;

int gpu_step_main(int argc, const char* const* argv, const StepSpec& spec, const GpuKernels<float>& f32,
                  const GpuKernels<double>& f64);

// A kernel's workspace of count elements in device memory (the partial sums of a two-pass
// product): refused (UsageError) where it does not fit beside an m×n problem, NaN until the kernel
// writes it, and shared by the runs that use it, so that it lives as long as they do.
template <class T>
std::shared_ptr<DeviceArray<T>> make_workspace(const DeviceFacts& facts, const Shape& problem, std::int64_t count) {
    require_device_memory(facts,
                          model_bytes(problem.m, problem.n, sizeof(T)) + static_cast<std::uint64_t>(count) * sizeof(T));
    auto workspace = std::make_shared<DeviceArray<T>>(static_cast<std::size_t>(count));
    workspace->poison();
    return workspace;
}

// Uploads p, poisons y, calls kernel(A, x, y) once on the device, downloads and verifies: the
// check tests and exercises share.
template <class T>
Verification run_and_verify_gpu(const HostProblem<T>& p,
                                const std::function<void(const T*, const T*, T*, cudaStream_t)>& kernel);

}  // namespace gemv
