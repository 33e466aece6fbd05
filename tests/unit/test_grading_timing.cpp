// Timing an instructor can defend (grading/src/judge/timing.h, grading/src/gpu/gpu_clocks.h,
// the leaderboard's ties): which clock event reasons mean the GPU slowed itself, nvidia-smi's
// line read back, timed runs re-run while throttled (a fake clock reader in place of the GPU),
// the bootstrap interval of the median ratio and its points, the line the student reads, the
// audit log's record, and ranks shared where intervals overlap.
#include <doctest/doctest.h>

#include <deque>
#include <nlohmann/json.hpp>

#include "grading/src/class/leaderboard.h"
#include "grading/src/class/results.h"
#include "grading/src/judge/judge.h"
#include "grading/src/judge/test_kinds.h"
#include "grading/src/judge/timing.h"
#include "grading/src/gpu/gpu_clocks.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;
using namespace grading_fixtures;
using nlohmann::json;

namespace {

GpuClocks reading(unsigned sm, unsigned memory, unsigned long long reasons) {
    GpuClocks c;
    c.known = c.reasons_known = true;
    c.sm_mhz = sm;
    c.memory_mhz = memory;
    c.reasons = reasons;
    c.source = "nvml";
    return c;
}

// Gives the readings it was handed, in order; unknown once they run out.
class FakeClocks : public ClockReader {
public:
    explicit FakeClocks(std::deque<GpuClocks> readings) : readings_(std::move(readings)) {}
    GpuClocks read() override {
        ++reads;
        if (readings_.empty()) return {};
        GpuClocks c = readings_.front();
        readings_.pop_front();
        return c;
    }
    int reads = 0;

private:
    std::deque<GpuClocks> readings_;
};

// A run that takes `ms` per repetition and counts how often it was made.
TimedAttempt run_taking(double ms, int& runs, bool counts = true) {
    return [ms, &runs, counts](double& out, const TimedProcess& timed) {
        timed([&](TimingGate*) { ++runs; });
        out = ms;
        return counts;
    };
}

// The lane has the GPU alone already (--per-gpu 1): the process runs as it is.
const AloneTurn as_it_is = [](const GatedRun& process, const std::function<void()>& on_alone, const std::function<void()>& on_done) {
    on_alone();
    process(nullptr);
    on_done();
};

Curve curve() { return parse_curve("1.15:1 1.5:0.6 3:0"); }

LeaderboardRow row(double figure, double low, double high) {
    LeaderboardRow r;
    r.figure = figure;
    r.low = low;
    r.high = high;
    return r;
}

}  // namespace

TEST_CASE("timing: power and heat reasons throttle a sample; idle and clock settings do not") {
    for (unsigned long long bit : {kClockReasonSwPowerCap, kClockReasonHwSlowdown, kClockReasonSwThermal, kClockReasonHwThermal,
                                   kClockReasonHwPowerBrake})
        CHECK(throttled_for_power_or_heat(bit | kClockReasonGpuIdle));
    for (unsigned long long bit : {0ull, kClockReasonGpuIdle, kClockReasonApplicationsClocks, kClockReasonSyncBoost, kClockReasonDisplayClocks})
        CHECK_FALSE(throttled_for_power_or_heat(bit));
    CHECK_FALSE(throttled_for_power_or_heat(0x100000ull));  // a reason newer than the grader: not assumed to be power or heat
    CHECK(clock_reason_names(kClockReasonSwPowerCap | kClockReasonGpuIdle) == std::vector<std::string>{"GPU idle", "SW power cap"});
    CHECK(clock_reason_names(kClockReasonHwThermal | 0x400ull) == std::vector<std::string>{"HW thermal slowdown", "0x400"});
    GpuClocks unknown_reasons = reading(1980, 2619, kClockReasonSwPowerCap);
    unknown_reasons.reasons_known = false;
    CHECK_FALSE(throttled(unknown_reasons));
    CHECK(throttled(reading(1980, 2619, kClockReasonSwPowerCap)));
}

