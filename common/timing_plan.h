// How many times a case is timed: a fixed count, or a wall-time budget between a fewest and a
// most. Host-only (unit-tested with g++); timing.h does the timing itself.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace cudalabs {

class L2Flusher;
struct Options;

// Told about every repetition, warm-up included (RunHooks::repetitions_timed, run_hooks.h):
// `before` runs ahead of the L2 flush and the start event, `after` once the repetition's work
// has finished; neither is inside the timed region.
struct RepetitionObserver {
    virtual ~RepetitionObserver() = default;
    virtual void before(int rep) = 0;
    virtual void after(int rep) = 0;
};

struct TimingPlan {
    int warmup = 1;
    int reps = 5;            // timed repetitions; with a budget, the most
    int min_reps = 0;        // with a budget, the fewest (0: as many as `reps`)
    double budget_ms = 0;    // > 0: stop timing once `min_reps` are done and this much wall time
                             // (warm-up included) has passed, as Google Benchmark's min_time
    L2Flusher* flusher = nullptr;  // non-null: flush L2 before every repetition
    RepetitionObserver* observer = nullptr;
};

// Runs the plan's repetitions: `one(i)` runs repetition i (warm-ups first) and returns its time
// in ms. Returns the times of the timed repetitions.
template <class One>
std::vector<double> run_repetitions(const TimingPlan& plan, One&& one) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const int fewest = plan.budget_ms > 0 && plan.min_reps > 0 ? std::min(plan.min_reps, plan.reps) : plan.reps;
    std::vector<double> samples;
    for (int i = 0; i < plan.warmup + plan.reps; ++i) {
        if (plan.observer) plan.observer->before(i);
        const double ms = one(i);
        if (i >= plan.warmup) samples.push_back(ms);
        if (plan.observer) plan.observer->after(i);
        if (plan.budget_ms > 0 && static_cast<int>(samples.size()) >= fewest &&
            std::chrono::duration<double, std::milli>(clock::now() - start).count() >= plan.budget_ms)
            break;
    }
    return samples;
}

// The plan a run's options ask for. --reps N forces N timed repetitions; --bench times 20 after
// 3 warm-ups (the accuracy its figures need); --quick one repetition and no warm-up; a default
// run times each case until kDefaultBudgetMs have passed (one warm-up, then kDefaultMinReps to
// kDefaultMaxReps repetitions), so a lab answers in seconds whether a kernel takes a
// microsecond or tens of milliseconds.
constexpr double kDefaultBudgetMs = 100;
constexpr int kDefaultMinReps = 3, kDefaultMaxReps = 5;
TimingPlan timing_plan(const Options& opt);

}  // namespace cudalabs
