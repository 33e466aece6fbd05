// What a run reports as it goes. The runner, RunContext and the buffers tell the installed
// RunHooks of each step of a run: an option the lab does not know, the run's start and end, each
// case, each checked output, the buffers a case poisons, uploads and frees, and the repetitions
// it times. Every method does nothing by default, and nothing is installed in a lab program: a
// program that wants to watch its runs installs its own (install_run_hooks, before run_lab runs;
// a static object's constructor will do). Host-only.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "host_span.h"
#include "timing_plan.h"
#include "validate.h"

namespace cudalabs {

struct OutputRegion;
struct InputRegion;

// The k-th output a case checked (RunContext::check), as the program computed it.
struct CheckedOutput {
    int index = 0;  // 0, 1, ... in the order the case checks its outputs
    const void* data = nullptr;
    size_t bytes = 0, elem_bytes = 0;
    ElementKind kind = ElementKind::Other;
    Tolerance tol;
};

// A call that works on host arrays (RunContext::run_round_trip, run_host_call).
struct HostCall {
    std::vector<HostSpan> inputs;  // what it hands to the GPU
    // Where its result lands: a round trip's copies bring it back; otherwise the GPU writes it
    // there directly (pinned or mapped memory), and the CPU has no reason to touch it. Empty: none.
    HostSpan output;
    std::vector<HostSpan> hidden;  // the driver's own data the call has no reason to read (expected values)
    bool round_trip = false;       // its result is to be the bytes its own copies bring back
};

// An output to judge in place of a checked output or after it: one kept from another run of the
// same case (same seed, sizes and variants), read when it is judged.
struct StoredOutput {
    // Empty: it stands in for the checked output itself. Otherwise it names a later repetition
    // of the same work ("timed repetition 3"), judged against the same expected values.
    std::string repetition;
    std::string missing;  // the case's failure when read() finds no output of the expected size
    std::function<bool(std::vector<unsigned char>& bytes)> read;  // false: none of the expected size
};

class RunHooks {
public:
    virtual ~RunHooks() = default;

    // ---- the command line ----
    // The arguments the program was started with (argv[1], ...). Returns those to read in their
    // place: a program started by another may be handed its options some other way. Throws
    // UsageError when they cannot be read.
    virtual std::vector<std::string> arguments(const std::vector<std::string>& given) { return given; }
    // An option the lab does not know. Returns true when it is the hooks': `value` then gives its
    // value (after '=' or the next argument; it throws UsageError when there is none). Throws
    // UsageError for a bad value; false leaves the option unknown.
    virtual bool take_option(const std::string&, const std::function<std::string()>&) { return false; }
    // Every option has been read: throws UsageError for a combination of the hooks' own that
    // cannot be.
    virtual void options_read() {}

    // ---- the run ----
    virtual void run_started() {}   // options parsed, before --help and the device (may throw UsageError)
    virtual void device_ready() {}  // the GPU is open; from here on the lab's own code runs
    virtual void run_finished() {}  // the run is over (not after a crash or an exit())
    // After run_finished, with the run's exit code: true runs the lab again in this process, with
    // the arguments arguments() hands over then. A program that serves another's requests one
    // after another keeps its GPU open between them.
    virtual bool run_again(int) { return false; }

    // ---- each case ----
    virtual void case_begun(const std::string&, const Dims&) {}
    // The case is over. `failure` is what already failed it (empty: nothing); each message the
    // hooks add to `faults` (what the buffers' checks found) fails it too.
    virtual void case_ended(const std::string&, std::vector<std::string>&) {}
    // A checked output. Returns the outputs to judge in its place (the first, when its
    // `repetition` is empty) and after it; empty: judge the program's own.
    virtual std::vector<StoredOutput> output_checked(const CheckedOutput&) { return {}; }

    // ---- the buffers of a case (buffers.h) ----
    virtual void outputs_poisoned(const OutputRegion&) {}  // a buffer the timed work must write
    virtual void inputs_uploaded(const InputRegion&) {}    // a buffer filled from the host
    virtual void buffer_freed(const void*) {}              // the buffer that starts here is gone

    // ---- timing ----
    // The repetitions about to be timed with `plan` (`device_outputs`: RunContext::time_gpu, whose
    // outputs are the poisoned buffers; else time_host): an observer of each, or null.
    virtual std::unique_ptr<RepetitionObserver> repetitions_timed(const TimingPlan&, bool) { return nullptr; }
    // A call on host arrays, about to run (RunContext::run_round_trip, run_host_call): a watch
    // over it, or null.
    virtual std::unique_ptr<CallWatch> host_call_started(const HostCall&) { return nullptr; }
};

// The installed hooks (ones that do nothing until install_run_hooks is called).
RunHooks& run_hooks();
// Installs `hooks` for the rest of the program (never destroyed: buffers freed while statics are
// torn down still report it). nullptr installs the ones that do nothing.
void install_run_hooks(RunHooks* hooks);

}  // namespace cudalabs
