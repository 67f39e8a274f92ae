// Step 17: every kernel that keeps 8·T vectors, and the chooser's pick, is right on the awkward
// shapes for k = 1 … 256, both layouts: every element of Y within the bound of a float sum of the
// stored values. The tensor cores (bf16) where the GPU has bf16 MMA (compute capability 8.0 or
// later), the bulk kernel where it runs (9.0, built for sm_90a); the staged FMA kernel in float.
#include <string>
#include <vector>

#include "chooser.hpp"
#include "gemv_tensor.cuh"
#include "several_vectors_support.hpp"

namespace several = gemv::several;

using namespace several_test;

namespace {

int cc_major() {
    int id = 0, major = 0;
    GEMV_CUDA_CHECK(cudaGetDevice(&id));
    GEMV_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, id));
    return major;
}

}  // namespace

// The cases of the kernels that keep 8·T vectors (the tensor-core kernels in bf16, the staged FMA
// kernel in float, each with its own groups): every shape of `dims` (the awkward ones unless
// given), both layouts, every k, with every group that k fills more than half of (and 8 always):
// check(layout, d, k, g, problem).
template <class T, class Groups, class Check>
void for_each_tiled_case(std::uint64_t seed, const Groups& groups, Check check,
                         const std::vector<gemv_test::Dims>& dims = shapes()) {
    if (cc_major() < 8) {  // bf16 MMA, and the staged kernels' cp.async
        WARN("these kernels need compute capability 8.0: nothing to check on this GPU");
        return;
    }
    for (auto layout : {gemv::Layout::col, gemv::Layout::row})
        for (const auto& d : dims)
            for (int k : vectors_for(d)) {
                gemv::DeviceProblem<T> p(gemv::Shape{d.m, d.n, layout}, seed, k);
                for (int g : groups) {
                    if (!several::group_half_filled(g, k)) continue;
                    check(layout, d, k, g, p);
                }
            }
}

TEST_CASE("step 17: the tensor-core kernel is right for every group, shape, layout and k", "[step17][gpu]") {
    const int sms = sm_count();
    for_each_tiled_case<__nv_bfloat16>(
        31, several::kTensorGroups, [&](gemv::Layout layout, const gemv_test::Dims& d, int k, int g, auto& p) {
            const several::Plan plan = several::plan_tensor_cores(d.m, d.n, k, layout, g, sms);
            require_right<__nv_bfloat16>(
                p, [&] { several::gemv_tensor_cores(plan, layout, p.A(), p.x(), p.y(), d.m, d.n, k, 0); },
                what<__nv_bfloat16>(d, layout, k,
                                    "tensor cores, " + std::to_string(g) + " vectors a warp, " +
                                        std::to_string(plan.slices) + " slices"));
        });
}

TEST_CASE("step 17: the staged tensor-core kernel is right for every group, shape, layout and k", "[step17][gpu]") {
    const int sms = sm_count();
    for_each_tiled_case<__nv_bfloat16>(
        41, several::kTensorGroups, [&](gemv::Layout layout, const gemv_test::Dims& d, int k, int g, auto& p) {
            // The plan's slices, and many more (as on a GPU with many more SMs): both the stored and
            // the added partial sums.
            for (const several::Plan& plan : {several::tensor_staged_plan(d.m, d.n, k, layout, g, sms),
                                              several::plan_tensor_staged(d.m, d.n, k, layout, g, sms, 64)}) {
                require_right<__nv_bfloat16>(
                    p, [&] { several::gemv_tensor_staged(plan, layout, p.A(), p.x(), p.y(), d.m, d.n, k, 0); },
                    what<__nv_bfloat16>(d, layout, k,
                                        "tensor cores, staged, " + std::to_string(g) + " vectors a block, " +
                                            std::to_string(plan.slices) + " slices"));
            }
        });
}

