// Step 07, the detour: C = A·B by Greenstreet's brute-force mmult1 and his tiled mmult2 (TILE 8,
// 16, 32), with cuBLAS beside them. Tiling raises CGMA from 1/2 to TILE/2 because each element
// loaded into shared memory is used TILE times; GEMV has no such reuse of A, which is the point.
#include <cublas_v2.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include "cublas_handle.hpp"
#include "gpu_step.hpp"
#include "matmul_check.hpp"
#include "matmul_tiled.cuh"

namespace {

struct MatmulKernel {
    std::string variant;
    int tile = 0;         // mmult2's TILE; 0 for the others
    gemv::Launch launch;  // kernel == nullptr for cuBLAS (no occupancy, no CGMA)
    double accesses = 0;  // global loads and stores, in elements; 0 where unknown (cuBLAS)
    std::function<void(cudaStream_t)> run;
};

struct MatmulResult {
    MatmulKernel kernel;
    gemv::Stats time;
    gemv::OccupancyReport occupancy;
    bool verified = false;
};

// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: cuBLAS gets B first, and every leading
// dimension is a row length.
void cublas_gemm(cublasHandle_t h, const float* A, const float* B, float* C, int m, int n, int k) {
    const float one = 1, zero = 0;
    GEMV_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n));
}
void cublas_gemm(cublasHandle_t h, const double* A, const double* B, double* C, int m, int n, int k) {
    const double one = 1, zero = 0;
    GEMV_CUBLAS_CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n));
}

using gemv::fixed;

std::string launch_text(const MatmulKernel& k) {
    return k.launch.kernel ? k.launch.describe() : "library call";
}

struct Figures {
    double flops, min_bytes;  // 2·m·n·k; A, B and C once
};

// Every field of a row, in one order for CSV and JSON: print_results's names where they mean the same.
gemv::Fields fields(const gemv::Metadata& meta, const gemv::Options& o, std::int64_t k, const Figures& f,
                    const MatmulResult& r) {
    using gemv::number;
    const auto whole = [](double v) { return fixed(v, 0); };  // counts, exact up to 2^53
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const double seconds = r.time.median_ms * 1e-3;
    gemv::Fields row = {{"step", "07", false},
                        {"name", "tiled_matmul", false},
                        {"variant", r.kernel.variant, false},
                        {"tile", std::to_string(r.kernel.tile), true}};
    gemv::append(row, gemv::metadata_fields(meta));
    gemv::append(row, {{"precision", gemv::to_string(o.precision), false},
                       {"layout", "row", false},
                       {"m", std::to_string(m), true},
                       {"n", std::to_string(n), true},
                       {"k", std::to_string(k), true},
                       {"bytes", whole(f.min_bytes), true},
                       {"flops", whole(f.flops), true},
                       {"cache", o.cold ? "cold" : "hot", false},
                       {"reps", std::to_string(r.time.reps), true}});
    gemv::append(row, gemv::time_fields(r.time));
    gemv::append(row, {{"gflops", number(f.flops / seconds / 1e9), true},
                       {"gbps", number(f.min_bytes / seconds / 1e9), true},
                       {"global_accesses", r.kernel.accesses > 0 ? whole(r.kernel.accesses) : "", true},
                       {"cgma", r.kernel.accesses > 0 ? number(matmul_cgma(m, n, k, r.kernel.accesses)) : "", true},
                       {"launch", launch_text(r.kernel), false}});
    gemv::append(row, gemv::occupancy_fields(r.occupancy));
    row.push_back({"verified", gemv::verified_text(o.verify, r.verified), false});
    return row;
}

