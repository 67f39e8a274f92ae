// Step 15: the warp-per-row kernel (row-major) and step 11's versatile kernel, in every family, are
// right in bf16, fp16 and fp8 on every awkward shape, both layouts: within the bound of a float
// sum of the stored values. NaN in A reaches y where the reference puts it. cuBLASLt's fp8 matmul, the fp8
// yardstick, is right on decode shapes and refuses the shapes its documented rules exclude. fp8 with scales (per
// tensor, per row, per block of 128 columns): the warp per row within the scaled reference's bound on awkward
// shapes, and a scale of the wrong block is caught; cuBLASLt with a scale per tensor.
#include <algorithm>
#include <string>
#include <vector>

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

// The m × ceil(n/128) block scales of the current problem, on the host, and a device copy of changed ones.
std::vector<float> download_scales(gemv::DeviceProblem<__nv_fp8_e4m3>& p, std::int64_t m, std::int64_t n) {
    std::vector<float> s(std::size_t(gemv::scale_count(gemv::Scales::block128, m, n)));
    GEMV_CUDA_CHECK(cudaMemcpy(s.data(), p.scales().values, s.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return s;
}
gemv::DeviceArray<float> upload(const std::vector<float>& s) {
    gemv::DeviceArray<float> d(s.size());
    d.upload(s.data());
    return d;
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
        if (!has_fp8) continue;
        // A's scale per tensor, a device pointer cuBLASLt reads as it runs: the scaled reference's bound.
        auto p = problem_for<__nv_fp8_e4m3>(d, Layout::row, 41);
        p.use(d.m, d.n, Layout::row, gemv::Scales::tensor);
        CublasLtFp8Gemv lt(Layout::row, d.m, d.n, p.scales().values);
        INFO(w + ", scale per tensor: " + (lt.takes() ? "taken" : lt.refusal()));
        REQUIRE(lt.takes());
        require_right<__nv_fp8_e4m3>(
            p, d.m, [&] { lt(p.A(), p.x(), p.y(), 0); }, w + ", scale per tensor");
    }
}

TEST_CASE("step 15: fp8 with a scale per tensor, per row and per block of 128 columns, on awkward shapes",
          "[step15][gpu]") {
    using gemv::Scales;
    using fp8 = __nv_fp8_e4m3;
    auto shapes = gemv_test::awkward_shapes();
    // n = 128k + 37 (a partial last block, element loads), n < 128 with and without whole 16-byte loads, n a
    // multiple of 16 and not of 128 (16-byte loads, a partial last block), whole blocks; 33 rows.
    for (const std::int64_t n : {128 * 3 + 37, 128 * 32 + 37, 37, 112, 128 * 3 + 16, 4096}) shapes.push_back({33, n});
    shapes.push_back({1000, 4096});
    for (const auto& d : shapes) {
        auto p = problem_for<fp8>(d, gemv::Layout::row, 31);
        for (Scales mode : {Scales::tensor, Scales::row, Scales::block128}) {
            p.use(d.m, d.n, gemv::Layout::row, mode);
            REQUIRE(p.scales().mode == mode);
            for (int block : {32, 256}) {
                const gemv::Launch l = gemv_warp_per_row_launch<fp8>(d.m, block, mode);
                require_right<fp8>(
                    p, d.m, [&] { gemv_warp_per_row<fp8>(p.A(), p.x(), p.y(), d.m, d.n, l, 0, p.scales()); },
                    what<fp8>(d, gemv::Layout::row) + ", scales " + to_string(mode) + ", block " +
                        std::to_string(block));
            }
        }
    }
}

TEST_CASE("step 15: a kernel reading the wrong block's scale, or one scale a row, is outside the bound",
          "[step15][gpu]") {
    using gemv::Scales;
    using fp8 = __nv_fp8_e4m3;
    // Element loads and 16-byte loads, two blocks or more a row.
    for (const gemv_test::Dims d : {gemv_test::Dims{33, 128 * 3 + 37}, {33, 128 * 3 + 16}, {33, 4096}}) {
        auto p = problem_for<fp8>(d, gemv::Layout::row, 37);
        p.use(d.m, d.n, gemv::Layout::row, Scales::block128);
        const std::vector<float> s = download_scales(p, d.m, d.n);
        const std::int64_t blocks = gemv::scale_blocks(d.n);
        // Each block takes its right-hand neighbour's scale (the last the row's first): an index off by one.
        std::vector<float> shifted(s.size()), first(std::size_t(d.m));
        for (std::int64_t i = 0; i < d.m; ++i) {
            for (std::int64_t b = 0; b < blocks; ++b) shifted[i * blocks + b] = s[i * blocks + (b + 1) % blocks];
            first[i] = s[i * blocks];
        }
        const gemv::DeviceArray<float> shifted_d = upload(shifted), first_d = upload(first);
        const std::string w = what<fp8>(d, gemv::Layout::row);
        const auto wrong_rows = [&](Scales mode, const float* values) {
            GEMV_CUDA_CHECK(cudaMemset(p.y(), 0xFF, std::size_t(d.m) * sizeof(float)));
            gemv_warp_per_row<fp8>(p.A(), p.x(), p.y(), d.m, d.n, gemv_warp_per_row_launch<fp8>(d.m, 256, mode), 0,
                                   {mode, values});
            GEMV_CUDA_CHECK(cudaDeviceSynchronize());
            return p.count_wrong_elements();
        };
        INFO(w);
        REQUIRE(wrong_rows(Scales::block128, p.scales().values) == 0);  // the right scales pass
        // Every row but one whose products happen to cancel: the scales are apart by up to 2^12.
        CHECK(wrong_rows(Scales::block128, shifted_d.data()) > std::uint64_t(d.m / 2));
        CHECK(wrong_rows(Scales::row, first_d.data()) > std::uint64_t(d.m / 2));  // the block scales differ
    }
}
