// Judging what a run showed, outside the student's process: whether one checked case (a row)
// counts, and what a performance test's rounds are worth. Pure functions of the
// evidence the grader gathered (the verifier's verdict, the channel's records, the kernel
// trace); host-only: unit-tested with g++.
#pragma once
#include <string>
#include <vector>

#include "intake/rubric.h"
#include "runs/runs.h"  // HostTransfer

namespace grading {

// One checked case (variant at one size) of a correctness run.
struct RowEvidence {
    std::string size;
    bool verified = false;         // the trusted verifier said PASS
    std::string verifier_note;     // its reason when not
    bool kernel_ran = false;       // a kernel of the student's file ran during the case
    std::string foreign_kernel;    // a kernel not of the student's file that ran in a timed repetition
    std::vector<HostTransfer> transfers;
};

struct RowJudgement {
    bool passed = false;
    std::string why;    // empty when passed; else one sentence for the student
    bool cheats = false;  // the result was not made by the test's rules (below): the test scores 0
};

// `require_kernels`: the rows need a student kernel to have run, and no kernel foreign to the
// file in its repetitions (only when the trace works: the caller clears foreign_kernel when that
// rule is off).
// A row that fails because its result did not come from its own inputs (right when checked,
// wrong once the grader gave a timed repetition new input values), or because it was right but
// made by other means than the test allows (a copy the rule forbids, a library's kernel, no
// kernel of the file), cheats the test: `cheats` is set, and the test scores 0 however its other
// rows did. A row that is merely wrong, or wrong already when checked, is only that row's loss.
RowJudgement judge_row(const RowEvidence& row, HostTransfers rule, bool require_kernels);

// The first transfer that `rule` does not allow, or nullptr.
const HostTransfer* forbidden_transfer(const std::vector<HostTransfer>& transfers, HostTransfers rule);

// One program's timed repetitions in one round of a performance test, from the kernel trace.
struct TimedRun {
    double kernel_ns = 0;  // the program's own kernels, summed over its timed repetitions
    int repetitions = 0;   // timed repetitions that ran (warm-up not counted)
    int launches = 0;      // its kernels launched in them
    double staged_bytes = 0;  // what its copies into scratch memory (device_to_scratch) moved in them
    double per_rep_ms() const { return repetitions > 0 ? kernel_ns / 1e6 / repetitions : 0; }
};

struct PerformanceRound {
    TimedRun reference, student;
};

struct PerformanceEvidence {
    std::vector<PerformanceRound> rounds;
    double bytes = 0;     // what one repetition must move through device memory (0: unknown)
    double flops = 0;     // what one repetition computes (0: unknown)
    double copy_gbs = 0;  // the device's copy bandwidth, measured by the trusted reference run
    // The reference's roofline counts of the variant (its --json "roofline_bytes" and
    // "roofline_flops"): only for the feedback's picture, never for the score (0: not counted).
    double roofline_bytes = 0, roofline_flops = 0;
};

struct PerformanceJudgement {
    double slowdown = 0;   // median over rounds of student time / reference time
    std::vector<double> ratios;  // each round's student time / reference time (empty where not judged)
    std::vector<double> student_round_ms, reference_round_ms;  // each round's times per repetition, copies charged
    double fraction = 0;   // of the points
    double floor_ms = 0;   // the fastest time physically plausible for one repetition
    bool tampering = false;
    std::string text;      // what the student reads
    // Each side's median time per repetition, copies into scratch memory charged (0 where not judged).
    double student_ms = 0, reference_ms = 0;
};

// The student's and the reference's median time per repetition, as rates: the bytes a
// repetition must move per second against the copy bandwidth measured on this GPU, and the
// FLOP rate, each beside the reference's ("" when the evidence has neither). A line each.
std::string scorecard_lines(const PerformanceEvidence& e, double student_ms, double reference_ms);
double median_ms(const PerformanceEvidence& e, bool reference);
// The median of a non-empty sample (the middle two's mean for an even count).
double median_value(std::vector<double> v);

// The score of a performance test: the median slowdown on `curve`; a student repetition faster
// than the plausibility floor (bytes over copy bandwidth x plausible_bandwidth, or flops over
// the reference's own FLOP rate x plausible_flop_rate) scores 0 as tampering.
PerformanceJudgement judge_performance(const PerformanceEvidence& evidence, const Curve& curve,
                                       double plausible_bandwidth, double plausible_flop_rate);

}  // namespace grading
