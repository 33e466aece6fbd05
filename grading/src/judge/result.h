// What grading a submission produced: each test's score and what the student reads, a timed
// test's samples, and the submission's result, whole or as a grader error. Host-only:
// unit-tested with g++.
#pragma once
#include <string>
#include <vector>

#include "gpu/gpu_clocks.h"
#include "intake/rubric.h"

namespace grading {

// One timed run of a performance test (the student's or the reference's side of one round),
// between two readings of the GPU's clocks. A run taken while the GPU was throttled for
// power or heat is made again (a bounded number of times): every attempt is kept here, and only
// the last one (`kept`) is timed.
struct TimedSample {
    int round = 0;  // from 1
    bool reference = false;  // the reference's run, else the student's
    int attempt = 0;  // from 0: how many runs of this side of the round came before it
    bool kept = true;
    double ms_per_rep = 0;  // its kernel time per repetition, as measured (copies not charged)
    GpuClocks before, after;
    // The reference's samples are pooled per GPU (judge/reference_pool.h): `shared` where it was
    // measured for another submission graded just before, `age_s` seconds before it was used.
    bool shared = false;
    double age_s = 0;
    bool throttled() const { return grading::throttled(before) || grading::throttled(after); }
};

// What a timed performance test measured beside its score: every sample, the rounds'
// ratios (the student's time over the reference's), and the percentile-bootstrap interval of
// their median, also mapped through the test's curve to points.
struct PerformanceTiming {
    std::vector<TimedSample> samples;
    std::vector<double> ratios;   // one per round, copies into scratch memory charged
    double slowdown = 0;          // their median: the figure the score comes from
    double low = 0, high = 0;     // the interval of the median
    double score = 0, score_low = 0, score_high = 0, max_score = 0;  // points, and their interval
    double confidence = 0.95;
    int resamples = 0;
    // Each side's judged time per repetition per round (copies charged): what the interval
    // resamples, each side on its own (empty: the ratios were resampled).
    std::vector<double> student_round_ms, reference_round_ms;
    unsigned long long bootstrap_seed = 0;
    bool measured() const { return !ratios.empty(); }
};

// A timed performance test's figures for the feedback's roofline picture (roofline_picture.h):
// the reference's counts of the variant at its size (its --json "roofline_bytes" and
// "roofline_flops"), the copy bandwidth it measured, and each side's median kernel time per
// repetition, as the score's ratio takes them. Empty where the test was not timed, or was forged.
struct RooflineFigures {
    std::string variant, size, device;
    double roofline_bytes = 0, roofline_flops = 0, copy_gbs = 0, student_ms = 0, reference_ms = 0;
    bool measured() const { return student_ms > 0 && reference_ms > 0; }
};

struct TestResult {
    std::string id, name;
    double score = 0, max_score = 0;
    Visibility visibility = Visibility::Visible;
    std::string output;  // what the student reads: what was checked, what failed and why
    bool not_run = false;  // built but deliberately not run (--compile-only): no verdict, not a 0
    // A performance test that was timed: the median ratio of the student's kernel time
    // to the reference's (the leaderboard's figure); 0 where not timed or forged.
    double slowdown = 0;
    PerformanceTiming timing{};  // a performance test's samples and interval (empty where not timed)
    RooflineFigures roofline{};  // a timed performance test's figures for the roofline picture
    bool passed() const { return max_score <= 0 ? score >= 0 : score >= max_score - 1e-9; }
};

struct StudentResult {
    std::string student;   // id: the file's stem or the folder's name, made safe (intake/submissions.h)
    std::string submitted_as;  // what the id stands for: the file or folder as found
    std::string file;      // the submitted file
    std::string sha256;    // of the submitted file
    bool compiled = false;
    std::string rejected;  // non-empty: not graded, and why (compile error, integrity)
    // Non-empty: the grader could not grade it (the environment failed, or the grader did):
    // why. Such a result has no score anywhere; a regrade gives it one.
    std::string grader_error;
    std::string compiler_output;
    std::vector<std::string> notes;  // shown at the top of the feedback
    std::vector<TestResult> tests;
    double execution_time_s = 0;

    double total() const;
    double max_total() const;
    // Built and audited, tests deliberately not run (--compile-only): no grade yet.
    bool compile_only() const;
    // Whether the result is a grade: not a grader error, not a compile-only pass.
    bool scored() const { return grader_error.empty() && !compile_only(); }
};

// `r` as a grader error: no score, and why (its tests, which may have run, are dropped).
void make_grader_error(StudentResult& r, const std::string& why);
// Every text of `r` (its names, messages, notes, each test's name and output) as valid UTF-8
// (util/text.h): the last guard before a result is written, so that no byte can stop the files.
void make_text_valid(StudentResult& r);

// What every report says instead of a total for a result that is no grade.
constexpr const char* kCompileOnlyVerdict = "build and audit passed; tests not run (run the grader on a GPU for the score)";
constexpr const char* kGraderErrorVerdict = "grader error";
// A result's total as every report shows it: "17.5/20", or for a result that is no grade the
// words above (never a number a student could take for a grade).
std::string total_text(const StudentResult& r, double max_points);

std::string format_points(double points);  // "12.5", "20"

}  // namespace grading
