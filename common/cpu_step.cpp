#include "cpu_step.hpp"

#include <omp.h>
#include <unistd.h>
#include <algorithm>
#include <iostream>

#include "host_array.hpp"
#include "timing.hpp"

namespace gemv {

void require_host_memory(std::uint64_t bytes, const char* what) {
    const double total = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (total > 0 && static_cast<double>(bytes) > 0.75 * total)
        throw UsageError(std::string(what) + " needs " + format_bytes(static_cast<double>(bytes)) +
                         " of host memory; this machine has " + format_bytes(total));
}

namespace {

constexpr std::size_t kStreams = 8, kLanes = 16;

// Sums len floats from each of kStreams streams len apart, with independent vector sums.
float read_streams(const float* p, std::size_t len) {
    float part[kStreams][kLanes] = {};
    for (std::size_t i = 0; i < len; i += kLanes)
        for (std::size_t s = 0; s < kStreams; ++s)
#pragma omp simd
            for (std::size_t l = 0; l < kLanes; ++l) part[s][l] += p[s * len + i + l];
    float sum = 0;
    for (const auto& row : part)
        for (float v : row) sum += v;
    return sum;
}

}  // namespace

double measure_cpu_read_ceiling(int reps) {
    // Each thread reads its share as kStreams interleaved streams: a single stream per thread
    // leaves the hardware prefetchers, and so the memory, under-used.
    const std::size_t threads = static_cast<std::size_t>(omp_get_max_threads());
    const std::size_t len = (std::size_t(512) << 20) / sizeof(float) / threads / kStreams / kLanes * kLanes;
    const std::size_t share = len * kStreams;
    HostArray<float> buffer(share * threads);
#pragma omp parallel num_threads(static_cast <int>(threads))
    {
        float* p = buffer.data() + static_cast<std::size_t>(omp_get_thread_num()) * share;
        std::fill(p, p + share, 1.0f);  // first touch by the thread that reads it
    }
    float sink = 0;
    const Stats t = time_cpu(
        [&] {
            float sum = 0;
#pragma omp parallel num_threads(static_cast <int>(threads)) reduction(+ : sum)
            sum += read_streams(buffer.data() + static_cast<std::size_t>(omp_get_thread_num()) * share, len);
            sink += sum;
        },
        1, reps, false);
    if (sink == 0.5f) std::cerr << "";  // keeps the sums alive
    return static_cast<double>(buffer.size() * sizeof(float)) / (t.median_ms * 1e6);
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
    const double ceiling = measure_cpu_read_ceiling();
    const HostProblem<T> p = make_problem<T>(o.shape, o.seed);
    HostArray<T> y(static_cast<std::size_t>(o.shape.m));
    const Reference ref = o.verify ? compute_reference(p.A.data(), p.x.data(), o.shape) : Reference{};

    std::vector<Result> results;
    bool all_ok = true;
    for (const CpuKernel& k : factory(o, p, y.data())) {
        const auto poison = [&] { std::fill(y.begin(), y.end(), poison_value<T>()); };
        Result r = result_of(spec, o, k.variant);
        r.time = time_cpu(k.run, o.warmup, o.reps, o.cold, poison);
        r.ceiling_gbps = ceiling;
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
