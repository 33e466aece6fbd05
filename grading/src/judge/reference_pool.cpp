#include "judge/reference_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace grading {

std::vector<ReferenceSample> ReferencePool::current(const std::string& key, double now, double max_age_s) {
    std::lock_guard<std::mutex> lock(m_);
    std::deque<ReferenceSample>& kept = samples_[key];
    while (!kept.empty() && now - kept.front().taken_s > max_age_s) kept.pop_front();
    return {kept.begin(), kept.end()};
}

size_t ReferencePool::add(const std::string& key, ReferenceSample& s, double drift_bound) {
    std::lock_guard<std::mutex> lock(m_);
    std::deque<ReferenceSample>& kept = samples_[key];
    s.serial = next_serial_++;
    size_t dropped = 0;
    if (!kept.empty()) {
        std::vector<double> ms;
        for (const ReferenceSample& k : kept) ms.push_back(k.run.per_rep_ms());
        const double median = median_value(ms);
        if (median <= 0 || std::fabs(s.run.per_rep_ms() / median - 1) > drift_bound) {
            dropped = kept.size();
            kept.clear();
        }
    }
    kept.push_back(s);
    while (kept.size() > kReferencePoolKeep) kept.pop_front();
    return dropped;
}

bool ReferencePool::fresh_due(const std::string& key, size_t every) {
    std::lock_guard<std::mutex> lock(m_);
    return uses_[key]++ % std::max<size_t>(every, 1) == 0;
}

PooledReference pooled_reference(ReferencePool& pool, const std::string& key, size_t rounds, const std::function<ReferenceSample()>& measure,
                                 const std::function<double()>& now, const ReferencePolicy& policy) {
    PooledReference r;
    std::set<uint64_t> mine;
    std::vector<ReferenceSample> own;
    // Measured outside the pool's lock: the run waits for the GPU alone, which can wait for
    // another lane that waits for the pool.
    auto measure_one = [&](double drift_bound) {
        ReferenceSample s = measure();
        s.taken_s = now();
        pool.current(key, s.taken_s, policy.max_age_s);  // what aged meanwhile is not compared with
        const size_t dropped = pool.add(key, s, drift_bound);
        r.dropped += dropped;
        mine.insert(s.serial);
        own.push_back(s);
        ++r.measured;
    };
    if (pool.fresh_due(key, policy.fresh_every)) measure_one(policy.drift_bound);
    // The samples that fill the pool are all fresh: none is compared with the others.
    std::vector<ReferenceSample> have = pool.current(key, now(), policy.max_age_s);
    while (have.size() < rounds && r.measured <= rounds) {
        measure_one(std::numeric_limits<double>::infinity());
        have = pool.current(key, now(), policy.max_age_s);
    }
    if (have.size() < rounds) have = own;  // (only where samples age faster than they are measured)
    r.used.assign(have.end() - static_cast<std::ptrdiff_t>(rounds), have.end());
    for (const ReferenceSample& s : r.used) r.shared.push_back(!mine.count(s.serial));
    return r;
}

}  // namespace grading
