// The reference's timing shared across submissions on one GPU (grading/src/judge/reference_pool.h):
// a fake measurement and a fake clock in place of the GPU's runs. The pool is reused while it
// holds enough recent samples, every test adds a fresh one, samples too old are measured again,
// and a fresh sample that drifted from the pool's median drops it.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <thread>

#include "grading/src/judge/reference_pool.h"

using namespace grading;

namespace {

// The reference's timed run on a fake GPU: `ms` per repetition, counted.
struct FakeReference {
    double ms = 1.0;
    int runs = 0;
    ReferenceSample operator()() {
        ++runs;
        ReferenceSample s;
        s.run.repetitions = 10;
        s.run.launches = 10;
        s.run.kernel_ns = ms * 1e6 * 10;
        s.sample.reference = true;
        s.sample.ms_per_rep = ms;
        s.bytes = 1e6;
        return s;
    }
};

// A fresh sample for every test (the default adds one every kReferenceFreshEvery tests).
ReferencePolicy every_time() {
    ReferencePolicy p;
    p.fresh_every = 1;
    return p;
}

}  // namespace

TEST_CASE("reference pool: the first test measures every round, the next ones one fresh sample and reuse the rest") {
    ReferencePool pool;
    FakeReference reference;
    double clock = 1000;
    const auto now = [&] { return clock; };
    const auto measure = [&] { return reference(); };
    const PooledReference first = pooled_reference(pool, "perf --size 4096", 3, measure, now, every_time());
    CHECK(first.measured == 3);
    CHECK(reference.runs == 3);
    REQUIRE(first.used.size() == 3);
    CHECK(first.shared == std::vector<bool>{false, false, false});

    clock += 10;
    const PooledReference second = pooled_reference(pool, "perf --size 4096", 3, measure, now, every_time());
    CHECK(second.measured == 1);  // the fresh one
    CHECK(reference.runs == 4);
    REQUIRE(second.used.size() == 3);
    CHECK(second.shared == std::vector<bool>{true, true, false});  // the newest three, its own last
    CHECK(second.used.back().taken_s == 1010);
    CHECK(second.used.front().serial == first.used[1].serial);
    CHECK(second.dropped == 0);

    // Another test, or the same test with other arguments, has a pool of its own.
    const PooledReference other = pooled_reference(pool, "perf --size 8192", 3, measure, now, every_time());
    CHECK(other.measured == 3);
    CHECK(other.shared == std::vector<bool>{false, false, false});
}

TEST_CASE("reference pool: samples older than the maximum age are measured again") {
    ReferencePool pool;
    FakeReference reference;
    double clock = 0;
    const auto now = [&] { return clock; };
    const auto measure = [&] { return reference(); };
    pooled_reference(pool, "k", 3, measure, now, every_time());
    clock += kReferenceMaxAgeS - 1;
    CHECK(pooled_reference(pool, "k", 3, measure, now, every_time()).measured == 1);  // still recent: reused
    clock += 2;  // the first three are now too old; the fourth is not
    const PooledReference later = pooled_reference(pool, "k", 3, measure, now, every_time());
    CHECK(later.measured == 2);
    CHECK(later.shared == std::vector<bool>{true, false, false});
    for (const ReferenceSample& s : later.used) CHECK(clock - s.taken_s <= kReferenceMaxAgeS);

    // A policy that keeps nothing still gives the test its rounds, all its own.
    ReferencePolicy none = every_time();
    none.max_age_s = -1;
    const PooledReference own = pooled_reference(pool, "k", 3, measure, now, none);
    CHECK(own.used.size() == 3);
    CHECK(own.shared == std::vector<bool>{false, false, false});
}

TEST_CASE("reference pool: a fresh sample beyond the drift bound drops the pool, and the reference is measured again") {
    ReferencePool pool;
    FakeReference reference;
    double clock = 0;
    const auto now = [&] { return clock; };
    const auto measure = [&] { return reference(); };
    pooled_reference(pool, "k", 3, measure, now, every_time());
    clock += 5;
    reference.ms = 1.0 * (1 + kReferenceDriftBound / 2);  // within the bound: noise, the pool stays
    PooledReference near = pooled_reference(pool, "k", 3, measure, now, every_time());
    CHECK(near.dropped == 0);
    CHECK(near.measured == 1);
    clock += 5;
    reference.ms = 1.0 * (1 + 2 * kReferenceDriftBound);  // the GPU changed
    const PooledReference drifted = pooled_reference(pool, "k", 3, measure, now, every_time());
    CHECK(drifted.dropped == 4);
    CHECK(drifted.measured == 3);  // the fresh one, and two more to fill the rounds
    CHECK(drifted.shared == std::vector<bool>{false, false, false});
    for (const ReferenceSample& s : drifted.used) CHECK(s.run.per_rep_ms() == doctest::Approx(reference.ms));
    // Faster counts as much as slower.
    clock += 5;
    reference.ms = 1.0;
    CHECK(pooled_reference(pool, "k", 3, measure, now, every_time()).dropped == 3);
}

TEST_CASE("reference pool: the reference is measured with the pool unlocked, so other lanes use it meanwhile") {
    ReferencePool pool;
    FakeReference reference;
    double clock = 0;
    const auto now = [&] { return clock; };
    bool other_lane_served = true;
    const auto measure = [&] {
        // Another lane reaches the pool while this one measures (it would wait for the lock else).
        auto other = std::async(std::launch::async, [&] { return pool.current("k", clock, kReferenceMaxAgeS).size(); });
        other_lane_served = other_lane_served && other.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
        if (other.valid()) other.wait();
        return reference();
    };
    pooled_reference(pool, "k", 3, measure, now, every_time());
    CHECK(reference.runs == 3);
    CHECK(other_lane_served);
}

TEST_CASE("reference pool: by default every second test adds a fresh sample, the others reuse the pool's") {
    ReferencePool pool;
    FakeReference reference;
    double clock = 0;
    const auto now = [&] { return clock; };
    const auto measure = [&] { return reference(); };
    CHECK(pooled_reference(pool, "k", 3, measure, now).measured == 3);  // the first: fresh, then filled
    std::vector<size_t> measured;
    for (int test = 0; test < 4; ++test) {
        clock += 5;
        const PooledReference r = pooled_reference(pool, "k", 3, measure, now);
        measured.push_back(r.measured);
        CHECK(r.used.size() == 3);
        if (r.measured == 0) CHECK(r.shared == std::vector<bool>{true, true, true});
    }
    CHECK(measured == std::vector<size_t>{0, 1, 0, 1});
    // Each key counts its own tests.
    CHECK(pooled_reference(pool, "other", 3, measure, now).measured == 3);
    clock += 5;
    CHECK(pooled_reference(pool, "other", 3, measure, now).measured == 0);
}
