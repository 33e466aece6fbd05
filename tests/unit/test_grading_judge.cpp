// The grader's judgements (grading/src/judge/judge.h): which checked cases count, and the score of a
// performance test with its plausibility floor.
#include <doctest/doctest.h>

#include "grading/protocol/fresh_inputs.h"
#include "grading/src/judge/judge.h"
#include "grading/src/runs/runs.h"

using namespace grading;

namespace {
RowEvidence verified_row() {
    RowEvidence r;
    r.size = "1000";
    r.verified = true;
    r.kernel_ran = true;
    return r;
}
PerformanceRound round_of(double reference_ms, double student_ms, int reps = 10) {
    PerformanceRound r;
    r.reference = {reference_ms * 1e6 * reps, reps, reps};
    r.student = {student_ms * 1e6 * reps, reps, reps};
    return r;
}
Curve curve() { return parse_curve("1.15:1 1.5:0.6 3:0"); }
}  // namespace

TEST_CASE("a verified row counts only when the student's kernels did the work") {
    RowEvidence r = verified_row();
    CHECK(judge_row(r, HostTransfers::None, true).passed);

    r.kernel_ran = false;
    RowJudgement j = judge_row(r, HostTransfers::None, true);
    CHECK_FALSE(j.passed);
    CHECK(j.why.find("none of the kernels in your file ran") != std::string::npos);
    CHECK(judge_row(r, HostTransfers::None, false).passed);  // the trace is off or the test says so

    RowEvidence wrong = verified_row();
    wrong.verified = false;
    wrong.verifier_note = "wrong value at index 3";
    CHECK(judge_row(wrong, HostTransfers::Allowed, true).why == "wrong value at index 3");
}

TEST_CASE("a row cheats its test when its result did not follow its inputs, or was right but made against the rule") {
    RowEvidence r = verified_row();
    CHECK_FALSE(judge_row(r, HostTransfers::None, true).cheats);
    RowEvidence wrong = verified_row();
    wrong.verified = false;
    wrong.verifier_note = "wrong value at index 3";
    CHECK_FALSE(judge_row(wrong, HostTransfers::None, true).cheats);  // wrong when checked: that row's loss only
    // Wrong when checked, and on new inputs too: the first fault is the check's.
    wrong.verifier_note = "wrong value at index 3 (and 1 more)";
    CHECK_FALSE(judge_row(wrong, HostTransfers::None, true).cheats);
    wrong.verifier_note = std::string(cudalabs::kFreshInputsFault) + "produced a wrong result";
    CHECK(judge_row(wrong, HostTransfers::None, true).cheats);  // right when checked, not for new inputs
    wrong.verifier_note = std::string(cudalabs::kFreshInputsFault) + "left some of its output unwritten";
    CHECK(judge_row(wrong, HostTransfers::None, true).cheats);

    r.kernel_ran = false;  // right, but no kernel of the file made it
    CHECK(judge_row(r, HostTransfers::None, true).cheats);
    r.kernel_ran = true;
    r.foreign_kernel = "ampere_sgemm_128x64_nn";
    CHECK(judge_row(r, HostTransfers::None, true).cheats);
    r.foreign_kernel.clear();
    r.transfers = {{"cudaMemcpy", "device_to_host", 4000}};
    CHECK(judge_row(r, HostTransfers::None, true).cheats);
    CHECK_FALSE(judge_row(r, HostTransfers::Allowed, true).cheats);
}

TEST_CASE("a row in which a kernel foreign to the file ran does not count, however the library was reached") {
    RowEvidence r = verified_row();
    r.foreign_kernel = "ampere_sgemm_128x64_nn";
    const RowJudgement j = judge_row(r, HostTransfers::Allowed, true);
    CHECK_FALSE(j.passed);
    CHECK(j.why.find("a kernel your file did not compile ran in it (ampere_sgemm_128x64_nn)") != std::string::npos);
    CHECK(judge_row(r, HostTransfers::Allowed, false).passed);  // the trace is off
}

