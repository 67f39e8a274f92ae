// The number formats A and x may be stored in, and what a product of them is added up in. float
// and double add up in their own precision; the 16- and 8-bit formats language models store
// their weights in (bf16, fp16, fp8 e4m3) add up in float: the bytes shrink, the sum does not.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "errors.hpp"
#include "problem.hpp"

#ifdef __CUDACC__
#define GEMV_FORMAT_HOST_DEVICE __host__ __device__
#else
#define GEMV_FORMAT_HOST_DEVICE
#endif

namespace gemv {

template <class T>
struct Storage;  // name, accumulator type, and the unit roundoff of storing a value in T

template <>
struct Storage<float> {
    using accumulator = float;
    static constexpr const char* name = "float";
    static constexpr double unit_roundoff = 0x1.0p-24;
};
template <>
struct Storage<double> {
    using accumulator = double;
    static constexpr const char* name = "double";
    static constexpr double unit_roundoff = 0x1.0p-53;
};
template <>
struct Storage<__nv_bfloat16> {  // float's 8-bit exponent, 8 significant bits
    using accumulator = float;
    static constexpr const char* name = "bf16";
    static constexpr double unit_roundoff = 0x1.0p-8;
};
template <>
struct Storage<__half> {  // 5-bit exponent (largest 65504), 11 significant bits
    using accumulator = float;
    static constexpr const char* name = "fp16";
    static constexpr double unit_roundoff = 0x1.0p-11;
};
template <>
struct Storage<__nv_fp8_e4m3> {  // 4-bit exponent (largest 448), 4 significant bits
    using accumulator = float;
    static constexpr const char* name = "fp8";
    static constexpr double unit_roundoff = 0x1.0p-4;
};

template <>
constexpr Precision precision_of<__nv_bfloat16>() {
    return Precision::bf16;
}
template <>
constexpr Precision precision_of<__half>() {
    return Precision::f16;
}
template <>
constexpr Precision precision_of<__nv_fp8_e4m3>() {
    return Precision::fp8;
}

// What a kernel reading A and x in T adds its products up in, and stores y in.
template <class T>
using accumulator_t = typename Storage<T>::accumulator;

// A stored value in the accumulator's type: exact (every bf16, fp16 and fp8 value is a float).
template <class T>
GEMV_FORMAT_HOST_DEVICE inline accumulator_t<T> widen(T v) {
    return static_cast<accumulator_t<T>>(v);
}

#ifdef __CUDACC__
// Two consecutive fp8 values as floats, through one e4m3x2-to-half2 conversion.
__device__ __forceinline__ float2 widen_pair(const __nv_fp8_e4m3* p) {
    __nv_fp8x2_storage_t two;
    memcpy(&two, p, sizeof two);
    return __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(two, __NV_E4M3)));
}
#endif

#ifdef __CUDACC__
// The 4 / sizeof(T) elements of a narrow format packed in a 32-bit word, the first in its low
// bytes, widened: fp8 two at a time (one e4m3x2-to-half2 conversion a pair), bf16 and fp16 one at a
// time (a move of bits, or one conversion).
template <class T>
__device__ __forceinline__ void widen_word(unsigned word, accumulator_t<T> (&out)[4 / sizeof(T)]) {
    static_assert(sizeof(T) < 4, "a word holds several elements of the narrow formats only");
    if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const auto two = static_cast<__nv_fp8x2_storage_t>(word >> (16 * h));
            const float2 pair = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(two, __NV_E4M3)));
            out[2 * h] = pair.x;
            out[2 * h + 1] = pair.y;
        }
    } else {
        T in[4 / sizeof(T)];
        memcpy(in, &word, sizeof word);
#pragma unroll
        for (int k = 0; k < int(4 / sizeof(T)); ++k) out[k] = widen(in[k]);
    }
}
#endif

