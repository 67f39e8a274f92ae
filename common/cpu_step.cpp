#include "cpu_step.hpp"

#include <omp.h>
#include <time.h>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <iterator>
#include <utility>

#include "host_array.hpp"
#include "timing.hpp"

namespace gemv {

namespace {

constexpr int kStreamChoices[] = {1, 2, 4, 8, 16};
constexpr int kMostStreams = 16;

// This thread's share of `lines`: the same contiguous block for the first touch and every read.
std::pair<std::int64_t, std::int64_t> share_of(std::int64_t lines) {
    const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    return {lines * t / threads, lines * (t + 1) / threads};
}

// The CPU time this thread has run: time it waited for a core while others ran does not count.
double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// One read of the buffer, every thread its own share in `streams` runs read side by side. Every
// element is added, as a kernel adds them, but into eight lanes that the compiler keeps in vector
// registers: two vector loads and two vector adds a 64-byte line, no more than any kernel's loop.
// Each thread also compares the CPU time it ran with the wall time since the pass began (so a
// thread that waited for a core before it started lost that time too); the pass keeps the least.
CeilingPass read_pass(const double* data, std::int64_t lines, int streams, double& sink) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    double sum = 0, share = 1;
#pragma omp parallel reduction(+ : sum) reduction(min : share)
    {
        const double cpu_start = thread_cpu_seconds();
        const auto [first, end] = share_of(lines);
        const std::int64_t run = (end - first) / streams;
        double lane[8] = {};
        for (std::int64_t k = 0; k < run; ++k)
            for (int s = 0; s < streams; ++s) {
                const double* line = data + (first + s * run + k) * 8;
#pragma omp simd
                for (int j = 0; j < 8; ++j) lane[j] += line[j];
            }
        for (double v : lane) sum += v;
        share = (thread_cpu_seconds() - cpu_start) / std::chrono::duration<double>(Clock::now() - start).count();
    }
    sink += sum;
    return {streams, std::chrono::duration<double>(Clock::now() - start).count(), share};
}

}  // namespace

CpuCeiling measure_cpu_read_ceiling(double seconds) {
    // The way the kernels run: the same OpenMP team (OMP_NUM_THREADS, OMP_PROC_BIND and OMP_PLACES
    // apply to both), each thread reading the contiguous share it first-touched, as the kernels read
    // the rows make_problem's static schedule gave each thread. How many streams a thread reads side
    // by side is a kernel's own choice (one row, four rows a pass, OpenBLAS's), and it sets how far
    // the prefetchers fetch ahead: on the GPU host's 16 cores one stream a thread read 83 GB/s and
    // eight 117. So the passes go through 1 to 16 streams a thread, and the best pass is the ceiling.
    const std::int64_t team = omp_get_max_threads(), unit = team * kMostStreams;
    const std::int64_t lines = static_cast<std::int64_t>(cpu_uncached_bytes() / 64) / unit * unit;
    HostArray<double> buffer(static_cast<std::size_t>(lines) * 8);
    double* const data = buffer.data();
#pragma omp parallel
    {
        const auto [first, end] = share_of(lines);
        std::fill(data + first * 8, data + end * 8, 1.0);
    }

    // After an untimed pass, as many as fit in `seconds` (two for each stream count at least): a
    // pass that nothing disturbed is the ceiling, and a kernel's median can only come below it.
    // Passes spread over time outlast a moment when the scheduler has put two threads on one core.
    double sink = 0;
    read_pass(data, lines, 1, sink);
    std::vector<CeilingPass> passes;
    const auto start = std::chrono::steady_clock::now();
    const int choices = static_cast<int>(std::size(kStreamChoices));
    for (int pass = 0;
         pass < 2 * choices || std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds);
         ++pass)
        passes.push_back(read_pass(data, lines, kStreamChoices[pass % choices], sink));
    if (sink == 0.5) std::cerr << "";  // keeps the sums alive
    const double best_s = trusted_ceiling_seconds(passes);
    if (best_s == 0) return {0, true};
    return {static_cast<double>(lines) * 64 / (best_s * 1e9), false};
}