TEST_CASE("timing: nvidia-smi's query line is read back, and what is no such line is refused") {
    GpuClocks c;
    REQUIRE(parse_nvidia_smi_clocks("1980, 2619, 0x0000000000000004\n", c));
    CHECK(c.known);
    CHECK(c.sm_mhz == 1980);
    CHECK(c.memory_mhz == 2619);
    CHECK(c.reasons_known);
    CHECK(c.reasons == 4);
    CHECK(c.source == "nvidia-smi");
    GpuClocks idle;
    REQUIRE(parse_nvidia_smi_clocks("345,1593,0x1", idle));
    CHECK(idle.reasons == kClockReasonGpuIdle);
    GpuClocks no_reasons;
    REQUIRE(parse_nvidia_smi_clocks("1755, 2619, [Not Supported]", no_reasons));
    CHECK(no_reasons.known);
    CHECK_FALSE(no_reasons.reasons_known);
    GpuClocks refused = reading(1, 1, 0);
    CHECK_FALSE(parse_nvidia_smi_clocks("[N/A], [N/A], [N/A]", refused));
    CHECK_FALSE(parse_nvidia_smi_clocks("Field \"clocks_event_reasons.active\" is not a valid field to query.", refused));
    CHECK_FALSE(parse_nvidia_smi_clocks("1980, 2619", refused));
    CHECK_FALSE(parse_nvidia_smi_clocks("", refused));
    CHECK(refused.sm_mhz == 1);  // left as it was
}

TEST_CASE("timing: a sample throttled for power or heat is run again, a bounded number of times") {
    const GpuClocks clear = reading(1980, 2619, 0), capped = reading(1755, 2619, kClockReasonSwPowerCap),
                    idle = reading(345, 2619, kClockReasonGpuIdle);
    std::vector<TimedSample> samples;
    int runs = 0;
    FakeClocks once({capped, clear, idle, clear});
    CHECK(sample_between_clock_readings(once, 2, true, as_it_is, run_taking(1.5, runs), samples));
    CHECK(runs == 2);
    REQUIRE(samples.size() == 2);
    CHECK(samples[0].round == 2);
    CHECK(samples[0].reference);
    CHECK(samples[0].throttled());
    CHECK_FALSE(samples[0].kept);
    CHECK(samples[1].attempt == 1);
    CHECK(samples[1].kept);  // idle is no throttling
    CHECK(samples[1].ms_per_rep == 1.5);

    std::deque<GpuClocks> always(8, reading(1410, 2619, kClockReasonHwThermal));
    FakeClocks hot(always);
    samples.clear();
    runs = 0;
    CHECK(sample_between_clock_readings(hot, 1, false, as_it_is, run_taking(2.0, runs), samples));
    CHECK(runs == kMaxThrottleReruns + 1);
    REQUIRE(samples.size() == static_cast<size_t>(kMaxThrottleReruns + 1));
    CHECK(samples.back().kept);
    CHECK(samples.back().throttled());

    // A run that cannot be timed is not made again (the test scores it), throttled or not.
    FakeClocks capped_again({capped, capped});
    samples.clear();
    runs = 0;
    CHECK_FALSE(sample_between_clock_readings(capped_again, 1, false, as_it_is, run_taking(2.0, runs, false), samples));
    CHECK(runs == 1);

    // Clocks unknown: timed once, never an error.
    FakeClocks nothing({});
    samples.clear();
    runs = 0;
    CHECK(sample_between_clock_readings(nothing, 1, false, as_it_is, run_taking(2.0, runs), samples));
    CHECK(runs == 1);
    CHECK(nothing.reads == 2);
    CHECK_FALSE(samples[0].before.known);
}

