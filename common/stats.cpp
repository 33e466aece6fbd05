#include "stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cudalabs {

TimingStats summarize(std::vector<double> samples) {
    if (samples.empty()) throw std::invalid_argument("summarize: no samples");
    std::sort(samples.begin(), samples.end());
    TimingStats s;
    s.count = static_cast<int>(samples.size());
    size_t mid = samples.size() / 2;
    s.median = samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
    s.min = samples.front();
    s.max = samples.back();
    double sum = 0;
    for (double v : samples) sum += v;
    s.mean = sum / s.count;
    double sq = 0;
    for (double v : samples) sq += (v - s.mean) * (v - s.mean);
    s.stddev = s.count > 1 ? std::sqrt(sq / (s.count - 1)) : 0;
    return s;
}

}  // namespace cudalabs