TEST_CASE("foreign_kernel finds a kernel of another file in any repetition, and only there") {
    const std::set<std::string> mine = {"_Z6kernelPf"};
    CaseEvidence c;
    c.kernels = {{"cudalabs_reference_gemm", false, 1}};  // outside the repetitions: the harness's
    c.reps.resize(2);
    c.reps[0].warmup = true;
    c.reps[0].kernels = {{"_Z6kernelPf", false, 1}};
    c.reps[1].kernels = {{"_Z6kernelPf", false, 1}};
    CHECK(foreign_kernel(c, mine) == nullptr);
    c.reps[0].kernels.push_back({"cutlass_80_tensorop_s1688gemm", false, 1});  // the warm-up counts too
    const KernelSpan* k = foreign_kernel(c, mine);
    REQUIRE(k != nullptr);
    CHECK(k->name == "cutlass_80_tensorop_s1688gemm");
}

TEST_CASE("host transfers follow the test's rule") {
    RowEvidence r = verified_row();
    r.transfers = {{"cudaMemcpy", "device_to_host", 4000}, {"cudaMemcpy", "host_to_device", 4000}};
    CHECK(judge_row(r, HostTransfers::Allowed, true).passed);
    RowJudgement none = judge_row(r, HostTransfers::None, true);
    CHECK_FALSE(none.passed);
    CHECK(none.why.find("from the device to the host (cudaMemcpy)") != std::string::npos);
    CHECK_FALSE(judge_row(r, HostTransfers::ToDevice, true).passed);  // the device-to-host copy

    r.transfers = {{"cudaMemcpyToSymbol", "host_to_device", 64}};
    CHECK(judge_row(r, HostTransfers::ToDevice, true).passed);
    CHECK_FALSE(judge_row(r, HostTransfers::None, true).passed);

    // A copy within the device does a kernel's work untimed (a strided copy is a transpose).
    r.transfers = {{"cudaMemcpy2DAsync", "device_to_device", 4000}};
    CHECK(judge_row(r, HostTransfers::Allowed, true).passed);
    CHECK_FALSE(judge_row(r, HostTransfers::ToDevice, true).passed);
    RowJudgement d2d = judge_row(r, HostTransfers::None, true);
    CHECK_FALSE(d2d.passed);
    CHECK(d2d.why.find("within the device (cudaMemcpy2DAsync)") != std::string::npos);
    // A plain copy within the device into memory that is no output (an input staged in scratch
    // or __constant__ memory, as the shims tell it): allowed by every rule.
    r.transfers = {{"cudaMemcpyToSymbolAsync", "device_to_scratch", 4000}, {"cudaMemcpyAsync", "device_to_scratch", 64}};
    CHECK(judge_row(r, HostTransfers::None, true).passed);
    CHECK(judge_row(r, HostTransfers::ToDevice, true).passed);
    r.transfers = {{"cudaMallocHost", "host_alloc", 4000}};
    CHECK_FALSE(judge_row(r, HostTransfers::None, true).passed);
    CHECK(forbidden_transfer(r.transfers, HostTransfers::ToDevice) != nullptr);
}

TEST_CASE("a host round trip that broke its rule cheats its test, whatever copies the test allows") {
    RowEvidence r = verified_row();
    r.transfers = {{"cudaMemcpy", "host_to_device", 4000},
                   {"4000 bytes of the output (the first at byte 0) are not what the code copied back from the device", "round_trip_breach", 4000},
                   {"cudaMemcpy", "device_to_host", 4000}};
    for (HostTransfers rule : {HostTransfers::Allowed, HostTransfers::ToDevice, HostTransfers::None}) {
        const RowJudgement j = judge_row(r, rule, true);
        CHECK_FALSE(j.passed);
        CHECK(j.cheats);
        CHECK(j.why.find("the round trip broke its rule (4000 bytes of the output") != std::string::npos);
    }
    r.transfers.erase(r.transfers.begin() + 1);  // the same copies, no breach: an honest round trip
    CHECK(judge_row(r, HostTransfers::Allowed, true).passed);
}

