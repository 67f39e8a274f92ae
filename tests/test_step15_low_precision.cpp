// Step 15: the warp-per-row kernel (row-major) and step 11's versatile kernel, in every family, are
// right in bf16, fp16 and fp8 on every awkward shape, both layouts: within the bound of a float
// sum of the stored values. NaN in A reaches y where the reference puts it. cuBLASLt's fp8 matmul, the fp8
// yardstick, is right on decode shapes and refuses the shapes its documented rules exclude.
#include <algorithm>
#include <string>

#include "device_problem.cuh"
#include "gemv_cublaslt_fp8.hpp"
#include "gemv_low_precision.cuh"
#include "gemv_versatile.cuh"
#include "support.hpp"
#include "versatile_families.hpp"

namespace {

template <class T>
std::string what(const gemv_test::Dims& d, gemv::Layout layout) {
    return gemv_test::describe(d, layout, gemv::Storage<T>::name);
}

// Poisons y, runs once, and counts the rows outside the bound.
template <class T>
void require_right(gemv::DeviceProblem<T>& p, std::int64_t m, const std::function<void()>& run,
                   const std::string& what) {
    GEMV_CUDA_CHECK(cudaMemset(p.y(), 0xFF, std::size_t(m) * sizeof(float)));
    run();
    GEMV_CUDA_CHECK(cudaDeviceSynchronize());
    INFO(GEMV_TEST_KERNEL_NOTE);
    INFO(what);
    REQUIRE(p.count_wrong_elements() == 0);
}

template <class T>
gemv::DeviceProblem<T> problem_for(const gemv_test::Dims& d, gemv::Layout layout, std::uint64_t seed) {
    gemv::DeviceProblem<T> p(d.m * d.n, std::max(d.m, d.n), seed);
    p.use(d.m, d.n, layout);
    return p;
}

}  // namespace

TEMPLATE_TEST_CASE("step 15: a warp per row adds up stored values in float on every awkward shape", "[step15][gpu]",
                   __nv_bfloat16, __half, __nv_fp8_e4m3) {
    auto shapes = gemv_test::awkward_shapes();
    shapes.push_back({1000, 4096});  // rows of whole 16-byte loads
    shapes.push_back({3, 1 << 20});  // long rows
    for (const auto& d : shapes) {
        auto p = problem_for<TestType>(d, gemv::Layout::row, 17);
        for (int block : {32, 256}) {
            const gemv::Launch l = gemv_warp_per_row_launch<TestType>(d.m, block);
            require_right<TestType>(
                p, d.m, [&] { gemv_warp_per_row<TestType>(p.A(), p.x(), p.y(), d.m, d.n, l, 0); },
                what<TestType>(d, gemv::Layout::row) + ", block " + std::to_string(block));
        }
    }
}

TEMPLATE_TEST_CASE("step 15: step 11's versatile kernel is right in every family with 8 or 16 elements a load",
                   "[step15][gpu]", __nv_bfloat16, __half, __nv_fp8_e4m3) {
    auto shapes = gemv_test::awkward_shapes();
    for (const gemv_test::Dims d : {gemv_test::Dims{1025, 257}, {65537, 3}, {3, 65537}, {2, 100003}, {4096, 4096}})
        shapes.push_back(d);
    for (auto layout : {gemv::Layout::col, gemv::Layout::row})
        for (const auto& d : shapes) {
            auto p = problem_for<TestType>(d, layout, 23);
            const auto configs = gemv_test::families(layout, d.m, d.n, sizeof(TestType));
            const bool big = d.m * d.n > 100000;
            for (std::size_t k = 0; k < configs.size(); ++k) {
                if (big && k % 5 && k + 1 != configs.size() && configs[k].loads != gemv::Loads::tiles) continue;
                const gemv::VersatileGemv<TestType> gemv(configs[k], layout, d.m, d.n);
                const std::string w =
                    what<TestType>(d, layout) + ", " + describe(configs[k]) + "; " + describe(gemv.plan());
                require_right<TestType>(
                    p, d.m, [&] { gemv(p.A(), p.x(), p.y(), 0); }, w);
                if (configs[k].combine == gemv::Combine::atomic_last ||
                    configs[k].combine == gemv::Combine::last_block)  // the workspace is back at zero
                    require_right<TestType>(
                        p, d.m, [&] { gemv(p.A(), p.x(), p.y(), 0); }, w + ", second run");
            }
        }
}

TEST_CASE("step 15: cuBLASLt's fp8 yardstick is right where it takes the shape and refuses what its rules exclude",
          "[step15][gpu]") {
    using gemv::Layout;
    // Its documented rules (the TN form; 16-byte rows of A; a 16-byte float y), before any GPU is asked.
    CHECK_FALSE(cublaslt_fp8_rules_refusal(Layout::col, 32, 48).empty());
    CHECK_FALSE(cublaslt_fp8_rules_refusal(Layout::row, 32, 40).empty());
    CHECK_FALSE(cublaslt_fp8_rules_refusal(Layout::row, 30, 48).empty());
    CHECK(cublaslt_fp8_rules_refusal(Layout::row, 32, 48).empty());
    CHECK_FALSE(cublaslt_fp8_takes(Layout::col, 32, 4096));
    CHECK_FALSE(cublaslt_fp8_takes(Layout::row, 32, 4097));
    CHECK_THROWS_AS(CublasLtFp8Gemv(Layout::col, 32, 48)(nullptr, nullptr, nullptr, 0), gemv::UsageError);

    cudaDeviceProp prop{};
    GEMV_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const bool has_fp8 = prop.major * 10 + prop.minor >= 89;  // Ada and later
    // Decode shapes, n long enough that the tensor cores' fp8 sums (fewer bits than float between promotions)
    // stay within the float bound; one column of B, with and without a per-tensor scale of 1.
    gemv::DeviceArray<float> one(1);
    const float host_one = 1;
    one.upload(&host_one);
    for (const gemv_test::Dims d : {gemv_test::Dims{32, 4096}, {1024, 4096}, {4096, 14336}}) {
        const std::string w = what<__nv_fp8_e4m3>(d, Layout::row) + ", cuBLASLt";
        for (const float* scale : {static_cast<const float*>(nullptr), static_cast<const float*>(one.data())}) {
            CublasLtFp8Gemv lt(Layout::row, d.m, d.n, scale);
            INFO(w + (scale ? ", scale 1" : "") + ": " + (lt.takes() ? "taken" : lt.refusal()));
            REQUIRE(lt.takes() == has_fp8);  // N = 1 included: the heuristic's answer on a GPU with fp8
            if (!has_fp8) continue;
            auto p = problem_for<__nv_fp8_e4m3>(d, Layout::row, 29);
            require_right<__nv_fp8_e4m3>(
                p, d.m, [&] { lt(p.A(), p.x(), p.y(), 0); }, w);
        }
    }
}
