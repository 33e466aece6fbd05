// The student edition's stand-in for the grader's harness (grading/harness/, which only the
// course tree has): without it timed repetitions are not watched, so a program built here
// times its cases but cannot be graded through --channel.
#include "lab.h"

namespace cudalabs {

std::unique_ptr<RepetitionObserver> RunContext::watch_repetitions(bool) { return nullptr; }
std::unique_ptr<CallWatch> RunContext::watch_round_trip(const std::vector<HostSpan>&, HostSpan) { return nullptr; }

}  // namespace cudalabs