TEST_CASE("performance: copies into scratch memory are charged at the measured copy bandwidth") {
    PerformanceEvidence e;
    e.copy_gbs = 1000;  // GB/s: 1 byte per ps
    e.rounds = {round_of(1.0, 1.0), round_of(1.0, 1.0), round_of(1.0, 1.0)};
    CHECK(judge_performance(e, curve(), 2, 4).slowdown == doctest::Approx(1.0));
    // 10 repetitions that each copy 100 MB into scratch: 2 x 100 MB at 1000 GB/s is 0.2 ms more each.
    for (PerformanceRound& r : e.rounds) r.student.staged_bytes = 10 * 100e6;
    const PerformanceJudgement j = judge_performance(e, curve(), 2, 4);
    CHECK(j.slowdown == doctest::Approx(1.2));
    CHECK(j.text.find("copies into scratch memory charged at the measured copy bandwidth") != std::string::npos);
    // The roofline picture's times are the ones the ratio took: the copies charged.
    CHECK(j.student_ms == doctest::Approx(1.2));
    CHECK(j.reference_ms == doctest::Approx(1.0));
}

TEST_CASE("performance: the median slowdown on the curve") {
    PerformanceEvidence e;
    e.rounds = {round_of(1.0, 1.0), round_of(1.0, 1.2), round_of(1.0, 2.0)};
    PerformanceJudgement j = judge_performance(e, curve(), 2, 4);
    CHECK_FALSE(j.tampering);
    CHECK(j.slowdown == doctest::Approx(1.2));
    CHECK(j.fraction == doctest::Approx(curve().fraction(1.2)));
    CHECK(j.text.find("median of 3 rounds") != std::string::npos);
}

TEST_CASE("performance: the feedback's scorecard gives both rates against this GPU's copy bandwidth") {
    PerformanceEvidence e;
    e.bytes = 300e6;  // 300 MB in 0.2 ms: 1500 GB/s; in 0.15 ms: 2000 GB/s
    e.copy_gbs = 2500;
    e.rounds = {round_of(0.15, 0.2), round_of(0.15, 0.2), round_of(0.15, 0.21)};
    const PerformanceJudgement j = judge_performance(e, curve(), 2, 4);
    CHECK(j.text.find("scorecard: yours moves 1500 GB/s, 60% of the 2500 GB/s this GPU copies at; the reference 2000 GB/s (80%)") !=
          std::string::npos);
    CHECK(j.text.find("GFLOP/s") == std::string::npos);  // no FLOP count: no FLOP rate
    e.flops = 2e9;  // 2 GFLOP in 0.2 ms: 10000 GFLOP/s
    CHECK(scorecard_lines(e, 0.2, 0.1).find("yours computes 10000 GFLOP/s; the reference 20000 GFLOP/s") != std::string::npos);
    CHECK(scorecard_lines(e, 0, 0.1).empty());
    CHECK(median_ms(e, true) == doctest::Approx(0.15));
}

TEST_CASE("performance: faster than the memory allows is tampering") {
    PerformanceEvidence e;
    e.bytes = 200e6;  // 200 MB at 3000 GB/s: 0.0667 ms; the floor at 2x is 0.0333 ms
    e.copy_gbs = 3000;
    e.rounds = {round_of(0.07, 0.069), round_of(0.07, 0.001), round_of(0.07, 0.07)};
    PerformanceJudgement j = judge_performance(e, curve(), 2, 4);
    CHECK(j.floor_ms == doctest::Approx(200e6 / (3000e9 * 2) * 1e3));
    CHECK(j.tampering);
    CHECK(j.fraction == 0);
    CHECK(j.text.find("TAMPERING") != std::string::npos);
    CHECK(j.text.find("below the fastest time this GPU allows") != std::string::npos);
    CHECK(j.text.find("200000000 bytes at 6000 GB/s, 2x the copy bandwidth") != std::string::npos);

    e.rounds = {round_of(0.07, 0.04), round_of(0.07, 0.04), round_of(0.07, 0.04)};  // fast but possible
    j = judge_performance(e, curve(), 2, 4);
    CHECK_FALSE(j.tampering);
    CHECK(j.fraction == 1);
}

