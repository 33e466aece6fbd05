// The class's last files: the summary (printed too), and with --gradescope, --roster and --shard
// their files; the submissions the grader could not grade named, with the command that grades
// them again.
#pragma once
#include <string>
#include <vector>

#include "class/class_results.h"
#include "stages/run.h"
#include "stages/workers.h"

namespace grading {

// Returns the run's exit code: 1 where a submission could not be graded (a grader error), else 0.
int write_class_results(const GradingSetup& setup, const Workers& workers, ClassSlice& slice, const ClassResults& book,
                        const std::vector<std::string>& regrade_note);

}  // namespace grading
