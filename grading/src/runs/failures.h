// Whose failure a run's end was. A failure of the environment -- the GPU could not be had, the
// sandbox could not start the program, the grader's own disk -- is never the student's: the run
// is made again after a pause, and one that keeps failing so is a grader error (no score).
// Host-only: unit-tested with g++ on made-up runs.
//
// The rules read only what the program cannot forge: whether it started (the grader's own
// start of it), and the records of the result channel that the harness writes before any of the
// student's code runs (RUN_BEGIN, then DEVICE_READY once the GPU is open). What the program
// itself prints or reports (an error message, an exit status, a CUDA error named in a fault)
// makes a failure only "unclear": retried like the others, and if it persists, judged by the
// trusted reference run in the same sandbox at that moment -- if the reference runs, the
// failure is the program's.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace grading {

struct ProgramRun;

enum class Blame {
    Program,      // the student's: scored
    Environment,  // never the student's: retried, then a grader error
    Unclear,      // retried; if it persists, the program's when the reference runs in the sandbox
};

struct FailureOrigin {
    Blame blame = Blame::Program;
    std::string reason;  // one sentence, for the feedback or the grader error
};

// How a run of a lab program ended, in the grader's terms (see the rules above).
FailureOrigin failure_origin(const ProgramRun& run);

// A failure that keeps the grader from grading a submission: the submission's row says
// "grader error" and why, with no score anywhere, and grade exits non-zero naming the regrade.
class GraderError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Pauses between attempts of a run that failed for the environment (seconds). The number of
// attempts is one more than its size.
struct RetryPolicy {
    std::vector<double> pauses_s = {1, 3, 9};
    size_t attempts() const { return pauses_s.size() + 1; }
};

// Sleeps for the pause before attempt `attempt` (0-based: none before the first).
void pause_before(const RetryPolicy& policy, size_t attempt);

}  // namespace grading
