// The grader's options of a lab program, which the lab itself does not know (grading/README.md,
// "The grading harness"): they reach the harness through RunHooks::take_option, with the same
// syntax as the lab's own (--channel 3, --channel=3). Host-only (unit-tested with g++).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "run_options.h"

namespace cudalabs {

// The options handed over on `fd` (run_options.h), read to the end of the pipe (which is closed). Throws
// UsageError when it cannot be read or holds no terminated list.
std::vector<std::string> read_handed_options(int fd);
// The words of a NUL-separated list (each word ends with a NUL); throws UsageError otherwise.
std::vector<std::string> split_handed_options(const std::string& bytes);
// The arguments to read for a command line of `given`: the handed-over options when it is exactly
// `--options-from FD` (run_options.h), else `given` as it is.
std::vector<std::string> arguments_to_read(const std::vector<std::string>& given);

struct GradingOptions {
    // Send every checked output, and what the timed repetitions did, through the grader's pipe
    // on descriptor FD (channel_writer.h); or check the outputs the grader stored in DIR instead
    // of this process's own.
    int channel_fd = -1;     // --channel FD; -1: none
    std::string verify_dir;  // --verify-outputs DIR
    // --fresh-inputs KEY (with --channel or --verify-outputs): every timed repetition gets new
    // input values and sends a sample of its outputs, chosen by KEY (fresh_inputs.h); 0: off.
    uint64_t fresh_key = 0;
    // --timing-gate FD (with --channel): before its first timed repetition the run says
    // TIMING_READY and waits for one byte on FD, the grader's go once it has the GPU alone.
    int timing_gate_fd = -1;

    bool grading() const { return channel_fd >= 0; }
    bool verifying() const { return !verify_dir.empty(); }
    bool verifying_fresh() const { return verifying() && fresh_key != 0; }

    // Takes `flag` when it is one of the above (its value from `value`) and returns true; throws
    // UsageError for a bad value.
    bool take(const std::string& flag, const std::function<std::string()>& value);
    // Once every option is read: throws UsageError for a combination that cannot be.
    void check() const;
};

}  // namespace cudalabs
