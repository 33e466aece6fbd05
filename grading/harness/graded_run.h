// The grading harness: the RunHooks (common/run_hooks.h) that a program the grader builds
// installs (graded_run.cu). It parses the grader's options (grading_options.h); in a graded run
// (--channel) it sends the run, its cases, checked outputs, faults and timed repetitions through
// the result channel (channel_writer.h); in the verifier (--verify-outputs) it hands the outputs
// the grader stored to the lab's checks instead of its own (stored_outputs.h); with
// --fresh-inputs every timed repetition gets new inputs (fresh_inputs.h, repetitions.cu); a
// graded host round trip is watched (round_trip.h); and started as `--verifier-requests` it is
// a kept verifier, running one verification after another with the GPU open
// (verifier_requests.h, verification_requests.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grading_options.h"
#include "run_hooks.h"
#include "stored_outputs.h"
#include "verification_requests.h"

namespace cudalabs {

// What the harness keeps of the case under way.
struct GradedCase {
    std::string key;  // <variant>_<size>: it names the case's files in the grader's folder
    // Each checked output of the case (index k), kept in graded runs and in the verifier of fresh
    // repetitions: its timed repetitions are told apart, and judged, by it.
    struct Checked {
        uint64_t hash = 0;
        size_t bytes = 0;
        size_t elem_bytes = 0;
        ElementKind kind = ElementKind::Other;
        Tolerance tol;  // the check's: samples of timed repetitions are judged with it
    };
    std::vector<Checked> checked;
    int reps = 0;           // repetitions so far, numbered across all the case's timings
    bool rep_open = false;  // a repetition was framed as begun, not yet as ended
    std::vector<std::string> rep_faults;  // what its repetitions found
};

class GradedRun : public RunHooks {
public:
    std::vector<std::string> arguments(const std::vector<std::string>& given) override;
    bool take_option(const std::string& flag, const std::function<std::string()>& value) override;
    void options_read() override;
    void run_started() override;
    void device_ready() override;
    void run_finished() override;
    bool run_again(int exit_code) override;
    void case_begun(const std::string& variant, const Dims& dims) override;
    void case_ended(const std::string& failure, std::vector<std::string>& faults) override;
    std::vector<StoredOutput> output_checked(const CheckedOutput& output) override;
    void outputs_poisoned(const OutputRegion& region) override;
    void inputs_uploaded(const InputRegion& region) override;
    void buffer_freed(const void* ptr) override;
    std::unique_ptr<RepetitionObserver> repetitions_timed(const TimingPlan& plan, bool device_outputs) override;  // repetitions.cu
    std::unique_ptr<CallWatch> host_call_started(const HostCall& call) override;  // round_trip.cu

private:
    // Closes the case's frame in the result channel with what failed it.
    void send_case_end(const std::string& failure, std::vector<std::string>& faults);
    // In a run without the grading shims (the trusted reference): throws when memory cannot be
    // sealed here (round_trip.cu).
    void prove_sealing() const;
    // A run with a timing gate (--timing-gate): says TIMING_READY and waits for the grader's go,
    // once, before the run's first timed repetition (repetitions.cu).
    void wait_for_timing_turn();
    GradingOptions options_;
    GradedCase case_;
    // A kept verifier's requests (--verifier-requests), and the next one's words once read.
    std::unique_ptr<VerificationRequests> requests_;
    std::vector<std::string> next_request_;
};

}  // namespace cudalabs
