// The command line of `grading/grade`: its options (Config), their parsing, and every check that
// needs nothing built (the lab, the submissions, each file read and each folder written), so that
// a mistake is said at once, before minutes of building: `grading/grade` runs the small program
// grade_check.cpp, which makes only these checks, before it builds the grader. Depends on util/
// and the intake of submissions only. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace grading {

// What --gpus asked for. Not given: the one GPU CUDA picks, as without the option.
struct GpuRequest {
    bool given = false;
    bool all = false;          // --gpus all
    std::vector<int> indices;  // --gpus 0,2,3 (in the order given; no duplicates unless shared)
    std::string text;          // as written, for messages
    bool shared = false;       // an index given more than once (only where sharing is allowed)
};

// The environment variable that lets --gpus name a GPU more than once, one worker per mention,
// so that the several-worker path can be tested on a machine of one GPU (GRADING_SHARED_GPUS=1).
// Workers on one GPU disturb each other's timings: it is for testing the grader, not for a class.
inline constexpr const char* kSharedGpusVariable = "GRADING_SHARED_GPUS";

// "all", or CUDA device indices separated by commas ("0", "0,2,3"; spaces around them are
// allowed). Throws cudalabs::UsageError naming what is wrong: nothing given, an empty entry, a
// non-number, a negative or huge index, an index given twice (unless `shared_allowed`: then
// "0,0" is two workers on GPU 0, and the request says it is shared).
GpuRequest parse_gpu_list(const std::string& text, bool shared_allowed = false);

// --shard K/N: one node's slice of the class.
struct ShardSpec {
    int k = 0, n = 0;  // n == 0: not sharded
    bool active() const { return n > 0; }
    std::string text() const { return std::to_string(k) + "/" + std::to_string(n); }
};

// "K/N" with 0 <= K < N. Throws cudalabs::UsageError naming what is wrong.
ShardSpec parse_shard(const std::string& text);

// How a submission is kept apart, strongest first:
//   Bwrap   bubblewrap, the sandbox (started as kSandboxUid when the grader is root: bubblewrap
//           run by root keeps root and every capability unless told otherwise, and even with
//           --uid its processes stay root outside their user namespace); only /usr, /etc, /sys,
//           /dev, the `readonly` paths and the run folder are visible.
//   Uid     only when asked for by name, as root: kSandboxUid alone. It cannot signal the
//           grader or write its files, but it reads what any user may read and sees other
//           processes.
//   Unsafe  rlimits only, as the grader's own user: only when asked for by name.
enum class IsolationLevel { Bwrap, Uid, Unsafe };

// The level's name, as --isolation, the summaries, audit.jsonl and the feedback write it:
// "bwrap", "uid" or "unsafe".
inline const char* isolation_level_name(IsolationLevel level) {
    switch (level) {
        case IsolationLevel::Bwrap: return "bwrap";
        case IsolationLevel::Uid: return "uid";
        case IsolationLevel::Unsafe: return "unsafe";
    }
    return "unsafe";
}
// The level of that name; none for any other text.
inline std::optional<IsolationLevel> isolation_level_named(const std::string& name) {
    for (IsolationLevel level : {IsolationLevel::Bwrap, IsolationLevel::Uid, IsolationLevel::Unsafe})
        if (name == isolation_level_name(level)) return level;
    return std::nullopt;
}

struct Config {
    bool help = false;  // -h, --help: print kUsage, nothing else
    std::string root = ".";
    std::string lab, rubric_path, out_dir, isolation = "auto", regrade, gradescope;
    std::string resume;  // --resume OUT: finish the run recorded there, with its options
    unsigned long long seed = 0;
    int jobs = 0;
    bool compile_only = false, no_trace = false;
    size_t per_gpu = 0;        // --per-gpu N: submissions graded at once per GPU; 0: auto
    bool build_reuse = true;   // --no-build-reuse: every file compiled
    // A trial of every correctness test in one process (judge/test_kinds.h); --separate-correctness: each its own
    bool combine_correctness = true;
    bool keep_verifier = true;  // one verifier a lane, kept open (runs/kept_verifier.h); --separate-verifiers: one a verification
    ShardSpec shard;  // --shard K/N: only that slice of the class
    GpuRequest gpus;  // --gpus LIST|all: one worker per GPU
    std::vector<std::string> inputs;
    // --roster FILE: the class list the submissions are matched to; the LMS files' assignment
    // name (--lms-assignment) and points (--lms-points; 0: the rubric's)
    std::string roster, lms_assignment;
    double lms_points = 0;
    bool allow_unmatched_roster = false;  // --allow-unmatched-roster: a roster no submission matches is no error
};

// grading/grade --help.
extern const char* const kUsage;

// The options of a grading run (with -h or --help, only `help`). Throws cudalabs::UsageError
// naming a bad option or value.
Config parse_command_line(int argc, char** argv);

// ROOT/grading/rubrics/NN.rubric. Throws cudalabs::UsageError listing the labs there are where
// lab NN has no rubric.
std::string rubric_of_lab(const std::string& root, const std::string& lab);

// The largest files the grader reads that its user names.
constexpr size_t kMaxRosterBytes = 16 << 20;
constexpr size_t kMaxAuditLogBytes = 512 << 20;

// Everything about `cfg` that can be checked before anything is built, with no file written but
// the output folder made: the lab (its rubric), the submissions (each input there, a folder
// readable and not empty), the roster and an earlier run's audit log (readable regular files of
// a sane size), the output folder (writable, with free space, and neither inside a submissions
// folder nor holding one), --gradescope's file (its folder writable), --resume's folder (a run's
// record there). Throws cudalabs::UsageError: one sentence naming what is wrong and what to do.
void check_command(const Config& cfg);

// The output folder of a run given no --out: ROOT/build/grading/labNN-<date and time>.
std::string default_out_dir(const Config& cfg);

}  // namespace grading
