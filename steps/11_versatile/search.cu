#include "search.cuh"

#include <cmath>
#include <set>
#include <string>

#include "kernels/versatile_kernels.cuh"
#include "resolve.hpp"
#include "shape_rules.hpp"

template <class T>
double time_config(gemv::DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                   std::int64_t n, const gemv::VersatileConfig& c, int reps, bool verify) {
    const gemv::VersatileGemv<T> gemv(c, layout, m, n);
    return p.verified_median_ms(
        f, [&](cudaStream_t s) { gemv(p.A(), p.x(), p.y(), s); }, 1, reps, "step 11 (" + describe(c) + ")", verify);
}

// The tuner's candidates at this shape, each split row followed by the same split in one wave of
// the blocks its kernel holds on this GPU (gemv_versatile.cuh): the candidates' waves count blocks
// at full occupancy.
template <class T>
std::vector<gemv::VersatileConfig> candidates_here(const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                                                   std::int64_t n) {
    std::vector<gemv::VersatileConfig> out;
    std::set<std::string> seen;
    const auto add = [&](const gemv::VersatileConfig& c) {
        if (seen.insert(describe(c)).second) out.push_back(c);
    };
    for (const gemv::VersatileConfig& c :
         gemv::candidate_configs(gemv::kernel_layout(layout, m, n), m, n, sizeof(T), gemv::gpu_size(f))) {
        add(c);
        if (const auto one_wave = gemv::split_in_one_wave<T>(c, f, layout, m, n)) add(*one_wave);
    }
    return out;
}

template <class T>
Candidate search_best(gemv::DeviceProblem<T>& p, const gemv::DeviceFacts& f, gemv::Layout layout, std::int64_t m,
                      std::int64_t n, int reps, std::map<gemv::Loads, Candidate>* by_loads) {
    Candidate best;
    best.ms = INFINITY;
    for (const gemv::VersatileConfig& c : candidates_here<T>(f, layout, m, n)) {
        const double first = time_config(p, f, layout, m, n, c, 1, true);  // verified before it is timed
        if (first > 1.15 * best.ms) continue;  // clearly slower: not worth the full measurement
        const double ms = time_config(p, f, layout, m, n, c, reps, false);
        if (ms < best.ms) best = {c, ms};
        if (by_loads && (!by_loads->count(c.loads) || ms < (*by_loads)[c.loads].ms)) (*by_loads)[c.loads] = {c, ms};
    }
    return best;
}

#define INSTANCE(T)                                                                                                  \
    template double time_config<T>(gemv::DeviceProblem<T>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t,    \
                                   std::int64_t, const gemv::VersatileConfig&, int, bool);                           \
    template Candidate search_best<T>(gemv::DeviceProblem<T>&, const gemv::DeviceFacts&, gemv::Layout, std::int64_t, \
                                      std::int64_t, int, std::map<gemv::Loads, Candidate>*);
GEMV_VERSATILE_FORMATS(INSTANCE)
#undef INSTANCE
