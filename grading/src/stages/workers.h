// Who grades: the GPUs to grade on (--gpus, else the one CUDA picks), the self-test on the first,
// one worker a GPU checked with the reference, and each worker's lanes (--per-gpu: submissions
// graded at once on its GPU, each lane with its own private folder and sandbox user).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_turns.h"
#include "judge/reference_pool.h"
#include "runs/kept_verifier.h"
#include "stages/self_test.h"

namespace grading {

// One worker, or with --gpus one per GPU, each with its own setup (its GPU, private folder,
// sandbox user and device name), grading whole submissions.
struct Worker {
    size_t slot = 0;     // its place in the --gpus list (0 without --gpus)
    SandboxIdentity identity;  // its own sandbox user (root only), held for the whole run
    int gpu = -1;        // the GPU's index, as CUDA counts them in the grader; -1: no --gpus
    std::string name;    // the GPU's name, from the reference's run on it (with --gpus)
    WorkerSetup setup;
    size_t graded = 0;   // submissions whose tests ran on it
    // How its lanes take turns on its GPU (gpu_turns.h): one gate a GPU, shared by the workers
    // that grade on it (GRADING_SHARED_GPUS), so that a timed test waits for all their lanes.
    std::shared_ptr<GpuGate> gate;
    std::shared_ptr<ReferencePool> reference_pool;  // the reference's timed samples on its GPU, shared the same way
};

// One submission at a time on a worker's GPU (--per-gpu N: N lanes a GPU). The first lane has the
// worker's own setup; each other its own private folder, sandbox user and reference copy, so that
// submissions graded at once on a GPU cannot reach each other's files or processes.
struct Lane {
    size_t worker = 0, index = 0;
    SandboxIdentity identity;  // its own sandbox user (root only; the first lane uses its worker's)
    WorkerSetup setup;
    std::unique_ptr<KeptVerifier> kept_verifier;  // its submissions' verifier, kept open (not with --separate-verifiers)
};

class Workers {
public:
    Workers(GradingSetup& setup, RunSandbox& sandbox) : setup_(setup), sandbox_(sandbox), self_test_(setup, sandbox) {}
    // The GPUs, the self-test, the workers and their lanes (with --compile-only, one worker and
    // no GPU). False where there is no usable GPU; throws where a GPU of --gpus fails its check.
    bool set_up();
    std::vector<Worker>& all() { return workers_; }
    const std::vector<Worker>& all() const { return workers_; }
    std::vector<Lane>& lanes() { return lanes_; }
    size_t lanes_per_gpu() const { return lanes_per_gpu_; }
    // Said at the top of every student's feedback.
    const std::vector<std::string>& notes() const { return self_test_.notes(); }
    std::string worker_name(const Worker& w) const;
    std::string gpu_label(const Worker& w) const;
    std::string lane_name(const Worker& w, const Lane& lane) const;

private:
    GradingSetup& setup_;
    RunSandbox& sandbox_;
    SelfTest self_test_;
    std::vector<Worker> workers_;
    std::vector<Lane> lanes_;
    size_t lanes_per_gpu_ = 1;
    std::vector<std::string> gpu_uuids_;  // each GPU CUDA shows the grader, by index (their locks' names)
    bool have_gpu_ = true;
    bool choose_gpus_and_self_test(std::vector<int>& gpus);
    std::vector<int> gpus_to_grade_on();
    void announce_gpus(const std::vector<int>& gpus) const;
    int count_gpus();
    std::vector<int> choose_gpus();
    void set_up_workers(const std::vector<int>& gpus);
    void check_gpu(Worker& w);
    size_t lanes_per_gpu(const Worker& w);
    void set_up_lanes();
};

}  // namespace grading
