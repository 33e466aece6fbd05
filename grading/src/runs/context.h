// What the stages of a grading run share, in three parts by who owns them: the run's setup (the
// command line, the rubric, the trusted build, the isolation, the folders, what the self-test
// found), fixed once set up; each worker's own (its GPU, device name, private folder, sandbox
// user); and each submission's own, cleared for the next.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compile/build.h"
#include "compile/lab_build.h"
#include "runs/failures.h"
#include "gpu/gpu_turns.h"
#include "gpu/gpus.h"
#include "intake/command_line.h"
#include "intake/lab_info.h"
#include "intake/rubric.h"
#include "isolation/isolation.h"
#include "util/breakdown.h"

namespace grading {

class ReferencePool;
class KeptVerifier;          // runs/kept_verifier.h
struct CombinedCorrectness;  // judge/test_kinds.cpp

// Fixed for the whole run once it is set up: every worker reads it, none changes it.
struct GradingSetup {
    Config cfg;
    Rubric rubric;            // expanded from the lab's declaration once the lab is loaded
    std::string rubric_text;  // the file as read, once: the sha and both readings are of it
    std::string rubric_sha;
    LabInfo info;
    TrustedSymbols trusted;               // what the driver and harness define, their kernels
    ImportLists import_lists;             // grading/allowed-imports.txt and shimmed-imports.txt
    std::set<std::string> sol_kernels;    // the reference solution's kernels (exact names)
    std::vector<std::string> variants;    // the lab's variants (./solNN --list)
    Isolation iso;                        // chosen once, as this run's own sandbox user (the builds')
    std::string isolation_text;           // stated in every report
    std::string out, priv;                // results; the grader's private folder (0700)
    std::string work;  // where the sandbox's files live (stages, programs, run folders): reachable by its user
    std::string tools;
    std::string tree;  // the trusted tree's revision, with a hash of its changes when modified
    RetryPolicy retry;     // pauses between attempts of a run the environment failed
    // What the self-test found.
    Limits run_limits;
    bool trace_ok = false;
    // Kernels are judged by what runs: in a timed repetition (every run has them) only kernels
    // of the submission's file may run, so a library's kernel (cuBLAS, thrust or cub built
    // elsewhere), however it was reached, fails the row. On only when the trace works and the
    // reference's own repetitions show nothing but its kernels (the self-test).
    bool foreign_kernel_rule = false;
    bool racecheck_workers_option = false;  // compute-sanitizer takes --racecheck-num-workers (its --help says so)
};

// What one worker owns: without --gpus the one worker's is the grader's own; with --gpus each
// worker has its own.
struct WorkerSetup {
    Isolation iso;      // the run's isolation, as this worker's own sandbox user
    std::string priv;   // its private folder (0700): outputs, verdicts, the reference's timing runs
    // What its runs see as CUDA_VISIBLE_DEVICES: "" for the grader's own (passed through); with
    // --gpus, the worker's own GPU.
    std::string cuda_visible_devices;
    std::string gpu_uuid;  // the GPU it grades on (its machine-wide lock); "" when unknown
    std::string device = "unknown";
    // The reference's timed samples on its GPU, shared by the lanes and workers grading there
    // (judge/reference_pool.h); null: none (each performance test times the reference itself).
    ReferencePool* reference_pool = nullptr;
    // The reference's run in the sandbox (the self-test's): what tells a failure that persists
    // from the environment's, run again when one does (runs.h, reference_runs_in_sandbox).
    struct {
        std::string program, run_dir;
        std::vector<std::string> args;
    } reference;
};

// What one submission owns while its tests run.
struct SubmissionState {
    // Unclear failures (failures.h) already found to be the submission's own: not retried again.
    std::set<std::string> program_failures;
    // Its turn on the GPU (gpu_turns.h): a run made while the GPU is shared with other lanes
    // counts as it is only when it ends cleanly, else it is settled with the GPU alone. Null: no
    // turn (the self-test's runs).
    GpuTurn* gpu_turn = nullptr;
    // Where its runs' time is added (breakdown.h); null: not recorded.
    SubmissionTiming* timing = nullptr;
    // Its correctness trials run in one process each (--combine-correctness), made on first use.
    std::shared_ptr<CombinedCorrectness> combined_correctness;
    // Its lane's kept verifier; null (--separate-verifiers): a verifier of its own for each verification.
    KeptVerifier* kept_verifier = nullptr;
};

// What the runs of a submission's tests see: the run's setup (read only), the worker grading it,
// and the submission's own state.
struct GradingContext {
    const GradingSetup& setup;
    WorkerSetup& worker;
    SubmissionState& submission;
};

}  // namespace grading
