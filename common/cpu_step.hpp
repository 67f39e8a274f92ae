// The driver of a CPU step: parse, make the problem, time each kernel, verify, report.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "limits.hpp"
#include "problem.hpp"
#include "report.hpp"
#include "verify.hpp"

namespace gemv {

struct CpuKernel {
    std::string variant;
    std::string launch;  // how it runs: "1 thread", "16 threads, static"
    Traffic traffic;
    std::function<void()> run;
};

template <class T>
using CpuKernels = std::function<std::vector<CpuKernel>(const Options&, const HostProblem<T>&, T* y)>;

int cpu_step_main(int argc, const char* const* argv, const StepSpec& spec, const CpuKernels<float>& f32,
                  const CpuKernels<double>& f64);

// The CPU's streaming-read bandwidth, measured the way the CPU kernels run: the same OpenMP threads
// and binding, pages first-touched by the thread that reads them, 1 to 16 streams a thread, the best
// of the passes over a buffer far larger than the last-level cache that fit in `seconds`.
double measure_cpu_read_ceiling(double seconds = 0.5);

// Measures the ceiling and sets it in every result, where a table will show a % of it: not where
// every run is under the noise floor (then it stays 0), so that a tiny problem does not spend a
// second reading a large buffer for a figure nobody sees.
void set_cpu_ceiling(std::vector<Result>& results);

// Poisons y, runs the kernel once, verifies: what tests and mains share.
template <class T>
Verification run_and_verify_cpu(const HostProblem<T>& p, const std::function<void(const T*, const T*, T*)>& kernel);

}  // namespace gemv
