// The values of a kernel's compile-time parameter that are compiled (the groups of vectors a
// thread, warp or block keeps), and the one switch from a run-time value (a plan's group) to the
// compiled instance: steps 16 and 17 dispatch through it. A value no instance was compiled for is
// refused (gemv::UsageError naming it and the compiled ones), never mapped to another. Plain C++.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "errors.hpp"

namespace gemv::several {

template <int... Values>
struct Compiled {
    static constexpr int values[] = {Values...};
    static constexpr bool has(int value) { return ((value == Values) || ...); }
    static std::string list() {
        std::string s;
        ((s += (s.empty() ? "" : ", ") + std::to_string(Values)), ...);
        return s;
    }
};

namespace detail {
// f(std::integral_constant<int, V>{}) for the V equal to value, the last one for any other.
template <int First, int... Rest, class F>
decltype(auto) call_with(int value, F&& f) {
    if constexpr (sizeof...(Rest) == 0) {
        return f(std::integral_constant<int, First>{});
    } else {
        if (value == First) return f(std::integral_constant<int, First>{});
        return call_with<Rest...>(value, std::forward<F>(f));
    }
}
}  // namespace detail

// f(std::integral_constant<int, V>{}) for the compiled V equal to value; `what` names the value
// in the error ("vectors a thread").
template <int... Values, class F>
decltype(auto) with_compiled(Compiled<Values...>, const char* what, int value, F&& f) {
    if (!Compiled<Values...>::has(value))
        throw gemv::UsageError(std::string("no kernel compiled for ") + std::to_string(value) + " " + what +
                               " (compiled: " + Compiled<Values...>::list() + ")");
    return detail::call_with<Values...>(value, std::forward<F>(f));
}

}  // namespace gemv::several
