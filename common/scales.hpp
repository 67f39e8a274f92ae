// The scales fp8 weights are stored with (step 15). e4m3 keeps 4 significant bits and nothing above 448, so a
// model stores a layer's weights divided by a scale and multiplies the product back: one scale for the tensor
// (y = s·(A·x)), one per output row (y = s ⊙ (A·x)), or one per block of 128 columns of a row
// (y_i = Σ_b s_ib · Σ_{j in block b} a_ij·x_j). The scales are float; a problem draws them from its seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "random.hpp"

namespace gemv {

enum class Scales { none, tensor, row, block128 };

// Columns of a row under one block scale: the last block of a row may be partial.
constexpr std::int64_t kScaleBlock = 128;

inline const char* to_string(Scales s) {
    switch (s) {
        case Scales::tensor:
            return "tensor";
        case Scales::row:
            return "row";
        case Scales::block128:
            return "block128";
        default:
            return "none";
    }
}

// Blocks of 128 columns in a row of n: ceil(n/128).
GEMV_HOST_DEVICE inline std::int64_t scale_blocks(std::int64_t n) {
    return (n + kScaleBlock - 1) / kScaleBlock;
}

// The floats an m×n A is stored with: none, one, m, or m·ceil(n/128) (row-major: row i's at i·ceil(n/128)).
GEMV_HOST_DEVICE inline std::int64_t scale_count(Scales s, std::int64_t m, std::int64_t n) {
    switch (s) {
        case Scales::tensor:
            return 1;
        case Scales::row:
            return m;
        case Scales::block128:
            return m * scale_blocks(n);
        default:
            return 0;
    }
}

// Which of them multiplies a_ij (not to be asked without scales).
GEMV_HOST_DEVICE inline std::int64_t scale_index(Scales s, std::int64_t i, std::int64_t j, std::int64_t n) {
    return s == Scales::tensor ? 0 : s == Scales::row ? i : i * scale_blocks(n) + j / kScaleBlock;
}

// Scale k of a problem: 2^e·(1 + f) with e from -8 to 3, so from 2^-8 to 2^4 as the scales of fp8 weights run,
// positive, and far enough apart that a kernel reading its neighbour's scale is out of any bound. Stream 3 of
// the seed (A is 1, x is 2); the same value on the host and the device.
GEMV_HOST_DEVICE inline float random_scale(std::uint64_t seed, std::uint64_t k) {
    const double u = (random_value(seed, 3, k) + 1) * 6;  // [0, 12)
    const int e = static_cast<int>(u);
    return static_cast<float>(ldexp(1 + (u - e), e - 8));
}

// Scales on the device: the mode and scale_count(mode, m, n) floats at values (nullptr for none).
struct DeviceScales {
    Scales mode = Scales::none;
    const float* values = nullptr;
};

}  // namespace gemv
