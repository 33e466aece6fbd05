// Where a submission's grading time goes (grading/grade writes OUT/breakdown.jsonl, one line per
// submission, and prints the class's table at the end): its build (the compile, the audit, the
// link), the waits for its GPU, each test split into the program's runs, the sanitizer's runs,
// the reference's runs and the verifier, and the writing of its results. Host-only: unit-tested.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace grading {

// The kinds of run a test makes, each timed on its own.
enum class RunKind { Program, Sanitizer, Reference, Verifier };

struct TestTiming {
    std::string id;
    bool alone = false;    // it had the GPU to itself for all its runs (--per-gpu 1)
    double wall_s = 0;     // the whole test, waits included
    double wait_gpu_s = 0; // waiting for its turns on the GPU (shared, and alone for its timed processes)
    double alone_s = 0;    // its timed processes with the GPU alone (part of its runs' time)
    size_t alone_turns = 0;
    // The runs with a result channel (all but the verifier's): from their start to the GPU open
    // (DEVICE_READY), the sandbox's and CUDA's start-up. Part of their runs' time.
    double cuda_start_s = 0;
    size_t cuda_starts = 0;
    double run_s[4] = {0, 0, 0, 0};  // by RunKind
    size_t runs[4] = {0, 0, 0, 0};
    // The verifier's processes started for its verifications (runs[Verifier]): one each, and
    // each retry; a lane's kept verifier (the default) answers many from one.
    size_t verifier_processes = 0;
    double runs_total_s() const { return run_s[0] + run_s[1] + run_s[2] + run_s[3]; }
};

struct SubmissionTiming {
    std::string student;
    std::string lane;           // which GPU and lane graded it ("" without runs)
    double compile_s = 0;       // the compiler (0 where a build of the same file was reused)
    bool build_reused = false;  // the compile and link of an identical file were reused (build_cache.h)
    double audit_s = 0;         // the audit of what the compiler made, and the localising of the object
    double link_s = 0;
    double sandbox_s = 0;       // the run folder handed to the sandbox's user and taken back
    double wait_gpu_s = 0;      // waiting for its turns on the GPU (its tests' waits, or the whole submission's turn)
    double results_s = 0;       // feedback, results, gradebook and audit line written
    double total_s = 0;         // from its build to its results (its build's wait for a compile thread not counted)
    std::vector<TestTiming> tests;
    TestTiming* current = nullptr;  // the test whose runs are being made (runs add their time there)

    // `cuda_start_s`: how long the run took to open the GPU; < 0 where that is not known.
    void add_run(RunKind kind, double seconds, double cuda_start_s = -1);
    void add_verifier_processes(size_t started);
    // A wait for a turn on the GPU within the current test; a timed process's turn alone (its
    // wait, and how long it held the GPU alone).
    void add_wait(double seconds);
    void add_alone(double waited, double held);
};

// One submission's line of OUT/breakdown.jsonl (JSON, one line).
std::string breakdown_json(const SubmissionTiming& t);

// The class's table: per phase, the total over the class and the mean per submission, and the
// submissions an hour the run's wall time gives. `sandbox_start_s`: what starting one program in
// the sandbox costs (measured once: sandbox_start_seconds); the table estimates the share of the
// program's and sanitizer's runs that went to it (0: not shown).
std::string breakdown_table(const std::vector<SubmissionTiming>& all, double wall_s, double sandbox_start_s = 0);

// Seconds since `start` (a steady clock's reading).
double seconds_since(double start);
double steady_now();

}  // namespace grading
