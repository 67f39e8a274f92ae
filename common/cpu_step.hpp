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

// One timed pass of the CPU ceiling: how many streams each thread read, the pass's wall time, and
// the least share of that time any of its threads ran on a CPU.
struct CeilingPass {
    int streams = 1;
    double seconds = 0;
    double cpu_share = 0;
};

// A pass lasts as long as its slowest thread, so a thread that ran a share s of it can stretch it to
// 1/s and the ceiling reads that much low: other processes spinning on the cores put OpenBLAS at
// 117 % of such a ceiling. At 90 % the ceiling reads at most 11 % low, which keeps step 02 (85-90 %
// of the ceiling on a quiet host) under the 105 % a measurement may show. On a quiet 2-core VM most
// passes gave every thread 99-100 %, one in ten 93-97 %; beside a build, 30-50 %. What slows the
// memory itself without taking the cores (another VM on the same machine) it cannot see.
constexpr double kCeilingCpuShare = 0.9;

// The ceiling's time: the fastest pass whose threads all ran (cpu_share at least kCeilingCpuShare).
// 0, a busy host, where no pass of some stream count ran so: a ceiling without that count may miss
// the one this host reads best with.
double trusted_ceiling_seconds(const std::vector<CeilingPass>& passes);

// The CPU's streaming-read bandwidth, measured the way the CPU kernels run: the same OpenMP threads
// and binding, pages first-touched by the thread that reads them, 1 to 16 streams a thread, the best
// trusted pass (above) over a buffer far larger than the last-level cache among those that fit in
// `seconds`. busy (and gbps 0) where other processes held the CPUs through the passes.
struct CpuCeiling {
    double gbps = 0;
    bool busy = false;
};
CpuCeiling measure_cpu_read_ceiling(double seconds = 0.5);

// Measures the ceiling and sets it in every result, where a table will show a % of it: not where
// every run is under the noise floor (then it stays 0), so that a tiny problem does not spend a
// second reading a large buffer for a figure nobody sees. Marks them ceiling_busy where it was busy.
void set_cpu_ceiling(std::vector<Result>& results);

// Poisons y, runs the kernel once, verifies: what tests and mains share.
template <class T>
Verification run_and_verify_cpu(const HostProblem<T>& p, const std::function<void(const T*, const T*, T*)>& kernel);

}  // namespace gemv
