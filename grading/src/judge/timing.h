// How much a performance score can be trusted: each timed run between two readings of the GPU's
// clocks, run again while the GPU was throttled for power or heat; a percentile bootstrap of the
// rounds' ratios, mapped through the test's curve to an interval of points; and the
// lines that tell the student. The score itself is judge_performance's, unchanged. Host-only:
// unit-tested with g++ (the clocks from a fake reader).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "judge/result.h"
#include "intake/rubric.h"
#include "judge/judge.h"
#include "runs/timing_gate.h"
#include "gpu/gpu_clocks.h"

namespace grading {

// How many times one side of a round is run again while the GPU was throttled for power or heat.
constexpr int kMaxThrottleReruns = 2;
constexpr int kBootstrapResamples = 2000;
constexpr double kIntervalConfidence = 0.95;

// How a timed process is run: `timed(process)` runs it with the GPU alone for its timed
// repetitions, the clocks read around them.
using TimedProcess = std::function<void(const GatedRun& process)>;
// How the GPU is had alone for a timed process: `alone(process, on_alone, on_done)` runs it, and
// calls `on_alone` once the GPU is alone for its timed part (again where the process is made
// again), `on_done` when that part is over, before the GPU is shared again.
using AloneTurn =
    std::function<void(const GatedRun& process, const std::function<void()>& on_alone, const std::function<void()>& on_done)>;
// One attempt at one side of a round: it hands its timed process to `timed` (which reads the
// clocks around it, with the GPU alone), then judges what it sent -- the verifier runs after the
// GPU is shared again. Returns false when the run cannot be timed; sets `ms_per_rep`.
using TimedAttempt = std::function<bool(double& ms_per_rep, const TimedProcess& timed)>;

// Runs `run`, its timed process between two readings of `clocks` inside `alone`; while either
// reading shows the GPU throttled for power or heat, and fewer than kMaxThrottleReruns reruns
// were made, runs it again. Each attempt is appended to `samples` (the last one kept); `run`
// returns false when its run cannot be timed (then it is not run again: the caller scores that).
// Returns what the last `run` returned. (A process handed to `timed` twice -- made again because
// its output was lost -- has the readings of its last run.)
bool sample_between_clock_readings(ClockReader& clocks, int round, bool reference, const AloneTurn& alone, const TimedAttempt& run,
                                   std::vector<TimedSample>& samples);

// A performance test's student samples, one a round, from the attempts at its one timed process
// (sample_between_clock_readings: the last one kept) and the rounds its repetitions were split
// into: the attempts set aside as they are, the kept one once a round, with that round's time
// (its clocks and attempt the process's). With no rounds, the attempts as they are.
std::vector<TimedSample> round_samples(const std::vector<TimedSample>& attempts, const std::vector<TimedRun>& rounds);

struct BootstrapInterval {
    double low = 0, high = 0;
};
// The percentile-bootstrap interval of the median of `ratios` (the median as judge_performance
// takes it): `resamples` resamples drawn with replacement from a generator seeded with `seed`
// (so that a rerun gives the same interval), the (1-confidence)/2 and (1+confidence)/2 quantiles
// of their medians, widened where needed to hold the median itself. One ratio: that ratio.
BootstrapInterval bootstrap_median_interval(const std::vector<double>& ratios, unsigned long long seed,
                                            int resamples = kBootstrapResamples, double confidence = kIntervalConfidence);

// The percentile-bootstrap interval of median(student) / median(reference), each side resampled
// with replacement on its own (the reference's samples are pooled, no pairs of the student's
// rounds), so the interval reflects the spread of both: two gradings of the same program close
// together overlap. Drawn, quantiled and widened to hold `point` (the score's figure) as
// bootstrap_median_interval is. One sample on each side: `point`.
BootstrapInterval bootstrap_ratio_interval(const std::vector<double>& student, const std::vector<double>& reference, double point,
                                           unsigned long long seed, int resamples = kBootstrapResamples,
                                           double confidence = kIntervalConfidence);

// The points `curve` gives anywhere in [low, high], least and most: at `high` and at `low`, as a
// curve's fraction never rises with the slowdown.
BootstrapInterval score_interval(const Curve& curve, double points, double low, double high);

// The test's PerformanceTiming from its samples and the judged rounds' ratios: the interval of
// their median and of the points, seeded with `seed`. Given each side's times per round
// (`student_ms`, `reference_ms`: the judged ones, copies charged), the interval is theirs
// (bootstrap_ratio_interval), else the ratios'.
PerformanceTiming performance_timing(std::vector<TimedSample> samples, const std::vector<double>& ratios, double slowdown, double score,
                                     double max_score, const Curve& curve, unsigned long long seed,
                                     const std::vector<double>& student_ms = {}, const std::vector<double>& reference_ms = {});

// What the student reads of it, a line each: the speed and points with their intervals ("your
// kernel time 0.93x the reference's (95% interval 0.90-0.96 over 3 rounds): 18.6 of 20 points
// (interval 18.0-19.2)"), each run made again for throttling, and the GPU's clocks (or that they
// were unknown).
std::string timing_feedback(const PerformanceTiming& timing);

}  // namespace grading