TEST_CASE("timing: the bootstrap interval of the median ratio is reproducible and as wide as the rounds' spread") {
    std::vector<double> grid;
    for (int i = 0; i < 20; ++i) grid.push_back(1.0 + 0.01 * i);
    const BootstrapInterval a = bootstrap_median_interval(grid, 12345), b = bootstrap_median_interval(grid, 12345);
    CHECK(a.low == b.low);
    CHECK(a.high == b.high);
    // The median is 1.095; its standard error about 1.25 x 0.058 / sqrt(20) = 0.016, so the 95%
    // interval spans about 1.06 to 1.13: well inside the rounds' range.
    CHECK(a.low == doctest::Approx(1.063).epsilon(0.02));
    CHECK(a.high == doctest::Approx(1.127).epsilon(0.02));
    const BootstrapInterval half = bootstrap_median_interval(grid, 12345, kBootstrapResamples, 0.5);
    CHECK(half.low > a.low);
    CHECK(half.high < a.high);
    CHECK(half.low <= 1.095);
    CHECK(half.high >= 1.095);
    // Three rounds: any of them can be the median of a resample, so the interval is their range.
    const BootstrapInterval three = bootstrap_median_interval({1.25, 1.2, 1.3}, 7);
    CHECK(three.low == 1.2);
    CHECK(three.high == 1.3);
    const BootstrapInterval one = bootstrap_median_interval({1.4}, 7);
    CHECK(one.low == 1.4);
    CHECK(one.high == 1.4);
    const BootstrapInterval same = bootstrap_median_interval({0.9, 0.9, 0.9, 0.9}, 7);
    CHECK(same.low == 0.9);
    CHECK(same.high == 0.9);
}

TEST_CASE("timing: the interval of points is the curve at the interval's ends") {
    const BootstrapInterval flat = score_interval(curve(), 20, 0.9, 1.1);
    CHECK(flat.low == 20);
    CHECK(flat.high == 20);
    const BootstrapInterval slope = score_interval(curve(), 20, 1.2, 1.3);
    CHECK(slope.low == doctest::Approx(20 * (1 - 0.4 * 0.15 / 0.35)));
    CHECK(slope.high == doctest::Approx(20 * (1 - 0.4 * 0.05 / 0.35)));
    const BootstrapInterval across = score_interval(curve(), 10, 1.0, 2.25);  // from full marks to the last slope's middle
    CHECK(across.low == doctest::Approx(3));
    CHECK(across.high == doctest::Approx(10));
}

TEST_CASE("timing: the student's line: speed, points and their intervals, runs made again, the clocks") {
    // Three interleaved rounds as run_performance takes them, the clocks from a fake reader: the
    // first reference run was throttled by the power cap and is made again.
    const GpuClocks clear = reading(1980, 2619, 0), capped = reading(1755, 2619, kClockReasonSwPowerCap);
    FakeClocks clocks({capped, clear, clear, clear, clear, clear, clear, clear, clear, clear, clear, clear, clear, clear});
    std::vector<TimedSample> samples;
    PerformanceEvidence evidence;
    const double reference_ms = 1.0, student_ms[3] = {1.25, 1.2, 1.3};
    int runs = 0;
    for (int round = 0; round < 3; ++round) {
        REQUIRE(sample_between_clock_readings(clocks, round + 1, true, as_it_is, run_taking(reference_ms, runs), samples));
        REQUIRE(sample_between_clock_readings(clocks, round + 1, false, as_it_is, run_taking(student_ms[round], runs), samples));
        PerformanceRound r;
        r.reference = {reference_ms * 1e7, 10, 10};
        r.student = {student_ms[round] * 1e7, 10, 10};
        evidence.rounds.push_back(r);
    }
    CHECK(runs == 7);
    const PerformanceJudgement j = judge_performance(evidence, curve(), 0, 0);
    REQUIRE(j.ratios.size() == 3);
    const double score = 20 * j.fraction;  // the score as run_performance gives it, unchanged
    const PerformanceTiming t = performance_timing(samples, j.ratios, j.slowdown, score, 20, curve(), 99);
    CHECK(t.slowdown == doctest::Approx(1.25));
    CHECK(t.score == doctest::Approx(20 * (1 - 0.4 * 0.1 / 0.35)));
    const std::string text = timing_feedback(t);
    CHECK(text.find("your kernel time 1.25x the reference's (95% interval 1.20-1.30 over 3 rounds): 17.7 of 20 points (interval 16.6-18.9)\n") ==
          0);
    CHECK(text.find("round 1: the reference's run was timed while the GPU slowed itself (SW power cap): it was run again, and this run does not "
                    "count\n") != std::string::npos);
    CHECK(text.find("GPU clocks read before and after the timed runs: SM 1980 MHz, memory 2619 MHz\n") != std::string::npos);  // the discarded run not counted

    // Clocks unknown: said so, and the rest as before.
    FakeClocks none({});
    std::vector<TimedSample> blind;
    REQUIRE(sample_between_clock_readings(none, 1, true, as_it_is, run_taking(1.0, runs), blind));
    const std::string unknown = timing_feedback(performance_timing(blind, {1.1}, 1.1, 20, 20, curve(), 99));
    CHECK(unknown.find("your kernel time 1.10x the reference's (one round: no interval): 20.0 of 20 points\n") == 0);
    CHECK(unknown.find("GPU clocks unknown") != std::string::npos);
    CHECK(timing_feedback(PerformanceTiming()).empty());
}

