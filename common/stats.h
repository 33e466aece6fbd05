// Summary statistics of repeated timings. Host-only.
#pragma once
#include <vector>

namespace cudalabs {

struct TimingStats {
    int count = 0;
    double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
};

// Throws std::invalid_argument for an empty sample.
TimingStats summarize(std::vector<double> samples);

}  // namespace cudalabs
