// The harness's GPU parts: device facts, the measured ceiling, poisoning, cold-L2 timing, and the
// problem made and checked on the device.
#include <chrono>
#include <cmath>

#include "device_problem.cuh"
#include "support.hpp"

using namespace gemv;

TEST_CASE("the device reports its facts through cudaDeviceGetAttribute", "[harness][gpu]") {
    const DeviceFacts f = query_device();
    REQUIRE_FALSE(f.name.empty());
    REQUIRE(f.sm_count > 0);
    REQUIRE(f.l2_bytes > 0);
    REQUIRE(f.memory_clock_khz > 0);
    REQUIRE(f.bus_width_bits > 0);
    REQUIRE(f.datasheet_gbps() > 0);
    REQUIRE(f.free_bytes <= f.global_bytes);
}

TEST_CASE("the measured read ceiling is positive and does not exceed the datasheet by much", "[harness][gpu]") {
    const DeviceFacts f = query_device();
    const double ceiling = measure_read_ceiling(f, 3);
    REQUIRE(ceiling > 0);
    // A figure above the datasheet means the byte count or the timing is wrong, not a fast GPU.
    REQUIRE(ceiling < 1.05 * f.datasheet_gbps());
}

TEMPLATE_TEST_CASE("poisoning fills the output with NaN", "[harness][gpu]", float, double) {
    query_device();
    DeviceArray<TestType> y(1000);
    y.poison();
    std::vector<TestType> host(1000, TestType(1));
    y.download(host.data());
    for (TestType v : host) REQUIRE(std::isnan(v));
}

TEST_CASE("timing with a cold L2 reports positive medians within [min, max]", "[harness][gpu]") {
    const DeviceFacts f = query_device();
    DeviceArray<float> a(1 << 20);
    const Stats s = time_gpu(
        f, [&](cudaStream_t st) { GEMV_CUDA_CHECK(cudaMemsetAsync(a.data(), 0, a.size() * sizeof(float), st)); }, {}, 1,
        5, true);
    REQUIRE(s.reps == 5);
    REQUIRE(s.min_ms > 0);
    REQUIRE(s.min_ms <= s.median_ms);
    REQUIRE(s.median_ms <= s.max_ms);
}

TEST_CASE("keep_busy launches until its time has passed, and at least once", "[harness][gpu]") {
    query_device();
    int launches = 0;
    const auto start = std::chrono::steady_clock::now();
    keep_busy([&](cudaStream_t) { ++launches; }, 5);
    REQUIRE(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() >= 5);
    REQUIRE(launches >= 1);
    launches = 0;
    keep_busy([&](cudaStream_t) { ++launches; }, 0);
    REQUIRE(launches == 1);
}

TEST_CASE("a problem larger than the GPU's memory is refused as bad input", "[harness][gpu]") {
    const DeviceFacts f = query_device();
    REQUIRE_THROWS_AS(require_device_memory(f, f.global_bytes), UsageError);
    REQUIRE_THROWS_AS(require_int32_indexing(std::uint64_t(1) << 31, "kernel"), UsageError);
    REQUIRE_NOTHROW(require_int32_indexing((std::uint64_t(1) << 31) - 1, "kernel"));
}

TEMPLATE_TEST_CASE("the device problem checks every column of Y for k vectors; vector 0 is the x of k = 1",
                   "[harness][gpu]", float, double) {
    query_device();
    for (auto layout : {Layout::row, Layout::col}) {
        const Shape s{37, 53, layout};
        const int k = 3;
        DeviceProblem<TestType> p(s, 5, k);
        DeviceProblem<TestType> one(s, 5);
        std::vector<TestType> A(std::size_t(s.m * s.n)), X(std::size_t(s.n * k)), x1(std::size_t(s.n));
        GEMV_CUDA_CHECK(cudaMemcpy(A.data(), p.A(), A.size() * sizeof(TestType), cudaMemcpyDeviceToHost));
        GEMV_CUDA_CHECK(cudaMemcpy(X.data(), p.x(), X.size() * sizeof(TestType), cudaMemcpyDeviceToHost));
        GEMV_CUDA_CHECK(cudaMemcpy(x1.data(), one.x(), x1.size() * sizeof(TestType), cudaMemcpyDeviceToHost));
        for (std::int64_t j = 0; j < s.n; ++j) REQUIRE(X[std::size_t(j)] == x1[std::size_t(j)]);

        // Y from the host's reference, column by column: right.
        std::vector<TestType> Y(std::size_t(s.m * k));
        for (int c = 0; c < k; ++c) {
            const Reference ref = compute_reference(A.data(), X.data() + std::size_t(c) * std::size_t(s.n), s);
            for (std::int64_t i = 0; i < s.m; ++i) Y[std::size_t(c * s.m + i)] = TestType(ref.y[std::size_t(i)]);
        }
        const auto upload = [&] {
            GEMV_CUDA_CHECK(cudaMemcpy(p.y(), Y.data(), Y.size() * sizeof(TestType), cudaMemcpyHostToDevice));
        };
        upload();
        REQUIRE(p.count_wrong_elements() == 0);
        // One element of the last column wrong: counted once.
        Y[std::size_t(2 * s.m + 5)] += TestType(1);
        upload();
        REQUIRE(p.count_wrong_elements() == 1);
        // Nothing written: every element of every column.
        p.poison();
        REQUIRE(p.count_wrong_elements() == static_cast<unsigned long long>(s.m * k));
    }
}