double trusted_ceiling_seconds(const std::vector<CeilingPass>& passes) {
    double best_s = 0;
    for (const CeilingPass& p : passes) {
        // The best stream count differs from host to host (83 GB/s with one, 117 with eight on the
        // GPU host): a ceiling without it would read low, so every count tried needs a pass that ran.
        const bool count_ran = std::any_of(passes.begin(), passes.end(), [&](const CeilingPass& q) {
            return q.streams == p.streams && q.cpu_share >= kCeilingCpuShare;
        });
        if (!count_ran) return 0;
        if (p.cpu_share >= kCeilingCpuShare && (best_s == 0 || p.seconds < best_s)) best_s = p.seconds;
    }
    return best_s;
}

void set_cpu_ceiling(std::vector<Result>& results) {
    const bool shown = std::any_of(results.begin(), results.end(),
                                   [](const Result& r) { return r.time.median_ms >= kCpuNoiseFloorMs; });
    const CpuCeiling ceiling = shown ? measure_cpu_read_ceiling() : CpuCeiling{};
    for (Result& r : results) {
        r.ceiling_gbps = ceiling.gbps;
        r.ceiling_busy = ceiling.busy;
    }
}

template <class T>
Verification run_and_verify_cpu(const HostProblem<T>& p, const std::function<void(const T*, const T*, T*)>& kernel) {
    HostArray<T> y(static_cast<std::size_t>(p.shape.m));
    std::fill(y.begin(), y.end(), poison_value<T>());
    kernel(p.A.data(), p.x.data(), y.data());
    return verify(y.data(), compute_reference(p.A.data(), p.x.data(), p.shape), p.shape.n, RunsOn::cpu);
}

template Verification run_and_verify_cpu<float>(const HostProblem<float>&,
                                                const std::function<void(const float*, const float*, float*)>&);
template Verification run_and_verify_cpu<double>(const HostProblem<double>&,
                                                 const std::function<void(const double*, const double*, double*)>&);

namespace {

template <class T>
int run_cpu(const Options& o, const StepSpec& spec, const CpuKernels<T>& factory) {
    const std::uint64_t bytes = model_bytes(o.shape.m, o.shape.n, sizeof(T));
    require_host_memory(bytes + static_cast<std::uint64_t>(o.shape.m) * 16, "this problem");
    const HostProblem<T> p = make_problem<T>(o.shape, o.seed);
    HostArray<T> y(static_cast<std::size_t>(o.shape.m));
    const Reference ref = o.verify ? compute_reference(p.A.data(), p.x.data(), o.shape) : Reference{};

    std::vector<Result> results;
    bool all_ok = true;
    for (const CpuKernel& k : factory(o, p, y.data())) {
        const auto poison = [&] { std::fill(y.begin(), y.end(), poison_value<T>()); };
        Result r = result_of(spec, o, k.variant);
        r.time = time_cpu(k.run, o.warmup, o.reps, o.cold, poison);
        r.traffic = k.traffic;
        r.launch = k.launch;
        if (o.verify) {
            const Verification v = verify(y.data(), ref, o.shape.n, RunsOn::cpu);  // the last timed run's output
            r.verified = v.ok;
            if (!v.ok) std::cerr << "step " << spec.number << " " << k.variant << ": " << v.message << "\n";
            all_ok &= v.ok;
        }
        results.push_back(r);
    }
    set_cpu_ceiling(results);  // after the kernels: the threads have run a while, as they had for them
    print_results(std::cout, o.format, cpu_metadata(), results);
    return all_ok ? kExitOk : kExitWrong;
}

}  // namespace

int cpu_step_main(int argc, const char* const* argv, const StepSpec& spec, const CpuKernels<float>& f32,
                  const CpuKernels<double>& f64) {
    return run_step(argc, argv, spec, [&](const Options& o) {
        return o.precision == Precision::f32 ? run_cpu<float>(o, spec, f32) : run_cpu<double>(o, spec, f64);
    });
}

}  // namespace gemv
