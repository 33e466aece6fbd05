// Running a lab program for the grader and gathering what it showed: its fate, and the records
// it sent through the results channel (outputs, host transfers, kernels, timed repetitions),
// read by the grader while it runs; then the trusted verifier's verdict on those outputs.
#pragma once
#include <string>
#include <vector>

#include "context.h"
#include "judge.h"

namespace grading {

struct KernelSpan {
    std::string name;
    bool truncated = false;  // the name was longer than the channel carries
    double ns = 0;
};

struct RepetitionEvidence {
    bool warmup = false;  // checked like the others, but its time is not used
    std::vector<KernelSpan> kernels;
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
    bool channel_complete = false;
    std::string channel_problem;    // the first thing wrong with the records, for the student
    bool trace_ready = false;       // the kernel trace announced itself
    std::vector<CaseEvidence> cases;
    const CaseEvidence* find(const std::string& variant, const std::string& size) const;
};

struct RunRequest {
    std::string program;
    std::vector<std::string> args;      // without --channel (added here)
    std::string workdir;                // the run's own folder
    std::string outputs_dir;            // where the channel's outputs are written (private)
    bool sandboxed = true;              // a student's program (else trusted: the reference)
    bool trace = true;                  // preload the kernel trace
    double timeout_s = 60;
    std::vector<std::string> prefix;    // e.g. compute-sanitizer and its options
    int log_fd_target = -1;             // >= 0: a second pipe at this descriptor, read into `log`
};

ProgramRun run_program(GradingContext& ctx, const RunRequest& request, std::string* log = nullptr);

struct RowVerdict {
    std::string variant, size, status, note;
};

// Has the trusted solution judge the outputs in `outputs_dir` (recomputing the inputs from the
// seed). Returns false with `problem` set when the verifier itself failed.
bool verify_outputs(GradingContext& ctx, const std::string& outputs_dir, const std::string& variants,
                    const std::string& sizes, unsigned long long seed, std::vector<RowVerdict>& rows,
                    std::string& problem);

// Whether a kernel name from the trace is one of `kernels` (exact; a truncated name matches the
// one kernel it is the start of).
bool is_one_of(const KernelSpan& k, const std::set<std::string>& kernels);

// One sentence on how the program ended, for the feedback ("" for a normal end).
std::string program_fate(const RunResult& r);

}  // namespace grading