TEST_CASE("step 17: the bulk tensor-core kernel is right for every group, shape, layout and k", "[step17][gpu]") {
    if (!several::tensor_bulk_runs_here()) {
        WARN("the bulk kernel runs on compute capability 9.0, built for sm_90a: nothing to check on this GPU");
        return;
    }
    const int sms = sm_count();
    // Shapes it takes (bulk_fits): a chunk cut at the end (2120, 1000: of 128 columns, and of 64
    // from kBulkWide vectors), n at the least (256), few rows and a block of rows and a bit, m odd
    // where A is row-major.
    const std::vector<gemv_test::Dims> dims = {{1000, 4096}, {264, 2120}, {136, 1000},
                                               {8, 256},     {3, 4104},   {4097, 264}};
    for_each_tiled_case<__nv_bfloat16>(
        47, several::kBulkGroups,
        [&](gemv::Layout layout, const gemv_test::Dims& d, int k, int g, auto& p) {
            if (!several::bulk_fits(layout, d.m, d.n)) return;
            // The plan's slices, and many more (as on a GPU with many more SMs); every cluster, the
            // blocks of rows rounded up to it.
            for (int s : {sms, 64 * sms})
                for (int c : several::kBulkClusters) {
                    const several::Plan plan = several::plan_tensor_bulk(d.m, d.n, k, layout, g, s, c);
                    require_right<__nv_bfloat16>(
                        p, [&] { several::gemv_tensor_bulk(plan, layout, p.A(), p.x(), p.y(), d.m, d.n, k, 0); },
                        what<__nv_bfloat16>(d, layout, k,
                                            "tensor cores, bulk, " + std::to_string(g) + " vectors a block, " +
                                                std::to_string(plan.slices) + " slices, clusters of " +
                                                std::to_string(c)));
                }
        },
        dims);
}

TEST_CASE("step 17: the staged FMA kernel is right for every group, shape, layout and k", "[step17][gpu]") {
    const int sms = sm_count();
    for_each_tiled_case<float>(
        43, several::kFmaGroups, [&](gemv::Layout layout, const gemv_test::Dims& d, int k, int g, auto& p) {
            // The plan's slices and many more; X where it lies and packed, whatever the plan says (the
            // 4-byte and the 16-byte reads of X where n is not a multiple of 4).
            // Every chunks the kernel has for the layout and group, whatever fma_chunks says of the shape:
            // narrow, few rows, and row-major with up to 32 vectors a block wide.
            using several::FmaChunks;
            for (FmaChunks chunks : {FmaChunks::narrow, FmaChunks::wide, FmaChunks::few_rows}) {
                if (chunks == FmaChunks::wide && !several::fma_wide_compiled(layout, g)) continue;
                for (int blocks_per_sm : {several::fma_staged_blocks_per_sm(g, layout, chunks), 64})
                    for (bool pack : {false, true}) {
                        several::Plan plan =
                            several::plan_fma_staged(d.m, d.n, k, layout, g, sms, blocks_per_sm, chunks);
                        plan.pack_x = pack;
                        require_right<float>(
                            p, [&] { several::gemv_fma_staged(plan, layout, p.A(), p.x(), p.y(), d.m, d.n, k, 0); },
                            what<float>(d, layout, k,
                                        "FMA, staged, " + std::to_string(g) + " vectors a block, " +
                                            std::to_string(plan.slices) + " slices" + (pack ? ", X packed" : "") +
                                            ", " + several::to_string(chunks)));
                    }
            }
        });
}

TEMPLATE_TEST_CASE("step 17: the chooser's pick is right, run twice on the same Y", "[step17][gpu]", float,
                   __nv_bfloat16) {
    const gemv::DeviceFacts facts = gemv::query_device();
    for (auto layout : {gemv::Layout::col, gemv::Layout::row})
        for (const gemv_test::Dims d : {gemv_test::Dims{997, 1009}, {4097, 33}, {3, 100003}, {264, 2120}})
            for (int k : kVectors) {
                gemv::DeviceProblem<TestType> p(gemv::Shape{d.m, d.n, layout}, 37, k);
                const several::Chosen chosen =
                    several::choose_by_timing<TestType>(facts, layout, p.A(), p.x(), p.y(), d.m, d.n, k);
                REQUIRE(chosen.plans.size() == several::candidates(gemv::precision_of<TestType>(), k, layout,
                                                                   facts.cc_major, d.m, d.n,
                                                                   several::tensor_bulk_runs_here())
                                                   .size());
                // At k = 1 step 11's versatile kernel is timed too, its launch after the plans'.
                REQUIRE(chosen.versatile.has_value() == several::chooser_times_versatile(k));
                if (chosen.versatile) {  // its plan, for the report, is the problem's
                    REQUIRE(chosen.versatile->plan.m == d.m);
                    REQUIRE(chosen.versatile->plan.n == d.n);
                }
                REQUIRE(chosen.launches.size() == chosen.plans.size() + (chosen.versatile ? 1 : 0));
                REQUIRE(chosen.fastest < chosen.launches.size());
                const auto run = [&] { chosen.launches[chosen.fastest](0); };
                const std::string w = what<TestType>(
                    d, layout, k,
                    std::string("chosen: ") + (chosen.fastest < chosen.plans.size()
                                                   ? several::to_string(chosen.plans[chosen.fastest].kernel)
                                                   : "step 11's versatile kernel"));
                require_right<TestType>(p, run, w);
                require_right<TestType>(p, run, w + ", second run");  // zeroing Y is part of every run
            }
}
