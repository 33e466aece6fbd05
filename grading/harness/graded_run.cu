// The grading harness's hooks (graded_run.h), installed in every program that links it: the
// grader's builds of the labs, never the course tree's ./labNN and ./solNN.
#include "graded_run.h"

#include <cstdlib>
#include <iostream>
#include <utility>

#include "channel_writer.h"
#include "exit_codes.h"
#include "tracked_buffers.h"
#include "verifier_requests.h"

namespace cudalabs {

namespace {
// Never destroyed: buffers freed while statics are torn down still report to it.
const bool installed = (install_run_hooks(new GradedRun()), true);
}  // namespace

// Called at the start of every run: a kept verifier makes many, each with its own options.
std::vector<std::string> GradedRun::arguments(const std::vector<std::string>& given) {
    options_ = GradingOptions();
    case_ = GradedCase();
    if (requests_) return std::exchange(next_request_, {});
    if (given.size() != 1 || given[0] != verifier_requests::kFlag) return arguments_to_read(given);
    requests_ = std::make_unique<VerificationRequests>(verifier_requests::kFd);
    std::vector<std::string> words;
    if (!requests_->next(words)) throw UsageError(std::string(verifier_requests::kFlag) + ": no request came");
    return words;
}

bool GradedRun::take_option(const std::string& flag, const std::function<std::string()>& value) {
    return options_.take(flag, value);
}

void GradedRun::options_read() {
    options_.check();
    if (requests_ && !options_.verifying())
        throw UsageError(std::string(verifier_requests::kFlag) + " runs verifications only (--verify-outputs)");
}

void GradedRun::run_started() {
    if (options_.grading()) channel::open(options_.channel_fd);
    else channel::disable();
    enable_buffer_tracking(options_.grading() || options_.verifying());
}

// From here on the lab's own code runs: the grader tells a GPU that could not be opened (exit
// 77) from anything later by this record.
void GradedRun::device_ready() {
    if (options_.grading()) prove_sealing();
    channel::write(channel::RecordType::DeviceReady, std::string());
}

void GradedRun::run_finished() { channel::finish(); }  // RUN_END: a crash or an exit() leaves it out

// A kept verifier says how the request's run ended and waits for the next; it ends with the
// requests, with the last run's exit code. A broken request is a usage error like any other bad
// command line: said on stderr, exit 2, whatever the last run answered.
bool GradedRun::run_again(int exit_code) {
    if (!requests_ || !requests_->reply(exit_code)) return false;
    try {
        return requests_->next(next_request_);
    } catch (const UsageError& e) {
        std::cerr << e.what() << "\n";
        std::exit(kExitUsage);
    }
}

void GradedRun::case_begun(const std::string& variant, const Dims& dims) {
    case_ = GradedCase();
    case_.key = variant + "_" + format_dims(dims);
    clear_tracked_outputs();
    if (!options_.grading()) return;
    channel::flush_trace();  // kernels of what came before land before the case
    channel::write(channel::RecordType::CaseBegin, channel::case_begin_payload(variant, format_dims(dims)));
}

void GradedRun::case_ended(const std::string& failure, std::vector<std::string>& faults) {
    if (options_.grading()) send_case_end(failure, faults);
    if (options_.verifying_fresh()) {
        faults.insert(faults.end(), case_.rep_faults.begin(), case_.rep_faults.end());
        clear_tracked_outputs();
    }
    if (options_.verifying())
        for (const std::string& fault : StoredOutputs(options_.verify_dir).faults(case_.key)) faults.push_back(fault);
}

void GradedRun::send_case_end(const std::string& failure, std::vector<std::string>& faults) {
    faults.insert(faults.end(), case_.rep_faults.begin(), case_.rep_faults.end());
    channel::flush_trace();
    if (case_.rep_open) {  // an error cut the repetition short
        channel::write(channel::RecordType::RepEnd, channel::rep_end_payload(static_cast<uint32_t>(case_.reps)));
        case_.rep_open = false;
    }
    // A failure the driver found itself (a padding written, a pointer not page-locked, an error
    // mid-case) fails the case in the verifier too: it judges only what it is sent.
    if (!failure.empty()) faults.push_back(failure);
    for (const std::string& fault : faults) channel::write(channel::RecordType::Fault, channel::fault_payload(fault));
    channel::write(channel::RecordType::CaseEnd, std::string());
    clear_tracked_outputs();
}

std::vector<StoredOutput> GradedRun::output_checked(const CheckedOutput& output) {
    if (options_.grading() || options_.verifying_fresh())
        case_.checked.push_back({content_hash(output.data, output.bytes), output.bytes, output.elem_bytes, output.kind, output.tol});
    if (options_.grading()) channel::write_output(static_cast<uint32_t>(output.index), output.data, output.bytes);
    if (!options_.verifying()) return {};
    // Fresh repetitions send samples, judged as they run (repetitions.cu), not whole outputs.
    return StoredOutputs(options_.verify_dir).judged_instead(case_.key, output.index, output.bytes, options_.fresh_key == 0);
}

void GradedRun::outputs_poisoned(const OutputRegion& region) {
    untrack_input(region.ptr);
    track_output(region);
}

void GradedRun::inputs_uploaded(const InputRegion& region) { track_input(region); }

void GradedRun::buffer_freed(const void* ptr) {
    untrack_output(ptr);
    untrack_input(ptr);
}

}  // namespace cudalabs
