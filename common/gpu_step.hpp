// The driver of a GPU step: parse, check the device, make the problem, time each kernel with
// cold L2, verify, report occupancy and the measured ceiling. gpu_step_main for the steps in float
// and double (a problem made and checked on the host), run_device_problem_step for steps 15 and 16
// (a problem made and checked on the device: formats narrower than float, k vectors).
#pragma once

#include <functional>
#include <memory>
#include <ostream>
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
    std::function<void(cudaStream_t)> run;         // everything the product costs: zeroing y included where needed
    std::string note;                              // appended to the launch column: parameters, where they came from
    std::function<Fields(const Result&)> figures;  // the step's own columns, from the measured row (or none)
};

// Builds the step's kernels for one problem already on the device. Throws UsageError for a shape
// or parameter the kernel cannot take.
template <class T>
using GpuKernels =
    std::function<std::vector<GpuKernel>(const Options&, const DeviceFacts&, const T* A, const T* x, T* y)>;

// A step program's timing of one line, as the options ask (--warmup, --reps, --cache): the GPU kept
// busy for kBusyMs first (keep_busy, device.hpp) unless --warmup 0, then time_gpu.
Stats time_step_line(const Options& o, const DeviceFacts& facts, const std::function<void(cudaStream_t)>& launch,
                     const std::function<void(cudaStream_t)>& before);

int gpu_step_main(int argc, const char* const* argv, const StepSpec& spec, const GpuKernels<float>& f32,
                  const GpuKernels<double>& f64);

template <class T>
class DeviceProblem;  // device_problem.cuh

// The same for a problem made and checked on the device: A and x in T (any of storage.hpp's
// formats), with `vectors` columns of X and Y (step 16's k). Every element of Y is checked against
// the device's reference; after_table, where given, prints below the table (not in CSV or JSON).
// Called from run_step's body with the type, e.g. run_device_problem_step<__half>(o, spec, kernels).
template <class T>
using DeviceKernels = std::function<std::vector<GpuKernel>(const Options&, const DeviceFacts&, DeviceProblem<T>&)>;
using AfterTable = std::function<void(std::ostream&, const DeviceFacts&, const std::vector<Result>&)>;

template <class T>
int run_device_problem_step(const Options& o, const StepSpec& spec, const DeviceKernels<T>& kernels, int vectors = 1,
                            const AfterTable& after_table = {});

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