TEST_CASE("timing: the audit log keeps every sample's clocks and reasons, the ratios and the intervals") {
    StudentResult r;
    r.student = "alice";
    TestResult perf{"perf", "Perf", 17.7, 20, Visibility::Visible, ""};
    TimedSample s;
    s.round = 1;
    s.reference = true;
    s.kept = false;
    s.ms_per_rep = 1.0;
    s.before = reading(1755, 2619, kClockReasonSwPowerCap);
    s.after = GpuClocks();
    perf.timing = performance_timing({s}, {1.25, 1.2, 1.3}, 1.25, 17.7, 20, curve(), 99);
    r.tests = {perf, {"correct", "Correct", 10, 10, Visibility::Visible, ""}};
    const json j = json::parse(audit_json(r, "01", 1, "GPU", "bwrap", "tools", "sha"));
    REQUIRE(j.contains("timing"));
    CHECK_FALSE(j["timing"].contains("correct"));
    const json& t = j["timing"]["perf"];
    CHECK(t["samples"][0]["side"] == "reference");
    CHECK(t["samples"][0]["kept"] == false);
    CHECK(t["samples"][0]["throttled"] == true);
    CHECK(t["samples"][0]["before"]["reasons"] == "0x0000000000000004");
    CHECK(t["samples"][0]["before"]["reason_names"] == json::array({"SW power cap"}));
    CHECK(t["samples"][0]["before"]["sm_mhz"] == 1755);
    CHECK(t["samples"][0]["after"] == "unknown");
    CHECK(t["ratios"].size() == 3);
    CHECK(t["interval"] == json::array({1.2, 1.3}));
    CHECK(t["score_interval"][0].get<double>() == doctest::Approx(20 * (1 - 0.4 * 0.15 / 0.35)));
    CHECK(t["bootstrap"]["seed"] == 99);
    CHECK(t["bootstrap"]["resamples"] == kBootstrapResamples);
    StudentResult plain;
    plain.tests = {{"correct", "Correct", 10, 10, Visibility::Visible, ""}};
    CHECK_FALSE(json::parse(audit_json(plain, "01", 1, "GPU", "bwrap", "tools", "sha")).contains("timing"));
}

TEST_CASE("timing: ranks are shared where intervals overlap the group's fastest entry") {
    std::vector<LeaderboardRow> rows = {row(1.00, 0.95, 1.05), row(1.03, 1.00, 1.08), row(1.07, 1.06, 1.10), row(1.20, 1.18, 1.22),
                                        row(1.21, 1.21, 1.21), row(1.50, 1.50, 1.50), row(1.50, 1.50, 1.50), row(1.60, 1.60, 1.60)};
    rank_rows(rows);
    std::vector<std::string> shown;
    for (const LeaderboardRow& r : rows) shown.push_back(rank_text(r));
    // The third overlaps the second but not the first, the group's fastest: a rank of its own.
    CHECK(shown == std::vector<std::string>{"=1", "=1", "3", "=4", "=4", "=6", "=6", "8"});
}

