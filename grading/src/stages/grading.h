// Grading the class: every submission graded by the next free lane, in the order its build ends,
// each a unit whose faults are its own (a grader error, never the class's); its results recorded
// (run_folder.h) and written as it finishes, so that a run cut short keeps them.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "class/class_results.h"
#include "compile/build_queue.h"
#include "stages/inputs.h"
#include "stages/run_folder.h"
#include "stages/workers.h"

namespace grading {

class ClassGrading {
public:
    ClassGrading(const GradingSetup& setup, Workers& workers, RunFolder& folder, ClassSlice& slice, const ClassInputs& inputs,
                 ClassResults& book)
        : setup_(setup), workers_(workers), folder_(folder), slice_(slice), inputs_(inputs), book_(book) {}
    // Grades the class as `builds` builds it. Returns each submission's regrade note, in class
    // order ("": the same as before, or no regrade).
    std::vector<std::string> grade(BuildQueue& builds);

private:
    const GradingSetup& setup_;
    Workers& workers_;
    RunFolder& folder_;
    ClassSlice& slice_;
    const ClassInputs& inputs_;
    ClassResults& book_;
    BuildQueue* builds_ = nullptr;  // while the class is graded
    double sandbox_start_s_ = 0;    // what starting a program in the sandbox costs (the breakdown's estimate)
    std::vector<std::string> regrade_note_;
    size_t begin_files();
    void finish_one(Worker& w, size_t index, bool ran, size_t graded);
    bool grade_contained(Worker& w, Lane& lane, Submission& s, size_t index);
    void finish_contained(const Worker& w, size_t index, bool ran);
    void note_finished(size_t index);
    nlohmann::json run_line() const;
    nlohmann::json audit_line(const Worker& w, const Submission& s, bool ran) const;
    bool grade_submission(Worker& w, Lane& lane, Submission& s, size_t index);
    void grade_tests(Worker& w, Lane& lane, SubmissionState& state, Submission& s, size_t index);
    TestResult run_test(Worker& w, GradingContext& ctx, Submission& s, const TestSpec& t);
    double sandbox_start_seconds();
    void finish_breakdown() const;
};

}  // namespace grading
