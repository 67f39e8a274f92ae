#include "gpu_step.hpp"

#include <iostream>

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

namespace {

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

    std::vector<Result> results;
    bool all_ok = true;
    for (const GpuKernel& k : factory(o, facts, A.data(), x.data(), y.data())) {
        Result r = result_of(spec, o, k.variant);
        r.time = time_gpu(
            facts, k.run, [&](cudaStream_t s) { y.poison(s); }, o.warmup, o.reps, o.cold);
        r.ceiling_gbps = ceiling;
        r.datasheet_gbps = facts.datasheet_gbps();
        r.traffic = k.traffic;
        r.launch = k.launch.kernel ? k.launch.describe() : "library call";
        if (!k.note.empty()) r.launch += "; " + k.note;
        r.occupancy = occupancy_of(k.launch, facts);
        if (o.verify) {
            y.download(y_host.data());  // the last timed launch's output, poisoned before it ran
            const Verification v = verify(y_host.data(), ref, o.shape.n, RunsOn::gpu);
            r.verified = v.ok;
            if (!v.ok) std::cerr << "step " << spec.number << " " << k.variant << ": " << v.message << "\n";
            all_ok &= v.ok;
        }
        results.push_back(r);
    }
    print_results(std::cout, o.format, facts.metadata(), results);
    return all_ok ? kExitOk : kExitWrong;
}

}  // namespace

int gpu_step_main(int argc, const char* const* argv, const StepSpec& spec, const GpuKernels<float>& f32,
                  const GpuKernels<double>& f64) {
    return run_step(argc, argv, spec, [&](const Options& o) {
        return o.precision == Precision::f32 ? run_gpu<float>(o, spec, f32) : run_gpu<double>(o, spec, f64);
    });
}

}  // namespace gemv
