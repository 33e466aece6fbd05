// Where and how the run's programs run: the rubric's limits, the work folder the sandbox's user
// can reach (OUT/work, else a folder of this run's own under /var/tmp), the run's own sandbox user
// (root only: no other grading run on the machine shares it), and the isolation, chosen once by a
// probe and never weakened during the run.
#pragma once
#include <string>

#include "isolation/isolation.h"
#include "runs/context.h"

namespace grading {

struct RunSandbox {
    std::string lock_dir;      // the machine's grading locks (util/locks.h)
    SandboxIdentity identity;  // this run's sandbox user, where the grader is root (held to the end)
    WorkerSetup own;           // the grader's own worker: its private folder, the isolation
    RunSandbox() = default;
    RunSandbox(const RunSandbox&) = delete;
    RunSandbox& operator=(const RunSandbox&) = delete;
    // A work folder of this run's own outside OUT goes with the run, however it ends.
    ~RunSandbox();
    std::string outside_work;  // that folder ("" where the work folder is OUT/work)
};

// Sets setup.run_limits, setup.work and setup.iso (or throws cudalabs::UsageError saying what to do).
void set_up_sandbox(GradingSetup& setup, RunSandbox& sandbox);

}  // namespace grading
