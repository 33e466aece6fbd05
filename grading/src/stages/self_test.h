// The self-test: before anything is graded, the trusted reference runs in the sandbox exactly as
// a student's program will (channel, trace, the rubric's limits and sanitizers), on the GPU the
// grader starts on. What it finds is the run's for good: the isolation described in every report,
// whether the kernel trace is on and kernels foreign to a file are looked for, whether runs see
// their own GPU's device nodes alone. A reference that will not run in the sandbox stops the run,
// saying why, rather than have it go on weaker. Its checks serve each other GPU's (workers.h).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gpu/gpu_locks.h"
#include "gpu/gpu_nodes.h"
#include "runs/runs.h"
#include "stages/sandbox_setup.h"

namespace grading {

// The GPU a trusted run named in its --json file: the device line of the reports and the UUID its
// machine-wide lock goes by.
void read_device(WorkerSetup& worker, const std::string& device_json);
// The reference solution as a worker's runs in the sandbox see it (runs.h,
// reference_runs_in_sandbox): a copy of its own under `work`, where the sandbox's user can reach
// it, run on a small case.
void place_reference(WorkerSetup& worker, const std::string& work, const std::string& solution, const std::string& variant,
                     const std::string& small);
// The isolation step (and stderr line) of a sandbox that shows its runs the whole /dev because the
// reference failed with its GPU's nodes alone.
std::string whole_dev_because(const std::string& failure);
// The GPU's locks (gpu_locks.h), held alone while the GPU is checked; its lanes' turns take them
// through their gate (gpu_turns.h) while they grade.
TurnLocks lock_gpu_of(const WorkerSetup& worker, const std::string& lock_dir, const std::string& label);
// The name of a worker's GPU's machine-wide lock: its UUID, else what CUDA_VISIBLE_DEVICES names.
std::string gpu_lock_name(const WorkerSetup& worker);

class SelfTest {
public:
    SelfTest(GradingSetup& setup, RunSandbox& sandbox) : setup_(setup), sandbox_(sandbox) {}
    // On the grader's own worker (sandbox.own): false where there is no usable GPU; throws where
    // the reference fails. Sets setup.trace_ok, foreign_kernel_rule and isolation_text.
    bool run();
    // Said at the top of every student's feedback (an isolation weaker than bubblewrap, a trace off).
    const std::vector<std::string>& notes() const { return notes_; }

    // What the other GPUs' checks share with it.
    void show_only_its_gpu(WorkerSetup& w) const;
    std::string why_not_working(const SandboxCheck& check) const;
    RunResult run_reference_outside_sandbox(const WorkerSetup& worker, const std::string& variant, const std::string& small,
                                            const std::string& device_json, const std::vector<std::string>& env) const;
    bool reference_kernels_seen(const ProgramRun& run) const;
    std::pair<std::string, std::string> reference_case() const;
    SubmissionState& no_submission() { return no_submission_; }

private:
    GradingSetup& setup_;
    RunSandbox& sandbox_;
    SubmissionState no_submission_;  // what the self-test's and the GPU checks' runs are part of
    // Whether runs see only their own GPU's device nodes where those are known; false once the
    // reference did not run so.
    bool gpu_nodes_alone_ = true;
    std::vector<std::string> notes_;
    SandboxCheck reference_in_sandbox_within_limits(std::vector<std::string>& steps);
    SandboxCheck reference_in_sandbox_on_its_gpu(std::vector<std::string>& steps);
    std::string check_sanitizers();
    void check_kernel_trace(const ProgramRun& run, std::vector<std::string>& steps);
    std::string isolation_description(const std::vector<std::string>& steps) const;
    bool reference_repetitions_own(const ProgramRun& run) const;
};

}  // namespace grading
