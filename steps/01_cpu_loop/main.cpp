// Step 01: the scalar double loop on row-major A, the yardstick every later step is measured
// against, and the byte-and-flop model that says what any GEMV can hope for.
#include "cpu_step.hpp"
#include "gemv_cpu_loop.hpp"

namespace {

template <class T>
std::vector<gemv::CpuKernel> kernels(const gemv::Options& o, const gemv::HostProblem<T>& p, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    // The loop reads A once and x once per row (from cache, but it is a load all the same).
    return {{"scalar loop", "1 thread", gemv::traffic_x_per_row(m, n),
             [&p, y, m, n] { gemv_cpu_loop(p.A.data(), p.x.data(), y, m, n); }}};
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "01";
    spec.name = "cpu_loop";
    spec.title = "the scalar CPU loop on row-major A";
    spec.default_m = spec.default_n = 2048;
    spec.default_reps = 5;
    return gemv::cpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
