// Copied from solutions/16_several_vectors/gemv_register_blocked.cu by cmake/generate_exercises.py: nothing to fill in here; it is built from exercises/ because it includes register_blocked.cuh
// Step 16's launches: the register-blocked kernel (register_blocked.cuh, the exercise) compiled
// for each group of RegisterGroups, and the instance a plan asks for (compiled.hpp refuses a group
// no instance was compiled for).
#include <stdexcept>

#include "gemv_several.cuh"
#include "register_blocked.cuh"

namespace gemv::several {
namespace {

// The kernel of group G for a layout: column-major, a lane adds up rows_per_lane_col(G) rows;
// row-major, a warp rows_per_warp_for(G).
template <class T, int G>
const void* kernel_for(gemv::Layout layout) {
    if (layout == gemv::Layout::col)
        return reinterpret_cast<const void*>(&register_blocked_col<T, G, rows_per_lane_col(G)>);
    return reinterpret_cast<const void*>(&register_blocked_row<T, G, rows_per_warp_for(G)>);
}

template <class T, int G>
void launch(const Plan& p, gemv::Layout layout, const T* A, const T* X, float* Y, std::int64_t m, std::int64_t n, int k,
            cudaStream_t s) {
    const dim3 grid(unsigned(p.blocks), unsigned(p.slices), unsigned(p.groups));
    if (layout == gemv::Layout::col)
        register_blocked_col<T, G, rows_per_lane_col(G)>
            <<<grid, p.threads, 0, s>>>(A, X, Y, m, n, k, p.per, p.atomic());
    else
        register_blocked_row<T, G, rows_per_warp_for(G)>
            <<<grid, p.threads, 0, s>>>(A, X, Y, m, n, k, p.per, p.atomic());
}

}  // namespace

template <class T>
void gemv_register_blocked(const Plan& p, gemv::Layout layout, const T* A, const T* X, float* Y, std::int64_t m,
                           std::int64_t n, int k, cudaStream_t s) {
    if (p.kernel != Kernel::register_blocked)
        throw std::logic_error("gemv_register_blocked needs a plan from plan_register_blocked");
    if (p.atomic()) GEMV_CUDA_CHECK(cudaMemsetAsync(Y, 0, std::size_t(m) * std::size_t(k) * sizeof(float), s));
    with_compiled(RegisterGroups{}, "vectors a thread", p.group,
                  [&](auto group) { launch<T, decltype(group)::value>(p, layout, A, X, Y, m, n, k, s); });
    GEMV_CUDA_CHECK_LAUNCH();
}

template <class T>
gemv::Launch launch_of(const Plan& p, gemv::Layout layout) {
    gemv::Launch l;
    l.grid = dim3(unsigned(p.blocks), unsigned(p.slices), unsigned(p.groups));
    l.block = dim3(unsigned(p.threads));
    l.kernel = with_compiled(RegisterGroups{}, "vectors a thread", p.group,
                             [&](auto group) { return kernel_for<T, decltype(group)::value>(layout); });
    return l;
}

#define GEMV_STEP16_INSTANCE(T)                                                                                 \
    template void gemv_register_blocked<T>(const Plan&, gemv::Layout, const T*, const T*, float*, std::int64_t, \
                                           std::int64_t, int, cudaStream_t);                                    \
    template gemv::Launch launch_of<T>(const Plan&, gemv::Layout);
GEMV_STEP16_INSTANCE(float)
GEMV_STEP16_INSTANCE(__nv_bfloat16)

}  // namespace gemv::several
