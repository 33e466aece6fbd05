// The reference's timing shared across submissions on one GPU (grading/src/judge/reference_pool.h):
// a fake measurement and a fake clock in place of the GPU's runs. The pool is reused while it
// holds enough recent samples, a test adds a fresh one (by default every second test), samples
// too old are measured again, and a fresh sample that drifted from the pool's median drops it.
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
        s.figures.bytes = 1e6;
        return s;
    }
};

// A fresh sample for every test (the default adds one every kReferenceFreshEvery tests).
ReferencePolicy every_time() {
    ReferencePolicy p;
    p.fresh_every = 1;
    return p;
}

// One GPU's pool, its reference and a clock: use() is one performance test of 3 rounds.
struct FakePool {
    ReferencePool pool;
    FakeReference reference;
    double clock = 0;
    std::function<ReferenceSample()> measure = [this] { return reference(); };
    PooledReference use(const std::string& key = "k", const ReferencePolicy& policy = every_time()) {
        return pooled_reference(pool, key, 3, measure, [this] { return clock; }, policy);
    }
};

}  // namespace

TEST_CASE("reference pool: the first test measures every round, the next ones one fresh sample and reuse the rest") {
    FakePool gpu;
    gpu.clock = 1000;
    const PooledReference first = gpu.use("perf --size 4096");
    CHECK(first.measured == 3);
    CHECK(gpu.reference.runs == 3);
    REQUIRE(first.used.size() == 3);
    CHECK(first.shared == std::vector<bool>{false, false, false});

    gpu.clock += 10;
    const PooledReference second = gpu.use("perf --size 4096");
    CHECK(second.measured == 1);  // the fresh one
    CHECK(gpu.reference.runs == 4);
    REQUIRE(second.used.size() == 3);
    CHECK(second.shared == std::vector<bool>{true, true, false});  // the newest three, its own last
    CHECK(second.used.back().taken_s == 1010);
    CHECK(second.used.front().serial == first.used[1].serial);
    CHECK(second.dropped == 0);

    // Another test, or the same test with other arguments, has a pool of its own.
    const PooledReference other = gpu.use("perf --size 8192");
    CHECK(other.measured == 3);
    CHECK(other.shared == std::vector<bool>{false, false, false});
}

TEST_CASE("reference pool: samples older than the maximum age are measured again") {
    FakePool gpu;
    gpu.use();
    gpu.clock += kReferenceMaxAgeS - 1;
    CHECK(gpu.use().measured == 1);  // still recent: reused
    gpu.clock += 2;  // the first three are now too old; the fourth is not
    const PooledReference later = gpu.use();
    CHECK(later.measured == 2);
    CHECK(later.shared == std::vector<bool>{true, false, false});
    for (const ReferenceSample& s : later.used) CHECK(gpu.clock - s.taken_s <= kReferenceMaxAgeS);

    // A policy that keeps nothing still gives the test its rounds, all its own.
    ReferencePolicy none = every_time();
    none.max_age_s = -1;
    const PooledReference own = gpu.use("k", none);
    CHECK(own.used.size() == 3);
    CHECK(own.shared == std::vector<bool>{false, false, false});
}

TEST_CASE("reference pool: a fresh sample beyond the drift bound drops the pool, and the reference is measured again") {
    FakePool gpu;
    gpu.use();
    gpu.clock += 5;
    gpu.reference.ms = 1.0 * (1 + kReferenceDriftBound / 2);  // within the bound: noise, the pool stays
    const PooledReference near = gpu.use();
    CHECK(near.dropped == 0);
    CHECK(near.measured == 1);
    gpu.clock += 5;
    gpu.reference.ms = 1.0 * (1 + 2 * kReferenceDriftBound);  // the GPU changed
    const PooledReference drifted = gpu.use();
    CHECK(drifted.dropped == 4);
    CHECK(drifted.measured == 3);  // the fresh one, and two more to fill the rounds
    CHECK(drifted.shared == std::vector<bool>{false, false, false});
    for (const ReferenceSample& s : drifted.used) CHECK(s.run.per_rep_ms() == doctest::Approx(gpu.reference.ms));
    // Faster counts as much as slower.
    gpu.clock += 5;
    gpu.reference.ms = 1.0;
    CHECK(gpu.use().dropped == 3);
}

TEST_CASE("reference pool: the reference is measured with the pool unlocked, so other lanes use it meanwhile") {
    FakePool gpu;
    bool other_lane_served = true;
    gpu.measure = [&] {
        // Another lane reaches the pool while this one measures (it would wait for the lock else).
        auto other = std::async(std::launch::async, [&] { return gpu.pool.current("k", gpu.clock, kReferenceMaxAgeS).size(); });
        other_lane_served = other_lane_served && other.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
        if (other.valid()) other.wait();
        return gpu.reference();
    };
    gpu.use();
    CHECK(gpu.reference.runs == 3);
    CHECK(other_lane_served);
}

TEST_CASE("reference pool: by default every second test adds a fresh sample, the others reuse the pool's") {
    FakePool gpu;
    const ReferencePolicy by_default;
    CHECK(gpu.use("k", by_default).measured == 3);  // the first: fresh, then filled
    std::vector<size_t> measured;
    for (int test = 0; test < 4; ++test) {
        gpu.clock += 5;
        const PooledReference r = gpu.use("k", by_default);
        measured.push_back(r.measured);
        CHECK(r.used.size() == 3);
        if (r.measured == 0) CHECK(r.shared == std::vector<bool>{true, true, true});
    }
    CHECK(measured == std::vector<size_t>{0, 1, 0, 1});
    // Each key counts its own tests.
    CHECK(gpu.use("other", by_default).measured == 3);
    gpu.clock += 5;
    CHECK(gpu.use("other", by_default).measured == 0);
}
