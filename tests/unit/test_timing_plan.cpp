#include <doctest/doctest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "common/args.h"
#include "common/timing_plan.h"

using namespace cudalabs;

namespace {
Options parse(std::vector<const char*> args) {
    args.insert(args.begin(), "lab01");
    return parse_args(static_cast<int>(args.size()), args.data());
}

// Runs the plan with repetitions that each take `rep_ms` of wall time; returns how many ran.
int repetitions_run(const TimingPlan& plan, int rep_ms, size_t* timed = nullptr) {
    int ran = 0;
    std::vector<double> samples = run_repetitions(plan, [&](int) {
        ++ran;
        if (rep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(rep_ms));
        return static_cast<double>(rep_ms);
    });
    if (timed) *timed = samples.size();
    return ran;
}
}  // namespace

TEST_CASE("timing_plan: --reps forces a count, --bench and --quick keep theirs, the default has a budget") {
    TimingPlan forced = timing_plan(parse({"--reps", "7"}));
    CHECK(forced.reps == 7);
    CHECK(forced.budget_ms == 0);
    TimingPlan bench = timing_plan(parse({"--bench"}));
    CHECK(bench.reps == 20);
    CHECK(bench.warmup == 3);
    CHECK(bench.budget_ms == 0);
    TimingPlan quick = timing_plan(parse({"--quick"}));
    CHECK(quick.reps == 1);
    CHECK(quick.warmup == 0);
    TimingPlan plain = timing_plan(parse({}));
    CHECK(plain.budget_ms == kDefaultBudgetMs);
    CHECK(plain.min_reps == kDefaultMinReps);
    CHECK(plain.reps == kDefaultMaxReps);
    CHECK(plain.warmup == 1);
    CHECK(timing_plan(parse({"--bench", "--reps", "2"})).reps == 2);
}

TEST_CASE("timing_plan: --reps 0 checks every case and times none, not even a warm-up") {
    for (const std::vector<const char*>& args : {std::vector<const char*>{"--reps", "0"}, {"--bench", "--reps", "0"}, {"--reps=00"}}) {
        TimingPlan plan = timing_plan(parse(args));
        CHECK(plan.reps == 0);
        CHECK(plan.warmup == 0);
        CHECK(plan.budget_ms == 0);
        size_t timed = 9;
        CHECK(repetitions_run(plan, 0, &timed) == 0);
        CHECK(timed == 0);
    }
    CHECK(parse({}).reps < 0);  // unset: the mode's default
}

TEST_CASE("run_repetitions: a fixed count runs warm-ups plus every repetition and returns the timed ones") {
    TimingPlan plan;
    plan.warmup = 2;
    plan.reps = 4;
    size_t timed = 0;
    CHECK(repetitions_run(plan, 0, &timed) == 6);
    CHECK(timed == 4);
}

TEST_CASE("run_repetitions: a budget stops slow cases at the fewest, fast ones at the most") {
    TimingPlan plan;
    plan.warmup = 1;
    plan.reps = 10;
    plan.min_reps = 3;
    plan.budget_ms = 30;
    size_t timed = 0;
    // 20 ms a repetition: the budget is spent before the third timed one, which still runs.
    CHECK(repetitions_run(plan, 20, &timed) == 4);
    CHECK(timed == 3);
    // Instant repetitions never spend the budget: the most.
    CHECK(repetitions_run(plan, 0, &timed) == 11);
    CHECK(timed == 10);
    // 4 ms a repetition: stops between the fewest and the most, once 30 ms have passed.
    const int ran = repetitions_run(plan, 4, &timed);
    CHECK(ran >= 4);
    CHECK(ran <= 9);
    CHECK(timed == static_cast<size_t>(ran - 1));
}

TEST_CASE("run_repetitions: tells the observer about every repetition, warm-up included") {
    struct Count : RepetitionObserver {
        std::vector<int> begun, ended;
        void before(int i) override { begun.push_back(i); }
        void after(int i) override { ended.push_back(i); }
    } seen;
    TimingPlan plan;
    plan.warmup = 1;
    plan.reps = 2;
    plan.observer = &seen;
    repetitions_run(plan, 0);
    CHECK(seen.begun == std::vector<int>{0, 1, 2});
    CHECK(seen.ended == std::vector<int>{0, 1, 2});
}