TEST_CASE("timing: the leaderboard reads each entry's interval from the audit log and shows ties") {
    Rubric rubric = rubric_of({test_spec("correct", "", 10), test_spec("perf", "", 20, TestKind::Performance)});
    StudentResult r;
    r.tests = {{"correct", "Correct", 10, 10, Visibility::Visible, ""}, {"perf", "Perf", 17.7, 20, Visibility::Visible, ""}};
    r.tests[1].slowdown = 1.25;
    r.tests[1].timing = performance_timing({}, {1.25, 1.2, 1.3}, 1.25, 17.7, 20, curve(), 99);
    const json audit = leaderboard_audit(r, rubric);
    CHECK(audit["interval"]["perf"] == json::array({1.2, 1.3}));
    CHECK(audit["figure_interval"] == json::array({1.2, 1.3}));

    TempDir dir;
    auto line = [](const std::string& who, const json& lb) {
        return json({{"event", "submission"}, {"lab", "01"}, {"student", who}, {"device", "NVIDIA H100 (driver 1)"}, {"leaderboard", lb}}).dump() +
               "\n";
    };
    json slower = audit;
    slower["figure"] = 1.28;
    slower["slowdown"]["perf"] = 1.28;
    slower["figure_interval"] = {1.26, 1.4};  // overlaps 1.2-1.3
    json apart = audit;
    apart["figure"] = 1.5;
    apart["slowdown"]["perf"] = 1.5;
    apart["figure_interval"] = {1.45, 1.55};
    json forged = audit;
    forged["figure"] = 1.52;
    forged["slowdown"]["perf"] = 1.52;
    forged["figure_interval"] = {1.0, 1.1};  // does not hold its figure: not read, the figure stands alone
    write_file(dir.path + "/audit.jsonl", json({{"event", "run"}, {"lab", "01"}, {"tree", "t"}}).dump() + "\n" + line("a", audit) +
                                              line("b", slower) + line("c", apart) + line("d", forged));
    const std::vector<LeaderboardBoard> boards = build_leaderboards({dir.path}, "0123456789abcdef-course");
    REQUIRE(boards.size() == 1);
    REQUIRE(boards[0].rows.size() == 4);
    std::vector<std::string> shown;
    for (const LeaderboardRow& row : boards[0].rows) shown.push_back(rank_text(row));
    // b overlaps a; d's 1.52 lies in c's 1.45-1.55.
    CHECK(shown == std::vector<std::string>{"=1", "=1", "=3", "=3"});
    const std::string html = leaderboard_html(boards, "t");
    CHECK(html.find("<td class=\"num rank\">=1</td>") != std::string::npos);
    CHECK(html.find("1.200&ndash;1.300") != std::string::npos);
    CHECK(html.find("A rank shown as =3 is shared") != std::string::npos);
    CHECK(leaderboard_csv(boards).find(",1.450,1.550,yes,file\n") != std::string::npos);  // its log records no date
}

TEST_CASE("timing: the machine's own reader never fails, and a GPU no one has reads as unknown") {
    TempDir dir;
    // No NVML, no nvidia-smi, or a UUID no GPU has: clocks unknown, never an error.
    const GpuClocks nobody = open_clock_reader("GPU-00000000-0000-0000-0000-000000000000", "", dir.path)->read();
    CHECK_FALSE(nobody.known);
    // Whatever this machine has (a GPU or none), a reading is either unknown or names its source.
    const GpuClocks mine = open_clock_reader("", "", dir.path)->read();
    CHECK((!mine.known || mine.source == "nvml" || mine.source == "nvidia-smi"));
}

TEST_CASE("timing: reference runs shared with submissions graded just before are said so, in the feedback and the audit log") {
    std::vector<TimedSample> samples;
    for (int round = 1; round <= 3; ++round) {
        TimedSample reference;
        reference.round = round;
        reference.reference = true;
        reference.ms_per_rep = 1.0;
        reference.shared = round < 3;  // the third measured for this submission
        reference.age_s = round < 3 ? 20.0 / round : 0.5;
        samples.push_back(reference);
    }
    TimedSample student;
    student.round = 1;
    student.ms_per_rep = 1.2;
    samples.push_back(student);
    const PerformanceTiming t = performance_timing(samples, {1.2}, 1.2, 20, 20, curve(), 99);
    const std::string text = timing_feedback(t);
    CHECK(text.find("the reference's time: 2 of its 3 timed runs were measured on this GPU for submissions graded just before yours (the "
                    "oldest 20 s before); it is timed afresh once every 2 submissions, and all over again when that run differs from the others "
                    "by more than 5% or they are older than 120 s\n") != std::string::npos);
    StudentResult r;
    TestResult perf{"perf", "Perf", 20, 20, Visibility::Visible, ""};
    perf.timing = t;
    r.tests = {perf};
    const json j = json::parse(audit_json(r, "01", 1, "GPU", "bwrap", "tools", "sha"));
    const json& logged = j["timing"]["perf"]["samples"];
    REQUIRE(logged.size() == 4);
    CHECK(logged[0]["shared"] == true);
    CHECK(logged[0]["age_s"] == 20.0);
    CHECK(logged[2]["shared"] == false);
    CHECK(logged[3]["side"] == "student");
    CHECK(logged[3]["shared"] == false);

    // Nothing shared (the first submission on a GPU): no such line.
    for (TimedSample& s : samples) s.shared = false;
    CHECK(timing_feedback(performance_timing(samples, {1.2}, 1.2, 20, 20, curve(), 99)).find("the reference's time") == std::string::npos);
}

