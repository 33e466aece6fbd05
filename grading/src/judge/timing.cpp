#include "judge/timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "judge/judge.h"
#include "judge/reference_pool.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

bool sample_between_clock_readings(ClockReader& clocks, int round, bool reference, const AloneTurn& alone, const TimedAttempt& run,
                                   std::vector<TimedSample>& samples) {
    for (int attempt = 0;; ++attempt) {
        TimedSample s;
        s.round = round;
        s.reference = reference;
        s.attempt = attempt;
        const TimedProcess between_readings = [&](const GatedRun& process) {
            alone(process, [&] { s.before = clocks.read(); }, [&] { s.after = clocks.read(); });
        };
        const bool timed = run(s.ms_per_rep, between_readings);
        const bool again = timed && s.throttled() && attempt < kMaxThrottleReruns;
        s.kept = !again;
        samples.push_back(s);
        if (!again) return timed;
    }
}

std::vector<TimedSample> round_samples(const std::vector<TimedSample>& attempts, const std::vector<TimedRun>& rounds) {
    std::vector<TimedSample> samples = attempts;
    if (samples.empty() || rounds.empty()) return samples;
    const TimedSample kept = samples.back();
    samples.pop_back();
    for (size_t i = 0; i < rounds.size(); ++i) {
        TimedSample s = kept;
        s.round = static_cast<int>(i) + 1;
        s.ms_per_rep = rounds[i].per_rep_ms();
        samples.push_back(s);
    }
    return samples;
}

namespace {

// The median of a resample of `from` drawn with replacement. mt19937_64 and a plain modulo: the
// same draws on every standard library (a distribution's are not), so an interval can be
// recomputed anywhere from the audit log.
double resampled_median(const std::vector<double>& from, std::mt19937_64& rng, std::vector<double>& draw) {
    draw.resize(from.size());
    for (double& x : draw) x = from[static_cast<size_t>(rng() % from.size())];
    return median_value(draw);
}

// The (1-confidence)/2 and (1+confidence)/2 quantiles of `stats`, widened to hold `point`.
BootstrapInterval percentile_interval(std::vector<double> stats, double point, double confidence) {
    std::sort(stats.begin(), stats.end());
    const double last = static_cast<double>(stats.size() - 1);
    const double tail = (1 - confidence) / 2;
    return {std::min(point, stats[static_cast<size_t>(std::floor(tail * last))]),
            std::max(point, stats[static_cast<size_t>(std::ceil((1 - tail) * last))])};
}

}  // namespace

BootstrapInterval bootstrap_median_interval(const std::vector<double>& ratios, unsigned long long seed, int resamples, double confidence) {
    BootstrapInterval b;
    if (ratios.empty()) return b;
    const double median = median_value(ratios);
    b.low = b.high = median;
    if (ratios.size() < 2 || resamples < 1) return b;
    std::mt19937_64 rng(seed);
    std::vector<double> medians(static_cast<size_t>(resamples)), draw;
    for (double& m : medians) m = resampled_median(ratios, rng, draw);
    return percentile_interval(medians, median, confidence);
}

BootstrapInterval bootstrap_ratio_interval(const std::vector<double>& student, const std::vector<double>& reference, double point,
                                           unsigned long long seed, int resamples, double confidence) {
    BootstrapInterval b{point, point};
    if (student.empty() || reference.empty() || (student.size() < 2 && reference.size() < 2) || resamples < 1) return b;
    std::mt19937_64 rng(seed);
    std::vector<double> ratios(static_cast<size_t>(resamples)), draw;
    for (double& r : ratios) {
        const double yours = resampled_median(student, rng, draw);
        const double theirs = resampled_median(reference, rng, draw);
        r = theirs > 0 ? yours / theirs : point;
    }
    return percentile_interval(ratios, point, confidence);
}

BootstrapInterval score_interval(const Curve& curve, double points, double low, double high) {
    return {points * curve.fraction(high), points * curve.fraction(low)};  // a curve never rises (parse_curve)
}

PerformanceTiming performance_timing(std::vector<TimedSample> samples, const std::vector<double>& ratios, double slowdown, double score,
                                     double max_score, const Curve& curve, unsigned long long seed, const std::vector<double>& student_ms,
                                     const std::vector<double>& reference_ms) {
    PerformanceTiming t;
    t.samples = std::move(samples);
    t.ratios = ratios;
    t.slowdown = slowdown;
    t.score = score;
    t.max_score = max_score;
    t.confidence = kIntervalConfidence;
    t.bootstrap_seed = seed;
    t.student_round_ms = student_ms;
    t.reference_round_ms = reference_ms;
    const bool both_sides = !student_ms.empty() && !reference_ms.empty();
    t.resamples = (both_sides ? std::max(student_ms.size(), reference_ms.size()) : ratios.size()) > 1 ? kBootstrapResamples : 0;
    const BootstrapInterval ratio =
        both_sides ? bootstrap_ratio_interval(student_ms, reference_ms, slowdown, seed) : bootstrap_median_interval(ratios, seed);
    t.low = ratio.low;
    t.high = ratio.high;
    const BootstrapInterval points = score_interval(curve, max_score, t.low, t.high);
    t.score_low = points.low;
    t.score_high = points.high;
    return t;
}

