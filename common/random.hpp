// The lab's pseudo-random inputs, one definition for the host and the device: value k of stream
// s for a seed, in [-1, 1), the same on every run, thread count and processor.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define GEMV_HOST_DEVICE __host__ __device__
#else
#define GEMV_HOST_DEVICE
#endif

namespace gemv {

// splitmix64: a well-mixed 64-bit hash, cheap enough to call once per element.
GEMV_HOST_DEVICE inline std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Seeded value in [-1, 1) for position k of stream s: never a constant, never all zeros. A is
// stream 1, x stream 2.
GEMV_HOST_DEVICE inline double random_value(std::uint64_t seed, std::uint64_t stream, std::uint64_t k) {
    const std::uint64_t bits = mix(mix(seed ^ (stream * 0xd1b54a32d192ed03ULL)) + k);
    return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;  // 53 random bits onto [-1, 1)
}

}  // namespace gemv
