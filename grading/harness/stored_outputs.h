// The verifier's side of stored outputs (--verify-outputs DIR): the reference solution, run
// with the program's seed, sizes and variants, judges the outputs the grader stored from the
// program's run (named as in channel_format.h) instead of its own. Host-only.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "run_hooks.h"

namespace cudalabs {

class StoredOutputs {
public:
    explicit StoredOutputs(std::string dir) : dir_(std::move(dir)) {}

    // What to judge for checked output k of case `case_key` (`bytes` each): the stored output in
    // its place (where it is missing and the case sent a fault, the fault says why), then, unless `with_repetitions` is false (fresh repetitions send samples,
    // judged as they run), the outputs of the timed repetitions that differed from it.
    std::vector<StoredOutput> judged_instead(const std::string& case_key, int k, size_t bytes, bool with_repetitions) const;
    // The faults the program's run sent for the case: they fail it here too.
    std::vector<std::string> faults(const std::string& case_key) const;
    // The sample of output k that timed repetition `rep` sent (fresh repetitions).
    std::string timed_output_path(const std::string& case_key, int k, int rep) const;

    // The whole file at `path`, when it holds exactly `bytes` bytes.
    static bool read(const std::string& path, size_t bytes, std::vector<unsigned char>& data);

private:
    std::string output_path(const std::string& case_key, int k) const;
    std::vector<std::pair<int, std::string>> timed_output_paths(const std::string& case_key, int k) const;  // (rep, path), by rep
    std::string dir_;
};

}  // namespace cudalabs