void print_table(const gemv::Metadata& meta, const gemv::Options& o, std::int64_t k, const Figures& f,
                 const std::vector<MatmulResult>& results) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    std::cout << "step 07 tiled_matmul: " << gemv::to_string(o.precision) << ", C = A*B with A " << m << " x " << k
              << " and B " << k << " x " << n << ", row-major (" << gemv::format_bytes(f.min_bytes)
              << " moved at least), " << (o.cold ? "cold" : "hot") << " cache, median of " << o.reps << "\n"
              << gemv::origin_line(meta) << "\n\n";
    const std::vector<std::string> head = {"variant", "time [us]", "min..max [us]", "GFLOP/s", "GB/s",
                                           "CGMA",    "launch",    "occupancy",     "regs",    "verified"};
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : results) {
        const double seconds = r.time.median_ms * 1e-3;
        const auto& occ = r.occupancy;
        rows.push_back({r.kernel.variant, fixed(r.time.median_ms * 1e3, 1),
                        fixed(r.time.min_ms * 1e3, 1) + ".." + fixed(r.time.max_ms * 1e3, 1),
                        fixed(f.flops / seconds / 1e9, 1), fixed(f.min_bytes / seconds / 1e9, 1),
                        r.kernel.accesses > 0 ? fixed(matmul_cgma(m, n, k, r.kernel.accesses), 3) : "-",
                        launch_text(r.kernel), gemv::occupancy_text(occ),
                        occ.valid ? std::to_string(occ.registers_per_thread) : "-",
                        gemv::verified_text(o.verify, r.verified)});
    }
    gemv::print_columns(std::cout, head, rows, {0, 6, 7});
    std::cout << "\nGFLOP/s counts 2*m*n*k; GB/s counts A, B and C once; CGMA is multiply-adds per global load or store"
                 " the kernel makes.\n"
              << "The lesson: tiling raises CGMA from 1/2 (mmult1) to TILE/2 (mmult2) because every element loaded"
                 " into shared memory is used TILE times. GEMV has no such reuse of A (each a_ij is used once), so its"
                 " CGMA stays below 1 whatever the kernel does: the rest of the ladder is about moving bytes.\n";
}

void print_rows(gemv::Format format, const gemv::Metadata& meta, const gemv::Options& o, std::int64_t k,
                const Figures& f, const std::vector<MatmulResult>& results) {
    std::vector<gemv::Fields> rows;
    for (const auto& r : results) rows.push_back(fields(meta, o, k, f, r));
    gemv::print_fields(std::cout, format, rows);
}

// The bytes of A, B and C (of C alone in c_bytes), refused where they do not fit in 64 bits.
template <class T>
std::uint64_t product_bytes(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t& c_bytes) {
    try {
        c_bytes = gemv::matrix_bytes(m, n, sizeof(T));
        const std::uint64_t ab =
            gemv::checked_add(gemv::matrix_bytes(m, k, sizeof(T)), gemv::matrix_bytes(k, n, sizeof(T)), "A+B");
        return gemv::checked_add(ab, c_bytes, "the bytes of A, B and C");
    } catch (const std::overflow_error& e) {
        throw gemv::UsageError("--m " + std::to_string(m) + " --n " + std::to_string(n) + " --k " + std::to_string(k) +
                               ": " + e.what());
    }
}

// The launches of the chosen kernels: a size or TILE they cannot take is refused before any work.
struct Launches {
    gemv::Launch brute;
    std::vector<int> tiles;
    std::vector<gemv::Launch> tiled;  // one per tile
};

template <class T>
Launches launches_for(const std::string& tile_choice, std::int64_t m, std::int64_t n, std::int64_t k) {
    Launches l;
    l.brute = matmul_brute_force_launch<T>(m, n, k);
    l.tiles = {8, 16, 32};
    if (tile_choice != "all") l.tiles = {std::stoi(tile_choice)};
    for (int t : l.tiles) l.tiled.push_back(matmul_tiled_launch<T>(m, n, k, t));
    return l;
}

