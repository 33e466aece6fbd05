// Command-line options common to every lab. Host-only: unit-tested with g++.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudalabs {

// A bad command line. main() prints what() and exits with kExitUsage.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One problem size: 1 to 3 extents, written "4096", "1000x700" or "64x64x3".
using Dims = std::vector<long long>;

struct Options {
    // The seed of `variant`'s inputs: its own from --variant NAME@SEED, else --seed.
    uint64_t seed_of(const std::string& variant) const;

    bool help = false;
    bool list = false;    // --list: print the variants and exit
    bool describe = false;  // --describe: print the lab's declaration as JSON and exit
    bool bench = false;   // --bench: the lab's benchmark sizes
    bool quick = false;   // --quick: tiny sizes, one repetition (for compute-sanitizer)
    std::vector<Dims> sizes;            // -n/--size; empty: the lab's defaults
    uint64_t seed = 2026;               // --seed
    int reps = -1;                      // --reps; 0: check only, time nothing; -1: the mode's default
    std::vector<std::string> variants;  // --variant; empty: all
    // --variant NAME@SEED: that variant's inputs come from SEED instead of --seed, so one run can
    // repeat cases that separate runs made with different seeds (inputs depend only on the seed).
    std::map<std::string, uint64_t> variant_seeds;
    std::string json_path;              // --json FILE
    std::string markdown_path;          // --markdown FILE
    int device = 0;                     // --device
    // --guard-buffers: device buffers get guard zones and inputs are checked unchanged after
    // every case (see buffers.h). Off by default: memcheck wants exactly sized allocations.
    bool guard_buffers = false;
    std::vector<std::string> positional;
};

// Parses a whole positive integer no larger than max_value. `what` names the value in errors.
long long parse_positive(const std::string& text, const std::string& what,
                         long long max_value = (1LL << 62));
// The same, but 0 is allowed (a count: --reps 0).
long long parse_count(const std::string& text, const std::string& what, long long max_value = (1LL << 62));

// Parses "N", "NxM" or "NxMxK" (each extent positive).
Dims parse_dims(const std::string& text);

// Parses a comma-separated list of sizes: "1,17,1000x7".
std::vector<Dims> parse_size_list(const std::string& text);

// "1000x700" for {1000, 700}.
std::string format_dims(const Dims& dims);

// Parses argv. Throws UsageError with a message that names the bad flag or value. An option the
// lab does not know goes to the installed RunHooks (run_hooks.h) before it is refused.
Options parse_args(int argc, const char* const* argv);

// The help text for the options above; `program` and `size_help` come from the lab.
std::string common_options_help();

}  // namespace cudalabs
