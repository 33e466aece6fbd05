// Running a lab program for the grader and gathering what it showed: its fate, and the records
// it sent through the results channel (outputs, host transfers, kernels, timed repetitions),
// read by the grader while it runs; then the trusted verifier's verdict on those outputs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runs/context.h"
#include "runs/timing_gate.h"

namespace grading {

// A copy the student's host code made while a case ran (recorded by the grading build).
struct HostTransfer {
    std::string api;        // "cudaMemcpy", "cudaMemcpyAsync", "cudaMallocHost", ...
    std::string direction;  // "host_to_device", "device_to_host", "device_to_device", "host_to_host", "host_alloc"
    unsigned long long bytes = 0;
};

struct KernelSpan {
    std::string name;
    bool truncated = false;  // the name was longer than the channel carries
    double ns = 0;
};

struct RepetitionEvidence {
    bool warmup = false;  // checked like the others, but its time is not used
    std::vector<KernelSpan> kernels;
    double staged_bytes = 0;  // moved by its copies into scratch memory (device_to_scratch)
};

struct CaseEvidence {
    std::string variant, size;
    std::vector<KernelSpan> kernels;                 // every kernel of the case, repetitions included
    std::vector<RepetitionEvidence> reps;            // per timed repetition, warm-up included
    std::vector<HostTransfer> transfers;
    std::vector<std::string> faults;
};

struct ProgramRun {
    RunResult run;
    bool began = false;          // RUN_BEGIN arrived: the harness's main ran
    bool device_ready = false;   // DEVICE_READY arrived: the harness opened the GPU
    bool grader_fault = false;   // the grader could not store what the program sent
    std::string retry_note;      // how often it was run again, and why, for the feedback
    bool channel_complete = false;
    std::string channel_problem;    // the first thing wrong with the records, for the student
    bool trace_wanted = false;      // the kernel trace was loaded into it (the run needs it)
    bool trace_ready = false;       // the kernel trace announced itself
    uint64_t trace_lost = 0;        // kernel records the trace could not keep (CUPTI dropped them)
    // The run's --fresh-inputs key (new inputs every timed repetition, samples chosen by it):
    // random per run, never seen by the program's own code; the verifier is given it too.
    unsigned long long fresh_key = 0;
    std::vector<CaseEvidence> cases;
    const CaseEvidence* find(const std::string& variant, const std::string& size) const;
};

// The options of a run of `variants` at `sizes`, alike in every kind of run (correctness, timing,
// the reference's): guard zones around the device buffers (--guard-buffers) everywhere but in the
// sanitizer's runs, which want allocations of their exact size. They reach the program through
// the options pipe (run_options.h), never its command line.
std::vector<std::string> run_args(const std::string& variants, const std::string& sizes, unsigned long long seed, int reps,
                                  bool guard_buffers = true);

struct RunRequest {
    std::string program;
    std::vector<std::string> args;      // without --channel and --fresh-inputs (added here), handed over by pipe
    std::string workdir;                // the run's own folder
    std::string outputs_dir;            // where the channel's outputs are written (private)
    bool sandboxed = true;              // a student's program (else trusted: the reference)
    bool trace = true;                  // preload the kernel trace
    double timeout_s = 60;
    std::vector<std::string> prefix;    // e.g. compute-sanitizer and its options
    long tool_threads = 0;              // threads the prefix's tool may start beyond the program's
                                        // own: added to the process limit (RLIMIT_NPROC)
    int log_fd_target = -1;             // >= 0: a second pipe at this descriptor, read into `log`
    TimingGate* gate = nullptr;         // a timed run that waits for the GPU alone (see TimingGate)
};

// What a run of `req` is started with. Every run of a program has the same command line
// (`PROGRAM --options-from 5`, after the tool in front of it, if any) and the same environment
// (the kernel trace's variables in every run but the sanitizer's, which loads a tool of its own):
// what differs between runs reaches the program as `options`, on a pipe (run_options.h).
struct Launch {
    std::vector<std::string> argv;       // the tool in front (a sanitizer), then the program's
    std::vector<std::string> env;        // the scrubbed environment the grader sets
    std::vector<std::string> trace_env;  // the kernel trace's, where it is loaded
    std::vector<std::string> options;    // handed over on the options pipe
};
Launch launch_of(const GradingContext& ctx, const RunRequest& req, unsigned long long fresh_key);

ProgramRun run_program(const GradingContext& ctx, const RunRequest& request, std::string* log = nullptr);

// A student's program through run_program, with the environment's failures taken out
// (failures.h): a run the environment failed is made again after ctx.setup.retry's pauses; one that
// still fails so throws GraderError. An unclear failure that persists counts as the program's
// only if the reference runs in the sandbox right then (else GraderError); the run's
// retry_note says so.
ProgramRun run_student(GradingContext& ctx, const RunRequest& request, std::string* log = nullptr);

// A trusted run (the reference timed beside a student, or checking the sandbox) that must work:
// made again after ctx.setup.retry's pauses while it fails; throws GraderError with `what` when it
// never works.
ProgramRun run_reference(const GradingContext& ctx, const RunRequest& request, const std::string& what);

// The reference solution run in the sandbox now, as a student's program runs there
// (ctx.worker.reference: the self-test's program, arguments and run folder), again after ctx.setup.retry's
// pauses while it fails. `failure` is "" when it ran, else why not. With `like`, it is run the
// way that request runs its program -- the same tool in front of it (a sanitizer), trace and
// report pipe -- so that it proves, or disproves, the very configuration a student's run used.
struct SandboxCheck {
    ProgramRun run;
    std::string failure;
};
SandboxCheck run_reference_in_sandbox(const GradingContext& ctx, const RunRequest* like = nullptr);
// "" when the reference solution runs in the sandbox now (ctx.worker.reference), like `like`, else why not.
std::string reference_runs_in_sandbox(const GradingContext& ctx, const RunRequest* like = nullptr);

struct RowVerdict {
    std::string variant, size, status, note;
};

// Has the trusted solution judge the outputs that run `pr` of `request` sent (to
// request.outputs_dir), recomputing the inputs from the seed and making the same fresh
// repetitions (same --reps and key). The verifier is run again after ctx.setup.retry's pauses when it
// fails; when it never works that is the grader's failure (GraderError). Returns false with
// `problem` set only for a verdict that cannot be read.
bool verify_outputs(GradingContext& ctx, const RunRequest& request, const ProgramRun& pr, const std::string& variants,
                    const std::string& sizes, unsigned long long seed, std::vector<RowVerdict>& rows,
                    std::string& problem);

// Whether a kernel name from the trace is one of `kernels` (exact; a truncated name matches the
// one kernel it is the start of).
bool is_one_of(const KernelSpan& k, const std::set<std::string>& kernels);

// The first kernel in the case's timed repetitions (warm-up included) that is not one of
// `kernels`, or nullptr. The harness runs no kernel of its own inside a repetition.
const KernelSpan* foreign_kernel(const CaseEvidence& c, const std::set<std::string>& kernels);

// One sentence on how the program ended, for the feedback ("" for a normal end).
std::string program_fate(const RunResult& r);

}  // namespace grading