namespace {

std::string fixed(double x, int decimals) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
    return buf;
}

std::string side_of(const TimedSample& s) { return s.reference ? "the reference's run" : "your run"; }

// The power or heat reasons of a sample's readings, in words.
std::string throttle_reasons_of(const TimedSample& s) {
    unsigned long long reasons = 0;
    for (const GpuClocks* c : {&s.before, &s.after})
        if (throttled(*c)) reasons |= c->reasons & kPowerOrHeatReasons;
    return join(clock_reason_names(reasons), ", ");
}

// "SM 1755-1980 MHz, memory 2619 MHz" over every known reading of the kept samples.
std::string clock_range(const PerformanceTiming& t) {
    unsigned sm_lo = ~0u, sm_hi = 0, mem_lo = ~0u, mem_hi = 0;
    for (const TimedSample& s : t.samples)
        for (const GpuClocks* c : {&s.before, &s.after})
            if (s.kept && c->known) {
                sm_lo = std::min(sm_lo, c->sm_mhz), sm_hi = std::max(sm_hi, c->sm_mhz);
                mem_lo = std::min(mem_lo, c->memory_mhz), mem_hi = std::max(mem_hi, c->memory_mhz);
            }
    if (sm_lo == ~0u) return "";
    auto range = [](unsigned lo, unsigned hi) { return std::to_string(lo) + (lo == hi ? "" : "-" + std::to_string(hi)) + " MHz"; };
    return "SM " + range(sm_lo, sm_hi) + ", memory " + range(mem_lo, mem_hi);
}

// Where the reference's samples were shared with submissions graded just before ("" where none was).
std::string shared_reference_line(const PerformanceTiming& t) {
    size_t used = 0, shared = 0;
    double oldest = 0;
    for (const TimedSample& s : t.samples)
        if (s.reference && s.kept) {
            ++used;
            if (s.shared) ++shared, oldest = std::max(oldest, s.age_s);
        }
    if (shared == 0) return "";
    return "the reference's time: " + std::to_string(shared) + " of its " + std::to_string(used) +
           " timed runs were measured on this GPU for submissions graded just before yours (the oldest " + fixed(oldest, 0) +
           " s before); it is timed afresh " +
           (kReferenceFreshEvery == 1 ? std::string("for each submission") : "once every " + std::to_string(kReferenceFreshEvery) + " submissions") +
           ", and all over again when that run differs from the others by more than " +
           fixed(100 * kReferenceDriftBound, 0) + "% or they are older than " + fixed(kReferenceMaxAgeS, 0) + " s\n";
}

}  // namespace

std::string timing_feedback(const PerformanceTiming& t) {
    if (!t.measured()) return "";
    std::string text = "your kernel time " + fixed(t.slowdown, 2) + "x the reference's";
    const std::string rounds = std::to_string(t.ratios.size()) + " rounds";
    text += t.ratios.size() > 1 ? " (" + fixed(100 * t.confidence, 0) + "% interval " + fixed(t.low, 2) + "-" + fixed(t.high, 2) + " over " +
                                      rounds + ")"
                                : " (one round: no interval)";
    text += ": " + fixed(t.score, 1) + " of " + format_points(t.max_score) + " points";
    if (t.ratios.size() > 1) text += " (interval " + fixed(t.score_low, 1) + "-" + fixed(t.score_high, 1) + ")";
    text += "\n";
    text += shared_reference_line(t);
    for (const TimedSample& s : t.samples) {
        if (!s.throttled()) continue;
        text += "round " + std::to_string(s.round) + ": " + side_of(s) + " was timed while the GPU slowed itself (" + throttle_reasons_of(s) +
                (s.kept ? "); after " + std::to_string(s.attempt + 1) + " runs it still was, so this one is timed as it was\n"
                        : "): it was run again, and this run does not count\n");
    }
    const std::string range = clock_range(t);
    text += !range.empty() ? "GPU clocks read before and after the timed runs: " + range + "\n"
                           : "GPU clocks unknown (the grading machine has neither NVML nor nvidia-smi): throttling was not checked\n";
    return text;
}

}  // namespace grading