TEST_CASE("performance: many times the reference's FLOP rate is tampering") {
    PerformanceEvidence e;
    e.flops = 17e9;
    e.rounds = {round_of(0.5, 0.6), round_of(0.5, 0.1), round_of(0.5, 0.6)};
    PerformanceJudgement j = judge_performance(e, curve(), 2, 4);
    CHECK(j.floor_ms == doctest::Approx(0.5 / 4));
    CHECK(j.tampering);
    CHECK(j.text.find("4x the reference solution's measured FLOP rate") != std::string::npos);
    e.rounds = {round_of(0.5, 0.3), round_of(0.5, 0.3), round_of(0.5, 0.3)};  // 1.7x faster: allowed
    CHECK_FALSE(judge_performance(e, curve(), 2, 4).tampering);
}

TEST_CASE("performance: no kernels in the timed repetitions scores nothing") {
    PerformanceEvidence e;
    PerformanceRound r = round_of(1.0, 1.0);
    r.student = {};
    e.rounds = {r};
    PerformanceJudgement j = judge_performance(e, curve(), 2, 4);
    CHECK(j.fraction == 0);
    CHECK(j.text.find("none of your kernels ran") != std::string::npos);
}

TEST_CASE("performance: each round's times, as the interval resamples them, are the charged ones") {
    PerformanceEvidence e;
    e.copy_gbs = 1000;
    e.rounds = {round_of(1.0, 1.0), round_of(1.0, 1.1), round_of(1.0, 1.3)};
    for (PerformanceRound& r : e.rounds) r.student.staged_bytes = 10 * 100e6;  // 0.2 ms more a repetition
    const PerformanceJudgement j = judge_performance(e, curve(), 2, 4);
    REQUIRE(j.student_round_ms.size() == 3);
    CHECK(j.student_round_ms[0] == doctest::Approx(1.2));
    CHECK(j.student_round_ms[2] == doctest::Approx(1.5));
    REQUIRE(j.reference_round_ms.size() == 3);
    for (double ms : j.reference_round_ms) CHECK(ms == doctest::Approx(1.0));
}

// ---- --combine-correctness: which tests a trial's one process runs ----
#include "grading/src/intake/rubric.h"
#include "grading/src/intake/seeds.h"
#include "grading/src/judge/test_kinds.h"

TEST_CASE("a combined trial runs each correctness test's variants with that test's seed, and only tests that can share a process") {
    GradingSetup setup;
    setup.cfg.seed = 42;
    setup.rubric = grading::parse_rubric(R"(lab = 13
run_timeout = 20
[test a]
kind = correctness
points = 1
variants = one
sizes = 7 9
trials = 2
[test b]
kind = correctness
points = 1
variants = two three
sizes = 7 9
timeout = 50
[test again]
kind = correctness
points = 1
variants = one
sizes = 7 9
[test other_sizes]
kind = correctness
points = 1
variants = four
sizes = 8
[test after]
kind = correctness
points = 1
variants = five
sizes = 7 9
requires = a
[test san]
kind = sanitizer
tool = memcheck
points = 1
variants = six
sizes = 7 9
)", "r.rubric");
    const std::vector<std::string> sizes = {"7", "9"};
    const CombinedTrial first = combined_trial(setup, 0, sizes);
    CHECK(first.tests == 2);  // a and b; 'again' repeats a's variant, 'other_sizes' has others, 'after' waits for a
    CHECK(first.seeds.size() == 3);
    CHECK(first.seeds.at("one") == derive_seed(42, "a", 0));
    CHECK(first.seeds.at("two") == derive_seed(42, "b", 0));
    CHECK(first.seeds.at("three") == derive_seed(42, "b", 0));
    CHECK(first.seeds.at("one") != first.seeds.at("two"));
    CHECK(first.timeout_s == doctest::Approx(70));  // a's run_timeout and b's own
    // Trial 2 (index 1): only a has one, so nothing is combined.
    const CombinedTrial second = combined_trial(setup, 1, sizes);
    CHECK(second.tests == 1);
    CHECK(second.seeds.at("one") == derive_seed(42, "a", 1));
    // Sizes no test has: nothing.
    CHECK(combined_trial(setup, 0, {"7"}).tests == 0);
    CHECK(combined_trial(setup, 0, {"8"}).tests == 1);
}
