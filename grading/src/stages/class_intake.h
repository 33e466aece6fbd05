// The class taken in (intake/submissions.h: every file read once, through no link), matched to
// the roster as a whole (every shard finds the same matches), then sliced to this shard's share.
#pragma once
#include <string>
#include <vector>

#include "stages/inputs.h"
#include "stages/run.h"

namespace grading {

// `notes` are said at the top of every submission's feedback. Throws cudalabs::UsageError where no
// submission is found, and std::runtime_error where a roster matches none (unless allowed).
ClassSlice take_in_class(const GradingSetup& setup, ClassInputs& inputs, const std::vector<std::string>& notes);

}  // namespace grading
