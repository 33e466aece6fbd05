#include "runs/failures.h"

#include <signal.h>

#include <chrono>
#include <thread>

#include "runs/runs.h"
#include "sealed_memory.h"

namespace grading {

namespace {

// CUDA errors that say the GPU or the operating system refused, not that the code was wrong.
// They are named by the program's own fault texts, which it controls: only "unclear".
const char* const kEnvironmentCudaErrors[] = {
    "cudaErrorDevicesUnavailable", "cudaErrorDeviceUnavailable", "cudaErrorOperatingSystem",
    "cudaErrorSystemNotReady",     "cudaErrorInitializationError", "cudaErrorNoDevice",
    "cudaErrorInsufficientDriver", "cudaErrorSystemDriverMismatch", "Resource temporarily unavailable",
};

std::string first_line(const std::string& text) {
    size_t start = text.find_first_not_of(" \n\r\t");
    if (start == std::string::npos) return "";
    std::string line = text.substr(start, text.find('\n', start) - start);
    return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

std::string with_message(const std::string& what, const std::string& err) {
    const std::string line = first_line(err);
    return line.empty() ? what : what + ": " + line;
}

const char* environment_error_in(const std::vector<std::string>& faults) {
    for (const std::string& f : faults)
        for (const char* name : kEnvironmentCudaErrors)
            if (f.find(name) != std::string::npos) return name;
    return nullptr;
}

}  // namespace

FailureOrigin failure_origin(const ProgramRun& pr) {
    const RunResult& r = pr.run;
    if (!r.started) return {Blame::Environment, "the sandbox could not start the program (" + r.error + ")"};
    if (pr.grader_fault) return {Blame::Environment, pr.channel_problem};
    if (r.timed_out) return {Blame::Program, ""};
    // RUN_BEGIN but no DEVICE_READY: the harness stopped while opening the GPU, before any code
    // of the student's could run (static initialisers run before RUN_BEGIN).
    if (pr.began && !pr.device_ready)
        return {Blame::Environment, with_message("the program could not get the GPU (" + r.describe() + ")", r.err)};
    // The trace announces itself when CUDA starts (CUDA_INJECTION64_PATH), before DEVICE_READY:
    // without it, no kernel of the run is seen, and its rows would read "no kernel of your file
    // ran". Nothing of the student's has run by then, so a trace that did not start is never theirs.
    if (pr.device_ready && pr.trace_wanted && !pr.trace_ready)
        return {Blame::Environment, "the grader's kernel trace did not start in the program (CUPTI refused it)"};
    // Records CUPTI dropped (no buffer for them): which kernels ran, and for how long, is not
    // known, and "no kernel of your file ran" would be the trace's failure, not the program's.
    if (pr.trace_wanted && pr.trace_lost > 0)
        return {Blame::Environment, "the grader's kernel trace lost " + std::to_string(pr.trace_lost) +
                                        " kernel records (CUPTI had no buffer for them)"};
    if (!pr.began && !r.ok())
        return {Blame::Unclear, with_message("the program ended before the lab began (" + r.describe() + ")", r.err)};
    if (r.signal == SIGKILL) return {Blame::Unclear, "the program was killed from outside (SIGKILL, not the time limit)"};
    for (const CaseEvidence& c : pr.cases) {
        if (const char* name = environment_error_in(c.faults))
            return {Blame::Unclear, std::string("CUDA reported ") + name + " while the program ran"};
        // The seal is the grader's, made inside the program: where it was refused, the reference
        // (which proves at start that it may seal) decides whose failure that is.
        for (const std::string& f : c.faults)
            if (f.find(cudalabs::kSealFailedMessage) != std::string::npos)
                return {Blame::Unclear, std::string(cudalabs::kSealFailedMessage) + " while a graded call ran"};
    }
    return {Blame::Program, ""};
}

void pause_before(const RetryPolicy& policy, size_t attempt) {
    if (attempt < 1 || attempt - 1 >= policy.pauses_s.size()) return;
    const double s = policy.pauses_s[attempt - 1];
    if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

}  // namespace grading
