// Step 11's kernel families, one file each, and the compile-time instances the plan picks from.
#pragma once

#include <cstdint>
#include <type_traits>

#include "config.hpp"
#include "storage.hpp"

// The formats every kernel of step 11 is compiled for, the one list: float and double (steps 11
// and 14) and step 15's bf16, fp16 and fp8. The kernel files, the plan and the tuner instantiate
// for these; X is a macro taking the type.
#define GEMV_VERSATILE_FORMATS(X) X(float) X(double) X(__nv_bfloat16) X(__half) X(__nv_fp8_e4m3)

namespace gemv {

// The __global__ function of each family for a vector width, an unroll and a way of loading.
template <class T>
const void* col_kernel(int vector, int unroll, Loads loads);  // column-major, row groups in place
template <class T>
const void* col_short_kernel(int vector,
                             int unroll);  // column-major rows of a few columns: several row groups a thread
template <class T>
const void* col_flat_kernel(int vector, int unroll);  // column-major, few rows, A read as one array
template <class T>
const void* col_tiles_kernel(int m, int unroll);  // column-major, 2 or 3 rows: tiles of whole columns
template <class T>
const void* row_kernel(int vector, int unroll, Loads loads);  // row-major, threads (and blocks) along a row
template <class T>
const void* row_short_kernel(int vector, int unroll);  // row-major, rows of one load: several rows a thread
template <class T>
const void* row_flat_kernel(int vector, int unroll);  // row-major, a block's rows through shared memory
template <class T>
const void* row_tiles_kernel(int n, int unroll);  // row-major, 2 or 3 columns: tiles of whole rows

// Calls pick(V, U), V and U as std::integral_constant, for the run-time vector and unroll: the
// one place that lists which instances exist (V a power of two, V·sizeof(T) at most 16 bytes; U
// 1, 2 or 4, and 8 or 16 where a load is narrower than 16 bytes, as versatile_invalid says).
template <int K>
using Const = std::integral_constant<int, K>;

template <class T, class Pick>
const void* instance_for(int vector, int unroll, Pick pick) {
    const auto with_unroll = [&](auto v) -> const void* {
        switch (unroll) {
            case 1:
                return pick(v, Const<1>{});
            case 2:
                return pick(v, Const<2>{});
            case 4:
                return pick(v, Const<4>{});
            case 8:
                if constexpr (decltype(v)::value * sizeof(T) < 16) return pick(v, Const<8>{});
                break;
            case 16:
                if constexpr (decltype(v)::value * sizeof(T) < 16) return pick(v, Const<16>{});
                break;
        }
        return nullptr;
    };
    switch (vector) {
        case 1:
            return with_unroll(Const<1>{});
        case 2:
            if constexpr (2 * sizeof(T) <= 16) return with_unroll(Const<2>{});
            break;
        case 4:
            if constexpr (4 * sizeof(T) <= 16) return with_unroll(Const<4>{});
            break;
        case 8:  // 16- and 8-bit formats (step 15)
            if constexpr (8 * sizeof(T) <= 16) return with_unroll(Const<8>{});
            break;
        case 16:  // 8-bit formats
            if constexpr (16 * sizeof(T) <= 16) return with_unroll(Const<16>{});
            break;
    }
    return nullptr;
}

// The same with a way of loading in place, pick(V, U, L) with L a LoadsConst: realigned and
// staggered loads exist for 16-byte loads alone.
template <Loads L>
using LoadsConst = std::integral_constant<Loads, L>;

template <class T, class Pick>
const void* instance_for(int vector, int unroll, Loads loads, Pick pick) {
    return instance_for<T>(vector, unroll, [&](auto v, auto u) -> const void* {
        if (loads == Loads::aligned) return pick(v, u, LoadsConst<Loads::aligned>{});
        if constexpr (decltype(v)::value * sizeof(T) == 16) {
            if (loads == Loads::realigned) return pick(v, u, LoadsConst<Loads::realigned>{});
            if (loads == Loads::staggered) return pick(v, u, LoadsConst<Loads::staggered>{});
        }
        return nullptr;
    });
}

// The same for the tiles families: pick(M, U) for M = 2 or 3 elements a column (row) of A and
// U = 1, 2 or 4 tiles in flight.
template <class Pick>
const void* tile_instance_for(std::int64_t elements, int unroll, Pick pick) {
    const auto with_unroll = [&](auto m) -> const void* {
        switch (unroll) {
            case 1:
                return pick(m, Const<1>{});
            case 2:
                return pick(m, Const<2>{});
            case 4:
                return pick(m, Const<4>{});
        }
        return nullptr;
    };
    return elements == 2 ? with_unroll(Const<2>{}) : elements == 3 ? with_unroll(Const<3>{}) : nullptr;
}

// How many kernels the rules above compile, counted from the same rules (the test
// test_step11_host checks every family's instances against these):
//   a (vector, unroll) pair: V·sizeof(T) at most 16 bytes, U 1, 2, 4, and 8, 16 for narrower loads;
//   in place (col, row): every pair aligned, and the 16-byte ones realigned and staggered too;
//   short and flat (col_short, row_short, col_flat, row_flat): every pair;
//   tiles (col_tiles, row_tiles): 2 or 3 elements times U 1, 2, 4.
template <class T>
constexpr int vector_unroll_pairs() {
    int pairs = 0;
    for (int v = 1; v * sizeof(T) <= 16; v *= 2) pairs += v * sizeof(T) < 16 ? 5 : 3;
    return pairs;
}
template <class T>
constexpr int in_place_instances() {
    return vector_unroll_pairs<T>() + 2 * 3;
}
constexpr int kTileInstances = 2 * 3;
template <class T>
constexpr int versatile_instances() {  // of one format, every family
    return 2 * in_place_instances<T>() + 4 * vector_unroll_pairs<T>() + 2 * kTileInstances;
}
#define GEMV_VERSATILE_COUNT(T) +versatile_instances<T>()
// Float 102, double 72, bf16 and fp16 132 each, fp8 162: 600 kernels, 426 of them step 15's.
constexpr int kVersatileInstances = 0 GEMV_VERSATILE_FORMATS(GEMV_VERSATILE_COUNT);
#undef GEMV_VERSATILE_COUNT
static_assert(kVersatileInstances == 600, "the count in the comment above is out of date");

}  // namespace gemv