namespace {
std::vector<double> ratios_of(const std::vector<double>& student, const std::vector<double>& reference) {
    std::vector<double> r;
    for (size_t i = 0; i < student.size(); ++i) r.push_back(student[i] / reference[i]);
    return r;
}
bool overlap(const BootstrapInterval& a, const BootstrapInterval& b) { return a.low <= b.high && b.low <= a.high; }
}  // namespace

TEST_CASE("timing: the interval resamples both sides, so two gradings of the same kernel overlap and a clearly slower one does not") {
    // The reference, graded twice a few submissions apart: its pool moved by one sample; each
    // copy's three rounds within the reference's own half-percent spread.
    const std::vector<double> pool_a = {1.000, 1.005, 0.997}, pool_b = {1.005, 0.997, 1.003};
    const std::vector<double> copy_a = {0.997, 1.002, 0.995}, copy_b = {1.008, 1.001, 1.006};
    const double median_a = median_value(ratios_of(copy_a, pool_a)), median_b = median_value(ratios_of(copy_b, pool_b));
    // The rounds' ratios alone give two disjoint intervals for the same program: a false ranking.
    CHECK_FALSE(overlap(bootstrap_median_interval(ratios_of(copy_a, pool_a), 7), bootstrap_median_interval(ratios_of(copy_b, pool_b), 7)));
    const BootstrapInterval a = bootstrap_ratio_interval(copy_a, pool_a, median_a, 7);
    const BootstrapInterval b = bootstrap_ratio_interval(copy_b, pool_b, median_b, 8);
    CHECK(overlap(a, b));
    CHECK(a.low <= median_a);
    CHECK(a.high >= median_a);
    CHECK(a.high - a.low < 0.03);  // still as narrow as the two sides' spread
    // Identical samplings overlap whatever the seed, and a seed gives the same interval again.
    const BootstrapInterval again = bootstrap_ratio_interval(copy_a, pool_a, median_a, 7);
    CHECK(again.low == a.low);
    CHECK(again.high == a.high);
    CHECK(overlap(a, bootstrap_ratio_interval(copy_a, pool_a, median_a, 12345)));
    // A kernel 4% slower is told apart.
    const std::vector<double> slower = {1.040, 1.043, 1.038};
    const BootstrapInterval s = bootstrap_ratio_interval(slower, pool_b, median_value(ratios_of(slower, pool_b)), 9);
    CHECK_FALSE(overlap(a, s));
    CHECK(s.low > a.high);
    // One sample on each side: no interval, the point itself.
    const BootstrapInterval one = bootstrap_ratio_interval({1.1}, {1.0}, 1.1, 7);
    CHECK(one.low == 1.1);
    CHECK(one.high == 1.1);
}

TEST_CASE("timing: a test's timing with both sides' times uses their interval, and the audit log keeps them") {
    const std::vector<double> student = {1.25, 1.2, 1.3}, reference = {1.0, 1.01, 0.99};
    const std::vector<double> ratios = ratios_of(student, reference);
    const double slowdown = median_value(ratios);
    TimedSample sample;  // (the audit log keeps a test's timing where it has samples)
    sample.ms_per_rep = 1.25;
    const PerformanceTiming t = performance_timing({sample}, ratios, slowdown, 17.7, 20, curve(), 99, student, reference);
    const BootstrapInterval expected = bootstrap_ratio_interval(student, reference, slowdown, 99);
    CHECK(t.low == expected.low);
    CHECK(t.high == expected.high);
    CHECK(t.low <= slowdown);
    CHECK(t.high >= slowdown);
    CHECK(t.resamples == kBootstrapResamples);
    StudentResult r;
    TestResult perf{"perf", "Perf", 17.7, 20, Visibility::Visible, ""};
    perf.timing = t;
    r.tests = {perf};
    const json j = json::parse(audit_json(r, "01", 1, "GPU", "bwrap", "tools", "sha"))["timing"]["perf"]["bootstrap"];
    CHECK(j["student_ms"] == json(student));
    CHECK(j["reference_ms"] == json(reference));
    CHECK(j["method"].get<std::string>().find("each side resampled on its own") != std::string::npos);
}