// mmult1, mmult2 at each TILE, and cuBLAS, on A, B and C on the device.
template <class T>
std::vector<MatmulKernel> kernels_on(const Launches& l, const T* a, const T* b, T* c, std::int64_t m, std::int64_t n,
                                     std::int64_t k) {
    std::vector<MatmulKernel> kernels;
    const gemv::Launch brute = l.brute;
    kernels.push_back({"mmult1 brute force", 0, brute, matmul_brute_force_accesses(m, n, k),
                       [=](cudaStream_t s) { matmul_brute_force(a, b, c, m, n, k, brute, s); }});
    for (std::size_t i = 0; i < l.tiles.size(); ++i) {
        const int t = l.tiles[i];
        const gemv::Launch tiled = l.tiled[i];
        kernels.push_back({"mmult2 tiled " + std::to_string(t), t, tiled, matmul_tiled_accesses(m, n, k, t),
                           [=](cudaStream_t s) { matmul_tiled(a, b, c, m, n, k, t, tiled, s); }});
    }
    const auto handle = std::make_shared<gemv::CublasHandle>();  // created once, warmed up by the untimed runs
    kernels.push_back({sizeof(T) == 4 ? "cublas sgemm" : "cublas dgemm", 0, gemv::Launch{}, 0, [=](cudaStream_t s) {
                           cublas_gemm(handle->on(s), a, b, c, static_cast<int>(m), static_cast<int>(n),
                                       static_cast<int>(k));
                       }});
    return kernels;
}

template <class T>
int run(const gemv::Options& o) {
    const gemv::DeviceFacts facts = gemv::query_device();
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const std::int64_t k = o.integer_if_set("k").value_or(n);
    std::uint64_t c_bytes = 0;
    const std::uint64_t bytes = product_bytes<T>(m, n, k, c_bytes);
    gemv::require_device_memory(facts, bytes);
    // Host: A, B, C, and the reference's two doubles per element of C.
    gemv::require_host_memory(bytes + c_bytes + (o.verify ? 2 * (c_bytes / sizeof(T)) * sizeof(double) : 0),
                              "this product");
    const Launches launches = launches_for<T>(o.text("tile"), m, n, k);

    const MatmulProblem<T> p = make_matmul_problem<T>(m, n, k, o.seed);
    if (o.verify && static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) > 1e11)
        std::cerr << "computing the double-precision CPU reference (" << m << " x " << n << " x " << k
                  << " multiply-adds); --no-verify skips it\n";
    const gemv::Reference ref = o.verify ? matmul_reference(p) : gemv::Reference{};
    gemv::DeviceArray<T> A(p.A.size()), B(p.B.size()), C(static_cast<std::size_t>(m * n));
    A.upload(p.A.data());
    B.upload(p.B.data());
    const std::vector<MatmulKernel> kernels = kernels_on<T>(launches, A.data(), B.data(), C.data(), m, n, k);

    std::vector<MatmulResult> results;
    std::vector<T> c_host(C.size());
    bool all_ok = true;
    for (const MatmulKernel& kernel : kernels) {
        MatmulResult r;
        r.kernel = kernel;
        r.time = gemv::time_step_line(o, facts, kernel.run, [&](cudaStream_t s) { C.poison(s); });
        r.occupancy = gemv::occupancy_of(kernel.launch, facts);
        if (o.verify) {
            C.download(c_host.data());  // the last timed run's C, poisoned before it ran
            const gemv::Verification v = verify_matmul(c_host.data(), ref, m, n, k);
            r.verified = v.ok;
            if (!v.ok) std::cerr << "step 07 " << kernel.variant << ": " << v.message << "\n";
            all_ok &= v.ok;
        }
        results.push_back(r);
    }

    const Figures f{2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k),
                    static_cast<double>(bytes)};
    if (o.format == gemv::Format::table)
        print_table(facts.metadata(), o, k, f, results);
    else
        print_rows(o.format, facts.metadata(), o, k, f, results);
    return all_ok ? gemv::kExitOk : gemv::kExitWrong;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::StepSpec spec;
    spec.number = "07";
    spec.name = "tiled_matmul";
    spec.title =
        "the detour: C = A*B (A m x k, B k x n), brute-force mmult1 against tiled mmult2 and cuBLAS; "
        "CGMA from 1/2 to TILE/2";
    spec.layouts = {gemv::Layout::row};
    spec.default_m = 1024;
    spec.default_n = 1024;
    spec.options = {
        gemv::integer_option("k", "inner dimension: columns of A, rows of B (default: the same as --n)", std::nullopt,
                             1, INT32_MAX),
        gemv::choice_option("tile", "mmult2's TILE (compiled in)", "all", {"all", "8", "16", "32"}),
    };
    return gemv::run_step(argc, argv, spec, [](const gemv::Options& o) {
        return o.precision == gemv::Precision::f32 ? run<float>(o) : run<double>(o);
    });
}
