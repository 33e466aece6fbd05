// Lab 06's CPU reference, host-memory budget and bar chart. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>

// y = 2x + 1 (exact in float up to one rounding: 2x is exact).
inline void transform_reference(const float* x, float* y, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] = 2.0f * x[i] + 1.0f;
}

// Host memory one case of the lab holds at once for n floats: input, output, expected and a
// pinned or registered pair.
inline double host_bytes_needed(long long n) { return 5.0 * 4.0 * static_cast<double>(n); }

// Why n floats cannot run on a host with `ram_bytes` of memory, or "" when they can: pinned pages
// cannot be swapped out, so the lab keeps to half of the RAM. ram_bytes <= 0: unknown, allowed.
inline std::string host_memory_problem(long long n, double ram_bytes) {
    const double need = host_bytes_needed(n);
    if (ram_bytes <= 0 || need <= 0.5 * ram_bytes) return "";
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "N = %lld needs %.1f GiB of host memory (five arrays, two of them pinned), more "
                  "than half of this machine's %.1f GiB: pinned pages cannot be swapped out, so ask "
                  "for less", n, need / 1073741824.0, ram_bytes / 1073741824.0);
    return buf;
}

// A bar of `width` cells: `value` of `max` filled with '#', the rest with ' '.
inline std::string bar(double value, double max, size_t width) {
    size_t filled = 0;
    if (max > 0 && value > 0) {
        double cells = value / max * static_cast<double>(width) + 0.5;
        filled = cells >= static_cast<double>(width) ? width : static_cast<size_t>(cells);
        if (filled == 0) filled = 1;  // a measured value is never drawn as nothing
    }
    return std::string(filled, '#') + std::string(width - filled, ' ');
}
