// Step 16: the register-blocked kernel is right on the awkward shapes for k = 1 … 256, every group,
// both layouts, float and bf16: every element of Y within the bound of a float sum of the stored
// values.
#include <string>

#include "gemv_several.cuh"
#include "several_vectors.hpp"
#include "several_vectors_support.hpp"

namespace several = gemv::several;

using namespace several_test;

TEMPLATE_TEST_CASE("step 16: the register-blocked kernel is right for every group, shape, layout and k",
                   "[step16][gpu]", float, __nv_bfloat16) {
    const int sms = sm_count();
    for (auto layout : {gemv::Layout::col, gemv::Layout::row})
        for (const auto& d : shapes())
            for (int k : vectors_for(d)) {
                gemv::DeviceProblem<TestType> p(gemv::Shape{d.m, d.n, layout}, 29, k);
                for (int g : several::kRegisterGroups) {
                    if (d.m * d.n >= 1000000 && g != several::register_group_for(k) && g != 1) continue;
                    const several::Plan plan = several::plan_register_blocked(d.m, d.n, k, layout, g, sms);
                    require_right<TestType>(
                        p,
                        [&] {
                            several::gemv_register_blocked<TestType>(plan, layout, p.A(), p.x(), p.y(), d.m, d.n, k, 0);
                        },
                        what<TestType>(d, layout, k,
                                       "register-blocked, " + std::to_string(g) + " vectors a thread, " +
                                           std::to_string(plan.slices) + " slices"));
                }
            }
}