#ifdef __CUDACC__
// out[k] = widen(in[k]) for k = 0 … V-1: exact, so the products are the same whichever way it
// widens. fp8 in loads of 8 or 16 elements widens two at a time: one instruction turns a pair into
// two halves (then each half to float), where one element at a time takes that instruction per
// element. At 16 fp8 a 16-byte load the conversions, not the loads, set the pace; in loads of 2 or
// 4 elements pairs measured slower (slides/data/step11/NOTES.md).
template <class T, int V>
__device__ __forceinline__ void widen_all(const T (&in)[V], accumulator_t<T> (&out)[V]) {
    if constexpr (std::is_same_v<T, __nv_fp8_e4m3> && V >= 8) {
#pragma unroll
        for (int k = 0; k < V; k += 2) {
            const float2 pair = widen_pair(in + k);
            out[k] = pair.x;
            out[k + 1] = pair.y;
        }
    } else {
#pragma unroll
        for (int k = 0; k < V; ++k) out[k] = widen(in[k]);
    }
}

// acc[k] += a[k]·x for k = 0 … V-1: V rows of one column times that column's x.
template <class T, int V>
__device__ __forceinline__ void add_scaled(accumulator_t<T> (&acc)[V], const T (&a)[V], accumulator_t<T> x) {
    accumulator_t<T> wide[V];
    widen_all(a, wide);
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] += wide[k] * x;
}

// acc += a[k]·x_wide[k] for k = 0 … V-1, in that order, x already widened. (A name of its own: for
// float and double, T and its accumulator are one type, and an overload of add_products would
// call itself.)
template <class T, int V>
__device__ __forceinline__ void add_products_wide_x(accumulator_t<T>& acc, const T (&a)[V],
                                                    const accumulator_t<T> (&x_wide)[V]) {
    accumulator_t<T> wide[V];
    widen_all(a, wide);
#pragma unroll
    for (int k = 0; k < V; ++k) acc += wide[k] * x_wide[k];
}

// acc += a[k]·x[k] for k = 0 … V-1, in that order.
template <class T, int V>
__device__ __forceinline__ void add_products(accumulator_t<T>& acc, const T (&a)[V], const T (&x)[V]) {
    accumulator_t<T> wide[V];
    widen_all(x, wide);
    add_products_wide_x(acc, a, wide);
}
#endif

// A value rounded to T (to nearest; fp8 saturates at ±448 instead of becoming NaN).
template <class T>
GEMV_FORMAT_HOST_DEVICE inline T narrow(double v) {
    return T(v);
}
template <>
GEMV_FORMAT_HOST_DEVICE inline __nv_bfloat16 narrow<__nv_bfloat16>(double v) {
    return __double2bfloat16(v);
}
template <>
GEMV_FORMAT_HOST_DEVICE inline __half narrow<__half>(double v) {
    return __double2half(v);
}
template <>
GEMV_FORMAT_HOST_DEVICE inline __nv_fp8_e4m3 narrow<__nv_fp8_e4m3>(double v) {
    __nv_fp8_e4m3 r;
    r.__x = __nv_cvt_double_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    return r;
}

// Calls f(T{}) with T the type stored for precision p, one of First, Rest...: the one switch from a
// precision to a type (a program's main, for the precisions it takes); any other is refused.
template <class First, class... Rest, class F>
decltype(auto) with_storage_type_among(Precision p, F&& f) {
    if (p == precision_of<First>()) return f(First{});
    if constexpr (sizeof...(Rest) > 0)
        return with_storage_type_among<Rest...>(p, std::forward<F>(f));
    else
        throw UsageError(std::string("no kernel here is built for ") + to_string(p));
}

// The same for every format the lab stores.
template <class F>
decltype(auto) with_storage_type(Precision p, F&& f) {
    return with_storage_type_among<float, double, __nv_bfloat16, __half, __nv_fp8_e4m3>(p, std::forward<F>(f));
}

}  // namespace gemv
