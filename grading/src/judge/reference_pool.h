// The reference's timing shared by the submissions graded close together on one GPU. A
// performance test compares the student's kernel time with the reference solution's on the same
// GPU; the reference's time does not depend on the student, so the samples measured for one
// submission serve the next ones too, while they are recent and the GPU has not changed: a pool
// per GPU (shared by its lanes) of the reference's timed samples per test and run arguments.
// Every kReferenceFreshEvery-th graded submission adds one fresh sample, so a drift is seen; a
// fresh sample that differs from the pool's median by more than a bound drops the older ones, and
// the reference is measured again. Host-only: the measuring is handed in (unit-tested with fakes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "judge/result.h"
#include "judge/judge.h"

namespace grading {

// A sample is reused at most this long after it was measured (seconds): about twenty submissions
// at the rate lanes grade lab 01, and a pool left by a pause in the class (a build queue, another
// grading run holding the GPU) is measured afresh.
constexpr double kReferenceMaxAgeS = 120;
// A fresh sample more than 5% from the pool's median drops the pool: the reference's run-to-run
// spread on one GPU is about 1% (interleaved rounds gave ratios of 1.000 and 1.005), so 5% is a
// change of the GPU's state (clocks, another process, heat), not noise, and well inside the first
// step of every lab's curve (15%).
constexpr double kReferenceDriftBound = 0.05;
// One fresh sample every second submission of a test on a GPU. A reference run costs what one
// of the student's three timed runs costs (about 1.6 s of lab 01's, with the GPU alone): one per
// submission is a quarter of the time the other lanes wait for, one every second an eighth, one
// every third a tenth. Every second keeps most of the gain while a drift is still seen within
// two submissions (seconds apart), and the maximum age bounds the rest.
constexpr size_t kReferenceFreshEvery = 2;
// The newest samples kept per test (more would only be older).
constexpr size_t kReferencePoolKeep = 16;

// One timed run of the reference, as the pool keeps it.
struct ReferenceSample {
    TimedRun run;        // its kernels in the timed repetitions
    TimedSample sample;  // its time per repetition and the clocks read around it
    PerformanceEvidence figures;  // what its --json said (the copy bandwidth, bytes, flops); no rounds
    double taken_s = 0;  // when it was measured (a steady clock's seconds)
    uint64_t serial = 0; // given by the pool
};

class ReferencePool {
public:
    // The samples of `key` measured at most `max_age_s` before `now`, oldest first (older ones
    // are dropped).
    std::vector<ReferenceSample> current(const std::string& key, double now, double max_age_s);
    // Adds `s` to `key`'s samples. Where its time per repetition differs from the median of those
    // already there by more than `drift_bound` (relative), they are dropped first: returns how
    // many were. `s.serial` is set.
    size_t add(const std::string& key, ReferenceSample& s, double drift_bound);
    // Whether this use of `key` adds a fresh sample: the first use and every `every`-th after it.
    bool fresh_due(const std::string& key, size_t every);

private:
    std::mutex m_;
    std::map<std::string, std::deque<ReferenceSample>> samples_;
    std::map<std::string, size_t> uses_;
    uint64_t next_serial_ = 1;
};

struct ReferencePolicy {
    double max_age_s = kReferenceMaxAgeS;
    double drift_bound = kReferenceDriftBound;
    size_t fresh_every = kReferenceFreshEvery;
};

// What the reference's side of one performance test came to.
struct PooledReference {
    std::vector<ReferenceSample> used;  // `rounds` samples, oldest first
    std::vector<bool> shared;           // per used sample: measured for another submission
    size_t measured = 0;                // samples this test measured
    size_t dropped = 0;                 // older samples its fresh one dropped (a drift)
};

// The reference's samples for one performance test: where a fresh sample is due (fresh_due), one
// measured by `measure` (the reference's timed run, with the GPU alone; it never runs while the
// pool is locked), compared with the pool and added; then, while the pool holds fewer than
// `rounds` samples no older than the maximum age, more are measured. The `rounds` newest are
// used. `now`: a steady clock.
PooledReference pooled_reference(ReferencePool& pool, const std::string& key, size_t rounds, const std::function<ReferenceSample()>& measure,
                                 const std::function<double()>& now, const ReferencePolicy& policy = {});

}  // namespace grading
