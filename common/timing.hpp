// Medians, minima and maxima of repeated timings, and the CPU's steady-clock timer.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace gemv {

struct Stats {
    double median_ms = 0;
    double min_ms = 0;
    double max_ms = 0;
    int reps = 0;
};

Stats summarize(std::vector<double> ms);

// Bytes that no cache holds: four times the last-level cache (as the system reports it; a virtual
// machine may report its host's, or one socket's of several) and at least 1 GiB, at most an eighth
// of the memory. The CPU ceiling reads a buffer this large, and a cold run scrubs as many bytes,
// so that a kernel's matrix is no warmer than the ceiling's buffer.
std::size_t cpu_uncached_bytes();

// Evicts the CPU's caches by streaming cpu_uncached_bytes().
class CpuCacheScrubber {
public:
    CpuCacheScrubber();
    void scrub();

private:
    std::vector<double> buffer_;
    double sink_ = 0;
};

// warmup untimed calls, then reps timed ones (each after a scrub when cold, and after before()).
Stats time_cpu(const std::function<void()>& run, int warmup, int reps, bool cold,
               const std::function<void()>& before = {});

}  // namespace gemv
