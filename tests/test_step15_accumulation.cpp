// Step 15, without a GPU: why the products of bf16 values are added up in float. The reference is
// computed from the same stored values, so the bound a float sum keeps (n·eps_float·Σ|a·x|) is
// all a correct kernel needs; a sum kept in bf16 loses every product below its last bit once the
// sum has grown, and falls outside that bound on a long row.
#include <vector>

#include "catch_compat.hpp"
#include "random.hpp"
#include "storage.hpp"
#include "verify.hpp"

namespace {

struct Row {
    std::vector<__nv_bfloat16> a, x;
    gemv::Reference ref;
};

// One row of n stored values, its reference in double and its scale.
Row long_row(std::int64_t n) {
    Row r;
    r.ref.y.assign(1, 0.0);
    r.ref.abs_sum.assign(1, 0.0);
    for (std::int64_t j = 0; j < n; ++j) {
        // Positive values: the sum grows steadily, as the sum of a row of weights times activations may.
        r.a.push_back(gemv::narrow<__nv_bfloat16>(0.5 + 0.5 * gemv::random_value(7, 1, std::uint64_t(j))));
        r.x.push_back(gemv::narrow<__nv_bfloat16>(0.5 + 0.5 * gemv::random_value(7, 2, std::uint64_t(j))));
        const double p = double(gemv::widen(r.a.back())) * double(gemv::widen(r.x.back()));
        r.ref.y[0] += p;
        r.ref.abs_sum[0] += p;
    }
    return r;
}

}  // namespace

TEST_CASE("step 15: a float sum of bf16 products keeps the bound; a bf16 sum of a long row does not", "[step15]") {
    const Row r = long_row(4096);
    float in_float = 0;
    __nv_bfloat16 in_bf16 = gemv::narrow<__nv_bfloat16>(0.0);
    for (std::size_t j = 0; j < r.a.size(); ++j) {
        const float p = gemv::widen(r.a[j]) * gemv::widen(r.x[j]);
        in_float += p;
        in_bf16 = gemv::narrow<__nv_bfloat16>(double(gemv::widen(in_bf16)) + double(p));  // each add rounded to bf16
    }
    const auto n = std::int64_t(r.a.size());
    const float bf16_sum = gemv::widen(in_bf16);
    REQUIRE(gemv::verify(&in_float, r.ref, n, gemv::RunsOn::gpu).ok);
    const gemv::Verification v = gemv::verify(&bf16_sum, r.ref, n, gemv::RunsOn::gpu);
    INFO("float sum " << in_float << ", bf16 sum " << bf16_sum << ", reference " << r.ref.y[0]);
    REQUIRE_FALSE(v.ok);
    // Far outside: once the sum passes 256 a product below 1 is lost entirely (bf16 keeps 8 bits).
    REQUIRE(bf16_sum < 0.5 * r.ref.y[0]);
}

TEST_CASE("step 15: every stored format round-trips through float exactly", "[step15]") {
    for (int k = 0; k < 1000; ++k) {
        const double v = gemv::random_value(3, 1, std::uint64_t(k));
        const __nv_bfloat16 b = gemv::narrow<__nv_bfloat16>(v);
        const __half h = gemv::narrow<__half>(v);
        const __nv_fp8_e4m3 e = gemv::narrow<__nv_fp8_e4m3>(v);
        REQUIRE(double(gemv::widen(gemv::narrow<__nv_bfloat16>(double(gemv::widen(b))))) == double(gemv::widen(b)));
        REQUIRE(double(gemv::widen(gemv::narrow<__half>(double(gemv::widen(h))))) == double(gemv::widen(h)));
        REQUIRE(double(gemv::widen(gemv::narrow<__nv_fp8_e4m3>(double(gemv::widen(e))))) == double(gemv::widen(e)));
        // Rounded to nearest: within half a unit of the format's last place.
        REQUIRE(std::abs(double(gemv::widen(b)) - v) <= gemv::Storage<__nv_bfloat16>::unit_roundoff * std::abs(v));
        REQUIRE(std::abs(double(gemv::widen(h)) - v) <= gemv::Storage<__half>::unit_roundoff * std::abs(v) + 0x1.0p-25);
    }
    REQUIRE(double(gemv::widen(gemv::narrow<__nv_fp8_e4m3>(1000.0))) == 448.0);  // saturates, never NaN
}
