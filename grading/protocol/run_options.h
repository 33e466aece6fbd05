// How the grader hands a run its options (grading/DESIGN.md, "Runs alike"). Every run of a
// program starts with the same command line, `PROGRAM --options-from FD`; the run's options (the
// case list, sizes, seed, repetitions, --channel, --fresh-inputs) arrive on the pipe at
// descriptor FD, each word followed by a NUL, written and closed by the grader before the program
// starts. The harness (grading/harness/grading_options.cpp) reads them before any option is
// parsed and closes the pipe. Host-only, shared by the grader and the harness.
#pragma once

namespace cudalabs {
namespace run_options {

constexpr char kFlag[] = "--options-from";
constexpr int kFd = 5;  // 3 is the result channel's, 4 the sanitizer log's (when there is one)

}  // namespace run_options
}  // namespace cudalabs
