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

// Evicts the CPU's last-level cache by streaming a buffer twice its size.
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
