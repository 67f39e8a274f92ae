// The driver of a GPU step: parse, check the device, make the problem, time each kernel with
// cold L2, verify, report occupancy and the measured ceiling.
#pragma once

#include <functional>
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

// Uploads p, poisons y, calls kernel(A, x, y) once on the device, downloads and verifies: the
// check tests and exercises share.
template <class T>
Verification run_and_verify_gpu(const HostProblem<T>& p,
                                const std::function<void(const T*, const T*, T*, cudaStream_t)>& kernel);

}  // namespace gemv
