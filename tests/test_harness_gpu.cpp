// The harness's GPU parts: device facts, the measured ceiling, poisoning and cold-L2 timing.
#include <cmath>

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

TEST_CASE("a problem larger than the GPU's memory is refused as bad input", "[harness][gpu]") {
    const DeviceFacts f = query_device();
    REQUIRE_THROWS_AS(require_device_memory(f, f.global_bytes), UsageError);
    REQUIRE_THROWS_AS(require_int32_indexing(std::uint64_t(1) << 31, "kernel"), UsageError);
    REQUIRE_NOTHROW(require_int32_indexing((std::uint64_t(1) << 31) - 1, "kernel"));
}
