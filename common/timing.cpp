#include "timing.hpp"

#include <unistd.h>
#include <algorithm>
#include <chrono>

namespace gemv {

Stats summarize(std::vector<double> ms) {
    Stats s;
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    const std::size_t k = ms.size();
    s.median_ms = k % 2 ? ms[k / 2] : 0.5 * (ms[k / 2 - 1] + ms[k / 2]);
    s.min_ms = ms.front();
    s.max_ms = ms.back();
    s.reps = static_cast<int>(k);
    return s;
}

std::size_t cpu_uncached_bytes() {
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    std::size_t bytes = std::max<std::size_t>(std::size_t(1) << 30, llc > 0 ? 4 * std::size_t(llc) : 0);
    if (memory > 0) bytes = std::min(bytes, static_cast<std::size_t>(memory / 8));
    return bytes;
}

CpuCacheScrubber::CpuCacheScrubber() : buffer_(cpu_uncached_bytes() / sizeof(double), 1.0) {}

void CpuCacheScrubber::scrub() {
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (std::size_t i = 0; i < buffer_.size(); i += 8) sum += buffer_[i];  // one load per 64-byte line
    sink_ += sum;
}

Stats time_cpu(const std::function<void()>& run, int warmup, int reps, bool cold, const std::function<void()>& before) {
    CpuCacheScrubber scrubber;
    for (int i = 0; i < warmup; ++i) {
        if (before) before();
        run();
    }
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        if (before) before();
        if (cold) scrubber.scrub();
        const auto t0 = std::chrono::steady_clock::now();
        run();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return summarize(ms);
}

}  // namespace gemv
