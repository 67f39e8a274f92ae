// Step 02: OpenMP over the rows. The dynamic schedule on a matrix one thread initialised, against
// the static schedule on a matrix each thread first-touched; OpenBLAS beside them where found.
#include <omp.h>

#include <cstdlib>
#include <memory>

#include "cpu_step.hpp"
#include "gemv_cpu_openmp.hpp"
#include "host_array.hpp"

#if GEMV_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

std::string threads_text(const char* schedule) {
    const char* bind = std::getenv("OMP_PROC_BIND");
    return std::to_string(omp_get_max_threads()) + " threads, " + schedule +
           ", OMP_PROC_BIND=" + (bind ? bind : "unset");
}

#if GEMV_HAVE_OPENBLAS
void blas_gemv(const float* A, const float* x, float* y, std::int64_t m, std::int64_t n) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, int(m), int(n), 1.0f, A, int(n), x, 1, 0.0f, y, 1);
}
void blas_gemv(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, int(m), int(n), 1.0, A, int(n), x, 1, 0.0, y, 1);
}
#endif

template <class T>
std::vector<gemv::CpuKernel> kernels(const gemv::Options& o, const gemv::HostProblem<T>& p, T* y) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const auto traffic = gemv::traffic_x_per_row(m, n);
    const std::string which = o.text("variant");
    std::vector<gemv::CpuKernel> ks;
    if (which == "all" || which == "dynamic") {
        // GRNET's first version: A initialised by one thread, so all of it lives where that
        // thread ran; rows are then handed out one at a time.
        auto serial = std::make_shared<gemv::HostArray<T>>(p.A.size());
        for (std::size_t k = 0; k < p.A.size(); ++k) (*serial)[k] = p.A[k];
        ks.push_back({"dynamic, serial init", threads_text("schedule(dynamic)"), traffic,
                      [serial, &p, y, m, n] { gemv_omp_dynamic(serial->data(), p.x.data(), y, m, n); }});
    }
    if (which == "all" || which == "static") {
        // make_problem filled A with schedule(static): each thread first-touched its own rows.
        ks.push_back({"static, first touch", threads_text("schedule(static)"), traffic,
                      [&p, y, m, n] { gemv_omp_static(p.A.data(), p.x.data(), y, m, n); }});
    }
    if (which == "all" || which == "static4") {
        ks.push_back({"static, 4 rows a pass", threads_text("schedule(static)"),
                      gemv::Traffic{double(m) * n, double((m + 3) / 4) * n, double(m)},
                      [&p, y, m, n] { gemv_omp_static_4rows(p.A.data(), p.x.data(), y, m, n); }});
    }
#if GEMV_HAVE_OPENBLAS
    if ((which == "all" || which == "openblas") && m <= INT32_MAX && n <= INT32_MAX) {
        ks.push_back({"OpenBLAS cblas_?gemv", "OpenBLAS's own threads",
                      gemv::Traffic{double(m) * n, double(n), double(m)},
                      [&p, y, m, n] { blas_gemv(p.A.data(), p.x.data(), y, m, n); }});
    }
#else
    if (which == "openblas")
        throw gemv::UsageError("this build has no OpenBLAS (install libopenblas-dev and reconfigure)");
#endif
    return ks;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "02";
    spec.name = "cpu_openmp";
    spec.title = "OpenMP over the rows: dynamic schedule against static schedule with first touch";
    spec.default_m = spec.default_n = 4096;
    spec.default_reps = 5;
    spec.options = {gemv::choice_option("variant", "which kernels to run", "all",
                                        {"all", "dynamic", "static", "static4", "openblas"})};
    return gemv::cpu_step_main(argc, argv, spec, kernels<float>, kernels<double>);
}
