#include "gpu_step.hpp"

#include <iostream>

#include "device_problem.cuh"
#include "host_array.hpp"
#include "report.hpp"

namespace gemv {

template <class T>
Verification run_and_verify_gpu(const HostProblem<T>& p,
                                const std::function<void(const T*, const T*, T*, cudaStream_t)>& kernel) {
    DeviceArray<T> A(p.A.size()), x(p.x.size()), y(static_cast<std::size_t>(p.shape.m));
    A.upload(p.A.data());
    x.upload(p.x.data());
    y.poison();
    kernel(A.data(), x.data(), y.data(), 0);
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
    HostArray<T> out(y.size());
    y.download(out.data());
    return verify(out.data(), compute_reference(p.A.data(), p.x.data(), p.shape), p.shape.n, RunsOn::gpu);
}

template Verification run_and_verify_gpu<float>(
    const HostProblem<float>&, const std::function<void(const float*, const float*, float*, cudaStream_t)>&);
template Verification run_and_verify_gpu<double>(
    const HostProblem<double>&, const std::function<void(const double*, const double*, double*, cudaStream_t)>&);

Stats time_step_line(const Options& o, const DeviceFacts& facts, const std::function<void(cudaStream_t)>& launch,
                     const std::function<void(cudaStream_t)>& before) {
    if (o.warmup > 0) keep_busy(launch);
    return time_gpu(facts, launch, before, o.warmup, o.reps, o.cold);
}

namespace {

// The rows of a GPU step: each kernel timed (time_step_line; poison() before every run) and, unless
// --no-verify, the last timed run's output checked (check() is "" where it is right, else what is
// wrong); printed, then kExitOk, or kExitWrong where one was wrong.
int time_check_report(const Options& o, const StepSpec& spec, const DeviceFacts& facts, double ceiling,
                      const std::vector<GpuKernel>& kernels, const std::function<void(cudaStream_t)>& poison,
                      const std::function<std::string()>& check, int vectors = 1, const AfterTable& after_table = {}) {
    std::vector<Result> results;
    bool all_ok = true;
    for (const GpuKernel& k : kernels) {
        Result r = result_of(spec, o, k.variant);
        r.vectors = vectors;
        r.time = time_step_line(o, facts, k.run, poison);
        r.ceiling_gbps = ceiling;
        r.datasheet_gbps = facts.datasheet_gbps();
        r.traffic = k.traffic;
        r.launch = k.launch.kernel ? k.launch.describe() : "library call";
        if (!k.note.empty()) r.launch += "; " + k.note;
        r.occupancy = occupancy_of(k.launch, facts);
        if (k.figures) r.extra = k.figures(r);
        if (o.verify) {
            const std::string wrong = check();
            r.verified = wrong.empty();
            if (!r.verified) std::cerr << "step " << spec.number << " " << k.variant << ": " << wrong << "\n";
            all_ok &= r.verified;
        }
        results.push_back(r);
    }
    print_results(std::cout, o.format, facts.metadata(), results);
    if (after_table && o.format == Format::table) after_table(std::cout, facts, results);
    return all_ok ? kExitOk : kExitWrong;
}

template <class T>
int run_gpu(const Options& o, const StepSpec& spec, const GpuKernels<T>& factory) {
    DeviceFacts facts = query_device();
    const std::uint64_t bytes = model_bytes(o.shape.m, o.shape.n, sizeof(T));
    require_device_memory(facts, bytes);
    require_host_memory(bytes + static_cast<std::uint64_t>(o.shape.m) * 24, "this problem");

    const double ceiling = measure_read_ceiling(facts);
    const HostProblem<T> p = make_problem<T>(o.shape, o.seed);
    const Reference ref = o.verify ? compute_reference(p.A.data(), p.x.data(), o.shape) : Reference{};
    DeviceArray<T> A(p.A.size()), x(p.x.size()), y(static_cast<std::size_t>(o.shape.m));
    A.upload(p.A.data());
    x.upload(p.x.data());
    HostArray<T> y_host(y.size());
    const auto check = [&] {
        y.download(y_host.data());  // the last timed launch's output, poisoned before it ran
        const Verification v = verify(y_host.data(), ref, o.shape.n, RunsOn::gpu);
        return v.ok ? std::string() : v.message;
    };
    return time_check_report(
        o, spec, facts, ceiling, factory(o, facts, A.data(), x.data(), y.data()), [&](cudaStream_t s) { y.poison(s); },
        check);
}

}  // namespace

int gpu_step_main(int argc, const char* const* argv, const StepSpec& spec, const GpuKernels<float>& f32,
                  const GpuKernels<double>& f64) {
    return run_step(argc, argv, spec, [&](const Options& o) {
        return o.precision == Precision::f32 ? run_gpu<float>(o, spec, f32) : run_gpu<double>(o, spec, f64);
    });
}

template <class T>
int run_device_problem_step(const Options& o, const StepSpec& spec, const DeviceKernels<T>& kernels, int vectors,
                            const AfterTable& after_table) {
    DeviceFacts facts = query_device();
    require_device_memory(facts, DeviceProblem<T>::bytes(o.shape, vectors));
    const double ceiling = measure_read_ceiling(facts);
    DeviceProblem<T> problem(o.shape, o.seed, vectors);  // filled and checked on the GPU
    const auto check = [&] {
        const unsigned long long wrong = problem.count_wrong_elements();  // the last timed run's Y
        if (!wrong) return std::string();
        const std::int64_t elements = o.shape.m * vectors;
        return std::to_string(wrong) + " of " + std::to_string(elements) + (vectors == 1 ? " rows" : " elements of Y") +
               " outside the bound of a " + Storage<accumulator_t<T>>::name + " sum of the stored values";
    };
    return time_check_report(
        o, spec, facts, ceiling, kernels(o, facts, problem), [&](cudaStream_t s) { problem.poison(s); }, check, vectors,
        after_table);
}

template int run_device_problem_step<float>(const Options&, const StepSpec&, const DeviceKernels<float>&, int,
                                            const AfterTable&);
template int run_device_problem_step<double>(const Options&, const StepSpec&, const DeviceKernels<double>&, int,
                                             const AfterTable&);
template int run_device_problem_step<__nv_bfloat16>(const Options&, const StepSpec&,
                                                    const DeviceKernels<__nv_bfloat16>&, int, const AfterTable&);
template int run_device_problem_step<__half>(const Options&, const StepSpec&, const DeviceKernels<__half>&, int,
                                             const AfterTable&);
template int run_device_problem_step<__nv_fp8_e4m3>(const Options&, const StepSpec&,
                                                    const DeviceKernels<__nv_fp8_e4m3>&, int, const AfterTable&);

}  // namespace gemv
