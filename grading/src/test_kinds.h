// The three kinds of rubric test, each run and judged outside the student's process:
// correctness (hidden sizes and seeds, outputs judged by the trusted verifier), sanitizer
// (compute-sanitizer's verdict from its exit status and its own log), performance (interleaved
// rounds with the reference, timed repetitions verified, a plausibility floor).
#pragma once
#include <set>
#include <string>

#include "context.h"
#include "results.h"

namespace grading {

// One submission as the test runners see it.
struct GradedProgram {
    std::string id, program, run_dir, source_copy, file;
    std::set<std::string> kernels;  // exact device names of the kernels its file defines
};

TestResult run_correctness(GradingContext& ctx, const GradedProgram& s, const TestSpec& t);
TestResult run_sanitizer(GradingContext& ctx, const GradedProgram& s, const TestSpec& t);
TestResult run_performance(GradingContext& ctx, const GradedProgram& s, const TestSpec& t);

}  // namespace grading
