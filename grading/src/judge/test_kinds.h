// The three kinds of rubric test, each run and judged outside the student's process:
// correctness (hidden sizes and seeds, outputs judged by the trusted verifier), sanitizer
// (compute-sanitizer's verdict from its exit status and its own log), performance (rounds
// beside the reference's pooled timed runs, timed repetitions verified, a plausibility floor).
#pragma once
#include <map>
#include <set>
#include <string>

#include "runs/context.h"
#include "judge/judge.h"
#include "judge/result.h"
#include "runs/runs.h"

namespace grading {

// One submission as the test runners see it.
struct GradedProgram {
    std::string id, program, run_dir, source_copy, file;
    std::set<std::string> kernels;  // exact device names of the kernels its file defines
};

// What one process runs of trial `trial` under --combine-correctness: the variants of every
// correctness test of the rubric whose sizes for that trial are `sizes`, each with its own test's
// seed (run as --variant NAME@SEED). A test with a variant already there (under another test's
// seed) runs on its own, as does one that needs another test first (it may never run).
// `timeout_s` is the sum of the tests' run timeouts.
struct CombinedTrial {
    std::map<std::string, unsigned long long> seeds;  // variant -> its test's seed
    double timeout_s = 0;
    size_t tests = 0;  // combined only when at least 2
};
CombinedTrial combined_trial(const GradingSetup& setup, int trial, const std::vector<std::string>& sizes);

// A correctness test: each trial's variants run with guard zones and judged by the verifier;
// with --combine-correctness a variant that passed in its trial's combined process is not run
// again (test_kinds.cpp says how that keeps the scores of separate runs).
TestResult run_correctness(GradingContext& ctx, const GradedProgram& s, const TestSpec& t);
// How a sanitizer test `t` runs a program: compute-sanitizer and its options in front of it, its
// report on a pipe the grader reads, no kernel trace. Only the program, its arguments and its
// folders are left to fill in. The self-test runs the reference this way too, so a tool that
// cannot run in the sandbox is found before anyone is graded.
RunRequest sanitizer_request(const GradingSetup& setup, const TestSpec& t);
TestResult run_sanitizer(GradingContext& ctx, const GradedProgram& s, const TestSpec& t);

// How each kind of test runs a submission's program on `variants` at `sizes` (comma lists): a
// correctness trial, a sanitizer run, a timed round (`args`: run_args with the round's
// repetitions). They differ only in the options handed over (runs.h, Launch) and the tool in
// front of the sanitizer's.
RunRequest correctness_request(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const std::string& variants,
                               const std::string& sizes, unsigned long long seed);
RunRequest sanitizer_request(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const std::string& variants,
                             const std::string& sizes, unsigned long long seed);
RunRequest timed_request(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const std::vector<std::string>& args);
TestResult run_performance(GradingContext& ctx, const GradedProgram& s, const TestSpec& t);

// The program's own kernels (`mine`) in a run's timed repetitions (warm-up not counted), in the
// order they ran, `reps` a round: a performance test's rounds, timed in one process of `rounds` x
// `reps` repetitions (repetitions beyond them count in the last round). Always `rounds` entries.
std::vector<TimedRun> timed_rounds(const ProgramRun& pr, const std::set<std::string>& mine, int reps, int rounds);

}  // namespace grading