TEST_CASE("timing: a performance test's one timed process split into its rounds, in the order the repetitions ran") {
    // A warm-up, then 3 rounds of 2 repetitions: round k's kernels take k ms; a library kernel
    // is not the file's; staged bytes follow their repetition.
    ProgramRun pr;
    pr.cases.resize(1);
    auto rep = [](bool warmup, double ms, double staged = 0) {
        RepetitionEvidence r;
        r.warmup = warmup;
        r.kernels = {{"mine", false, ms * 1e6}, {"cublas_gemm", false, 5e6}};
        r.staged_bytes = staged;
        return r;
    };
    pr.cases[0].reps = {rep(true, 9), rep(false, 1), rep(false, 1), rep(false, 2, 100), rep(false, 2), rep(false, 3), rep(false, 3)};
    const std::vector<TimedRun> rounds = timed_rounds(pr, {"mine"}, 2, 3);
    REQUIRE(rounds.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
        CHECK(rounds[i].repetitions == 2);
        CHECK(rounds[i].launches == 2);
        CHECK(rounds[i].per_rep_ms() == doctest::Approx(static_cast<double>(i + 1)));
    }
    CHECK(rounds[1].staged_bytes == 100);
    CHECK(rounds[0].staged_bytes == 0);
    // One round of all: the whole run, as a timed run was counted before.
    const TimedRun whole = timed_rounds(pr, {"mine"}, 1, 1)[0];
    CHECK(whole.repetitions == 6);
    CHECK(whole.kernel_ns == doctest::Approx(12e6));
    // Fewer repetitions than rounds x reps (the run ended early): the last rounds have none, and
    // judge_performance says no kernel ran in them.
    pr.cases[0].reps.resize(3);
    const std::vector<TimedRun> short_run = timed_rounds(pr, {"mine"}, 2, 3);
    CHECK(short_run[0].repetitions == 2);
    CHECK(short_run[1].repetitions == 0);
    CHECK(short_run[2].repetitions == 0);
}

TEST_CASE("timing: the student's samples, one a round of its one timed process, after the attempts set aside for throttling") {
    const GpuClocks clear = reading(1980, 2619, 0), capped = reading(1755, 2619, kClockReasonSwPowerCap);
    TimedSample set_aside, kept;
    set_aside.round = kept.round = 1;
    set_aside.before = capped;
    set_aside.after = clear;
    set_aside.kept = false;
    set_aside.ms_per_rep = 2.5;
    kept.attempt = 1;
    kept.before = kept.after = clear;
    kept.ms_per_rep = 2.0;
    std::vector<TimedRun> rounds(3);
    for (size_t i = 0; i < 3; ++i) rounds[i] = {(1.0 + 0.5 * static_cast<double>(i)) * 1e7, 10, 10};
    const std::vector<TimedSample> samples = round_samples({set_aside, kept}, rounds);
    REQUIRE(samples.size() == 4);
    CHECK_FALSE(samples[0].kept);
    CHECK(samples[0].ms_per_rep == 2.5);
    for (size_t i = 1; i < 4; ++i) {
        CHECK(samples[i].kept);
        CHECK(samples[i].round == static_cast<int>(i));
        CHECK(samples[i].attempt == 1);
        CHECK(samples[i].ms_per_rep == doctest::Approx(0.5 + 0.5 * static_cast<double>(i)));
        CHECK(samples[i].before.sm_mhz == 1980);
    }
    // A process that could not be timed: its attempts as they were.
    CHECK(round_samples({kept}, {}).size() == 1);
    CHECK(round_samples({}, rounds).empty());
}
